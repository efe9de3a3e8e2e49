"""Training steps/s: webtorch "cpu" (NumPy) vs webtorch "webgpu" vs PyTorch CPU, side by side in one run.

    .venv/bin/python bench/bench_training.py [--steps 10] [--repeat 6] [--threads 1] [--quick] [--out PATH]

Models (same initial weights and data for all three; the final losses are recorded as a sanity check):
  * mlp:   Linear(784, 256) -> ReLU -> Linear(256, 10), batch 128, cross_entropy, Adam(lr=1e-3)
  * lenet: the PyTorch "Neural Networks" tutorial net (conv 1->6 5x5, max_pool 2, conv 6->16 5x5, max_pool 2,
           fc 400-120-84-10 with ReLUs), batch 16 of 1x32x32, MSELoss, SGD(lr=0.01)
A step is zero_grad, forward, loss, backward, optimizer.step(); on webgpu it ends with
``webtorch.webgpu.synchronize()`` (as a loop that reads ``loss.item()`` every step would), so each step's
work is done inside its timing. Steps/s is the best of ``--repeat`` rounds; in each round every backend runs
``--steps`` steps in turn, so load from other processes hits all three alike (compare ratios within one run,
not absolute figures across runs). PyTorch's intra-op pool and NumPy's BLAS run ``--threads`` threads.
On webgpu the counters of ``webtorch.webgpu.stats()`` over the timed steps are divided by the step count:
dispatches, submits, flushes, host fallbacks (and which primitives fell back) per step.
Prints two tables and writes bench/results/training.json (``--quick``: a few steps, for smoke tests).
"""
import argparse
import os
import sys
import time

from _report import format_table, report

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser"))
from models import LeNet  # noqa: E402  (bench/browser/models.py: the benchmark's one LeNet)

BACKENDS = [("cpu", "webtorch", "cpu"), ("webgpu", "webtorch", "webgpu"), ("torch", "torch", "cpu")]
RATIOS = [("webgpu", "cpu"), ("webgpu", "torch"), ("cpu", "torch"), ("webgpu", "torch-cuda")]
# Where PyTorch sees a CUDA GPU (the GPU webgpu runs on, through Vulkan), its native peer runs beside them.
CUDA_PEER = ("torch-cuda", "torch", "cuda")
STAT_KEYS = ("dispatches", "submits", "flushes", "host_fallbacks", "kernels_compiled", "nodes_fused")


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def _mlp_setup(lib, rng):
    import numpy as np
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    return x, y, lib.nn.functional.cross_entropy, lambda ps: lib.optim.Adam(ps, lr=1e-3)


def _lenet_setup(lib, rng):
    import numpy as np
    x = rng.standard_normal((16, 1, 32, 32)).astype(np.float32)
    y = rng.standard_normal((16, 10)).astype(np.float32)
    return x, y, lib.nn.MSELoss(), lambda ps: lib.optim.SGD(ps, lr=0.01)


MODELS = {
    "mlp": ("MLP 784-256-10, batch 128, cross_entropy, Adam", _mlp, _mlp_setup),
    "lenet": ("LeNet (tutorial net), batch 16x1x32x32, MSE, SGD", LeNet, _lenet_setup),
}


def _backends():
    """BACKENDS, plus PyTorch on CUDA in full float32 (TF32 off, as webgpu computes) where a CUDA GPU is seen."""
    import torch
    if not torch.cuda.is_available():
        return BACKENDS
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    return BACKENDS + [CUDA_PEER]


def _initial_state(make_model):
    """Initial weights as NumPy arrays, drawn once by PyTorch, so all three backends start equal."""
    import torch
    torch.manual_seed(0)
    return {k: v.detach().numpy().copy() for k, v in make_model(torch).state_dict().items()}


def _make_step(make_model, setup, state, lib_name, device):
    import numpy as np
    if lib_name == "torch":
        import torch as lib
    else:
        import webtorch as lib
    model = make_model(lib)
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    model = model.to(device)
    x, y, loss_fn, make_opt = setup(lib, np.random.default_rng(0))
    x, y = lib.tensor(x, device=device), lib.tensor(y, device=device)
    opt = make_opt(model.parameters())
    sync = {"webgpu": getattr(lib, "webgpu", None), "cuda": lib.cuda}.get(device)
    sync = sync.synchronize if sync is not None else (lambda: None)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        sync()
        return loss
    return step


