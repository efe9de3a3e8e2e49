"""Core overhead on CPU: webtorch (NumPy backend) vs PyTorch eager, in the same run.

    .venv/bin/python bench/bench_core.py [--repeat 7] [--steps 30]

Measures (1) per-op overhead in microseconds of small ops (add/mul of two 16-element tensors, with and
without requires_grad; a 16-element sum and relu, with and without; a backward through one add), and (2) one
training step of an MLP 784-256-10 (batch 128, ReLU, cross-entropy, Adam): forward, backward, step. Both
libraries use one BLAS/OpenMP thread unless OPENBLAS_NUM_THREADS / OMP_NUM_THREADS say otherwise. Prints a
table with ratios (webtorch / torch; lower is better) and writes bench/results/core.json. Each figure is the best of
``repeat`` timed batches.
"""
import argparse
import os
import timeit

# Both libraries on one BLAS/OpenMP thread unless the caller set these (they must be set before NumPy and torch
# load): on a shared machine extra threads wait on descheduled peers (128x128 matmul: 35 us -> 30 ms, median).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from _report import report


def _best_us(fn, number, repeat, timer=timeit.default_timer):
    fn()
    return min(timeit.repeat(fn, number=number, repeat=repeat, timer=timer)) / number * 1e6


def per_op(lib, repeat, timer=timeit.default_timer):
    """{op: us per call}; ``timer``: the wall clock, or the process's CPU time where the machine is shared."""
    a, b = lib.rand(16), lib.rand(16)
    ag = lib.rand(16, requires_grad=True)
    n = 20000
    res = {
        "add (no grad)": _best_us(lambda: a + b, n, repeat, timer),
        "add (requires_grad)": _best_us(lambda: ag + b, n, repeat, timer),
        "mul (no grad)": _best_us(lambda: a * b, n, repeat, timer),
        "mul (requires_grad)": _best_us(lambda: ag * b, n, repeat, timer),
        "sum (no grad)": _best_us(lambda: a.sum(), n, repeat, timer),
        "sum (requires_grad)": _best_us(lambda: ag.sum(), n, repeat, timer),
        "relu (no grad)": _best_us(lambda: a.relu(), n, repeat, timer),
        "relu (requires_grad)": _best_us(lambda: ag.relu(), n, repeat, timer),
    }

    def fwd_bwd():
        (ag + b).sum().backward()
    res["add+sum+backward"] = _best_us(fwd_bwd, n // 10, repeat, timer)
    return res


def _mlp(lib, seed):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(seed)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    x = lib.tensor(rng.standard_normal((128, 784)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 128))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def mlp_step_ms(lib, steps, repeat, timer=timeit.default_timer):
    step = _mlp(lib, 0)
    for _ in range(3):
        step()
    return min(timeit.repeat(step, number=steps, repeat=repeat, timer=timer)) / steps * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/core.json)")
    args = ap.parse_args()
    import torch
    import webtorch

    rows = []
    ours, theirs = per_op(webtorch, args.repeat), per_op(torch, args.repeat)
    for k in ours:
        rows.append({"metric": f"{k} [us/op]", "webtorch": ours[k], "torch": theirs[k],
                     "ratio": ours[k] / theirs[k]})
    w_ms, t_ms = mlp_step_ms(webtorch, args.steps, args.repeat), mlp_step_ms(torch, args.steps, args.repeat)
    rows.append({"metric": "MLP 784-256-10 b128 Adam step [ms]", "webtorch": w_ms, "torch": t_ms,
                 "ratio": w_ms / t_ms})

    report("core", rows, [("metric", "metric", "s"), ("webtorch", "webtorch", ".2f"), ("torch", "torch", ".2f"),
                          ("ratio", "ratio", ".2f")], path=args.out, repeat=args.repeat, steps=args.steps)


if __name__ == "__main__":
    main()
