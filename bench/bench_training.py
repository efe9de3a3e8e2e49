"""Training steps/s: webtorch "cpu" (NumPy) vs webtorch "webgpu" vs PyTorch CPU, side by side in one run.

    .venv/bin/python bench/bench_training.py [--steps 20] [--repeat 3] [--quick] [--out PATH]

Models (same initial weights and data for all three; the final losses are recorded as a sanity check):
  * mlp:   Linear(784, 256) -> ReLU -> Linear(256, 10), batch 128, cross_entropy, Adam(lr=1e-3)
  * lenet: the PyTorch "Neural Networks" tutorial net (conv 1->6 5x5, max_pool 2, conv 6->16 5x5, max_pool 2,
           fc 400-120-84-10 with ReLUs), batch 16 of 1x32x32, MSELoss, SGD(lr=0.01)
A step is zero_grad, forward, loss, backward, optimizer.step(); on webgpu it ends with
``webtorch.webgpu.synchronize()`` (as a loop that reads ``loss.item()`` every step would), so each step's
work is really done inside its timing. Steps/s is the best of ``--repeat`` batches of ``--steps`` steps (on a
shared machine the best batch is the least disturbed one; compare ratios within one run, not absolute
figures across runs). On webgpu the counters of ``webtorch.webgpu.stats()`` over the timed steps are divided
by the step count: dispatches, submits, flushes, host fallbacks (and which primitives fell back) per step.
Prints a table and writes bench/results/training.json (``--quick``: a few steps, for smoke tests).
"""
import argparse
import json
import os
import platform
import time

import numpy as np

BACKENDS = [("webtorch-cpu", "webtorch", "cpu"), ("webtorch-webgpu", "webtorch", "webgpu"),
            ("torch-cpu", "torch", "cpu")]
STAT_KEYS = ("dispatches", "submits", "flushes", "host_fallbacks", "kernels_compiled", "nodes_fused")


def _lenet(lib):
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = lib.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)
    return Net()


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def _mlp_setup(lib, model, rng):
    x = rng.standard_normal((128, 784)).astype(np.float32)
    y = rng.integers(0, 10, 128)
    return x, y, lib.nn.functional.cross_entropy, lambda ps: lib.optim.Adam(ps, lr=1e-3)


def _lenet_setup(lib, model, rng):
    x = rng.standard_normal((16, 1, 32, 32)).astype(np.float32)
    y = rng.standard_normal((16, 10)).astype(np.float32)
    return x, y, lib.nn.MSELoss(), lambda ps: lib.optim.SGD(ps, lr=0.01)


MODELS = {
    "mlp": ("MLP 784-256-10, batch 128, cross_entropy, Adam", _mlp, _mlp_setup),
    "lenet": ("LeNet (tutorial net), batch 16x1x32x32, MSE, SGD", _lenet, _lenet_setup),
}


def _initial_state(make_model):
    """Initial weights as NumPy arrays, drawn once by PyTorch, so all three backends start equal."""
    import torch
    torch.manual_seed(0)
    return {k: v.detach().numpy().copy() for k, v in make_model(torch).state_dict().items()}


def _make_step(make_model, setup, state, lib_name, device):
    if lib_name == "torch":
        import torch as lib
    else:
        import webtorch as lib
    model = make_model(lib)
    model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    model = model.to(device)
    x, y, loss_fn, make_opt = setup(lib, model, np.random.default_rng(0))
    x, y = lib.tensor(x, device=device), lib.tensor(y, device=device)
    opt = make_opt(model.parameters())
    sync = lib.webgpu.synchronize if device == "webgpu" else (lambda: None)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        sync()
        return loss
    return step


def _time_round_robin(steps_by_label, steps, repeat, warmup, stats):
    """Best steps/s of each backend over ``repeat`` rounds; in each round every backend runs one batch of
    ``steps`` steps in turn, so a burst of load from other processes hits all of them alike. ``stats``
    (webtorch.webgpu.stats, or None) is reset after the warm-up, so its counters cover exactly the timed
    webgpu steps. Returns ({label: steps/s}, {label: last loss})."""
    for step in steps_by_label.values():
        for _ in range(warmup):
            step()
    if stats is not None:
        stats(reset=True)
    best = {label: float("inf") for label in steps_by_label}
    losses = {}
    for _ in range(repeat):
        for label, step in steps_by_label.items():
            t0 = time.perf_counter()
            for _ in range(steps):
                loss = step()
            best[label] = min(best[label], time.perf_counter() - t0)
            losses[label] = float(loss.item())
    return {label: steps / t for label, t in best.items()}, losses