def _time_round_robin(steps_by_backend, steps, repeat, warmup, stats):
    """Best steps/s of each backend over ``repeat`` rounds; in each round every backend runs one batch of
    ``steps`` steps in turn, so a burst of load from other processes hits all of them alike. ``stats``
    (webtorch.webgpu.stats, or None) is reset after the warm-up, so its counters cover exactly the timed
    webgpu steps. Returns ({backend: steps/s}, {backend: last loss})."""
    for step in steps_by_backend.values():
        for _ in range(warmup):
            step()
    if stats is not None:
        stats(reset=True)
    best = dict.fromkeys(steps_by_backend, float("inf"))
    losses = {}
    for _ in range(repeat):
        for name, step in steps_by_backend.items():
            t0 = time.perf_counter()
            for _ in range(steps):
                loss = step()
            best[name] = min(best[name], time.perf_counter() - t0)
            losses[name] = float(loss.item())
    return {name: steps / t for name, t in best.items()}, losses


def _webgpu_adapter():
    import webtorch
    if not webtorch.webgpu.is_available():
        return None
    return webtorch.webgpu.stats()["adapter"]


def bench(model_names, steps, repeat, warmup, adapter):
    """One row per model: steps/s of each backend, their ratios, the final losses and (with an adapter)
    webgpu's counters per timed step. A backend that cannot run here has None in its fields."""
    import webtorch
    stats = webtorch.webgpu.stats if adapter is not None else None
    backends = _backends()
    rows = []
    for key in model_names:
        description, make_model, setup = MODELS[key]
        state = _initial_state(make_model)
        steps_by_backend = {name: _make_step(make_model, setup, state, lib_name, device)
                            for name, lib_name, device in backends if device != "webgpu" or stats is not None}
        sps, losses = _time_round_robin(steps_by_backend, steps, repeat, warmup, stats)
        row = {"model": key, "description": description}
        for name, _, _ in backends:
            row[f"steps_per_s_{name}"] = sps.get(name)
        for a, b in RATIOS:
            row[f"{a}_vs_{b}"] = sps[a] / sps[b] if a in sps and b in sps else None
        for name, _, _ in backends:
            row[f"final_loss_{name}"] = losses.get(name)
        row["max_loss_deviation_from_torch"] = max(abs(v - losses["torch"]) for v in losses.values())
        counters = stats() if stats is not None else None
        for k in STAT_KEYS:
            row[f"{k}_per_step"] = None if counters is None else counters[k] / (steps * repeat)
        row["host_fallback_ops"] = None if counters is None else sorted(counters["host_fallback_ops"])
        rows.append(row)
    return rows


def _set_threads(n):
    """Size NumPy's BLAS pool; it is sized when NumPy loads, so this must run before the first import."""
    if "numpy" in sys.modules:
        print(f"note: NumPy was imported before --threads {n} could size its BLAS pool", file=sys.stderr)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10, help="steps per timed batch")
    ap.add_argument("--repeat", type=int, default=6, help="timed rounds (each backend's best batch counts)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first (pipeline compiles, pool fill)")
    ap.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    ap.add_argument("--threads", type=int, default=1,
                    help="threads of PyTorch's intra-op pool and of NumPy's BLAS (default 1: on a shared 2-core "
                         "machine two spinning pools per process slow both libraries down several times)")
    ap.add_argument("--quick", action="store_true", help="2 steps, 1 round, 1 warm-up step: a smoke run")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/training.json)")
    args = ap.parse_args(argv)
    if args.quick:
        args.steps, args.repeat, args.warmup = 2, 1, 1
    _set_threads(args.threads)
    import torch
    torch.set_num_threads(args.threads)
    adapter = _webgpu_adapter()
    rows = bench(args.models, args.steps, args.repeat, args.warmup, adapter)

    names = [name for name, _, device in _backends() if device != "webgpu" or adapter is not None]
    if adapter is not None:
        shown = [dict(r, host_fallback_ops=", ".join(r["host_fallback_ops"]) or "-") for r in rows]
        print(f"webgpu per training step, steady state (adapter: {adapter})")
        print(format_table(shown, [("model", "model", "s")] + [(f"{k}_per_step", k, ".2f") for k in STAT_KEYS]
                           + [("host_fallback_ops", "fallback ops", "s")]))
        print()
    columns = ([("model", "model", "s")] + [(f"steps_per_s_{n}", n, ".2f") for n in names]
               + [(f"{a}_vs_{b}", f"{a}/{b}", ".3f") for a, b in RATIOS if a in names and b in names])
    report("training", rows, columns, path=args.out,
           title=f"Training steps/s (best of {args.repeat} rounds x {args.steps} steps; higher is better; "
                 f"{args.threads} CPU thread(s))",
           unit="steps/s", steps=args.steps, repeat=args.repeat, warmup=args.warmup, quick=args.quick,
           threads=args.threads, webgpu_adapter=adapter)


if __name__ == "__main__":
    main()
