"""Adam step time for a 1M-parameter model: webtorch-cpu vs PyTorch CPU, in one run.

    .venv/bin/python bench/bench_optim.py [--steps 50]

The model is four Linear-sized tensors (1000x800, 1000, 200x1000, 200: 1,001,200 parameters) with fixed
random gradients; each variant is timed per optimizer.step() (median of --steps after 5 warm-up steps).
PyTorch runs on one thread unless --threads says otherwise, as NumPy's ufuncs do; the machine's load
average is recorded beside the figures (timings on a shared machine are only comparable within one run).
Prints a table (ms/step and the ratio to PyTorch's foreach path) and writes bench/results/optim.json.
"""
import argparse
import statistics
import time

import numpy as np
import torch
from _report import report

import webtorch as wt

SHAPES = [(1000, 800), (1000,), (200, 1000), (200,)]


def _params(lib, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    ps = []
    for shape in SHAPES:
        p = lib.tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
        p.grad = lib.tensor(rng.standard_normal(shape).astype(np.float32) * 1e-2)
        ps.append(p)
    return ps


def _time_steps(opt, steps, warmup=5):
    for _ in range(warmup):
        opt.step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        opt.step()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--threads", type=int, default=1,
                    help="PyTorch intra-op threads (default 1: NumPy's ufuncs run on one thread)")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/optim.json)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    n = sum(int(np.prod(s)) for s in SHAPES)
    variants = [
        ("torch foreach=True", lambda: torch.optim.Adam(_params(torch), lr=1e-3, foreach=True)),
        ("torch foreach=False", lambda: torch.optim.Adam(_params(torch), lr=1e-3, foreach=False)),
        ("torch fused=True", lambda: torch.optim.Adam(_params(torch), lr=1e-3, fused=True)),
        ("webtorch-cpu default (fused primitive)", lambda: wt.optim.Adam(_params(wt), lr=1e-3)),
        ("webtorch-cpu foreach=False", lambda: wt.optim.Adam(_params(wt), lr=1e-3, foreach=False)),
    ]
    rows = []
    for name, make in variants:
        rows.append({"variant": name, "ms_per_step": _time_steps(make(), args.steps)})
    ref = rows[0]["ms_per_step"]
    for r in rows:
        r["ratio_to_torch_foreach"] = r["ms_per_step"] / ref
    report("optim", rows, [("variant", "variant", "s"), ("ms_per_step", "ms/step", ".3f"),
                           ("ratio_to_torch_foreach", "x torch foreach", ".2f")],
           title=f"Adam step, {n:,} parameters in {len(SHAPES)} tensors, median of {args.steps} steps "
                 f"(torch threads: {torch.get_num_threads()})",
           path=args.out, parameters=n, shapes=SHAPES, steps=args.steps)


if __name__ == "__main__":
    main()