def _per_step(stats, n):
    s = stats()
    out = {k: s[k] / n for k in STAT_KEYS}
    out["host_fallback_ops"] = sorted(s["host_fallback_ops"])
    return out


def _webgpu_adapter():
    import webtorch
    if not webtorch.webgpu.is_available():
        return None
    return webtorch.webgpu.stats()["adapter"]


def bench(model_names, steps, repeat, warmup):
    import webtorch
    adapter = _webgpu_adapter()
    labels = [label for label, _, device in BACKENDS if device != "webgpu" or adapter is not None]
    results = {}
    for key in model_names:
        title, make_model, setup = MODELS[key]
        state = _initial_state(make_model)
        steps_by_label = {label: _make_step(make_model, setup, state, lib_name, device)
                          for label, lib_name, device in BACKENDS if label in labels}
        stats = webtorch.webgpu.stats if adapter is not None else None
        sps, losses = _time_round_robin(steps_by_label, steps, repeat, warmup, stats)
        res = {"model": title,
               "steps_per_s": {label: sps.get(label) for label, _, _ in BACKENDS},
               "final_loss": {label: losses.get(label) for label, _, _ in BACKENDS},
               "webgpu_per_step": None if stats is None else _per_step(stats, steps * repeat)}
        res["ratios"] = {
            "webgpu/cpu": _ratio(sps.get("webtorch-webgpu"), sps["webtorch-cpu"]),
            "webgpu/torch": _ratio(sps.get("webtorch-webgpu"), sps["torch-cpu"]),
            "cpu/torch": _ratio(sps["webtorch-cpu"], sps["torch-cpu"]),
        }
        ref = losses["torch-cpu"]
        res["max_loss_deviation_from_torch"] = max(abs(v - ref) for v in losses.values())
        results[key] = res
    return results, adapter


def print_table(header, rows):
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))))


def write_json(path, payload):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(payload, f, indent=2)
    print(f"wrote {path}")


def _ratio(a, b):
    return None if a is None or b is None else a / b


def _fmt(v, spec):
    return "n/a" if v is None else format(v, spec)


def _print_tables(results, steps, repeat):
    print(f"\nTraining steps/s (best of {repeat} x {steps} steps; higher is better)")
    labels = [b[0] for b in BACKENDS]
    rows = []
    for key, r in results.items():
        sps, rat = r["steps_per_s"], r["ratios"]
        rows.append([key] + [_fmt(sps[k], ".2f") for k in labels]
                    + [_fmt(rat[k], ".3f") for k in ("webgpu/cpu", "webgpu/torch", "cpu/torch")])
    print_table(["model"] + labels + ["webgpu/cpu", "webgpu/torch", "cpu/torch"], rows)
    print("\nwebgpu per training step (steady state)")
    rows = []
    for key, r in results.items():
        p = r["webgpu_per_step"]
        if p is None:
            rows.append([key] + ["n/a"] * (len(STAT_KEYS) + 1))
            continue
        rows.append([key] + [f"{p[k]:.2f}" for k in STAT_KEYS] + [", ".join(p["host_fallback_ops"]) or "-"])
    print_table(["model", *STAT_KEYS, "fallback ops"], rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20, help="steps per timed batch")
    ap.add_argument("--repeat", type=int, default=3, help="timed batches (the best one counts)")
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first (pipeline compiles, pool fill)")
    ap.add_argument("--models", nargs="+", choices=sorted(MODELS), default=list(MODELS))
    ap.add_argument("--torch-threads", type=int, default=None,
                    help="PyTorch intra-op threads (default: PyTorch's own choice, recorded in the JSON)")
    ap.add_argument("--quick", action="store_true", help="2 steps, 1 batch, 1 warm-up step: a smoke run")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                                  "training.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.steps, args.repeat, args.warmup = 2, 1, 1
    import torch
    if args.torch_threads is not None:
        torch.set_num_threads(args.torch_threads)
    results, adapter = bench(args.models, args.steps, args.repeat, args.warmup)
    _print_tables(results, args.steps, args.repeat)
    out = {
        "benchmark": "training_steps_per_s",
        "settings": {"steps": args.steps, "repeat": args.repeat, "warmup": args.warmup, "quick": args.quick},
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "numpy": np.__version__, "torch": torch.__version__,
                    "torch_threads": torch.get_num_threads(), "cpus": os.cpu_count(),
                    "load_average_1min": os.getloadavg()[0], "webgpu_adapter": adapter},
        "models": results,
    }
    write_json(args.out, out)


if __name__ == "__main__":
    main()
