"""What int64 costs on the webgpu device (two 32-bit words per element) against int32, natively (wgpu-py).

    .venv/bin/python bench/bench_int64.py [--n 1000000] [--repeat 5] [--reps 10] [--quick]

Times, for tensors of n elements on device "webgpu": add of two tensors, a full sum, cumsum, and index_select
of n rows picked by an index tensor (of a float32 tensor by int32 vs int64 indices, and of an int32 vs an int64
tensor by int32 indices). Each figure is the best of ``repeat`` batches of ``reps`` ops recorded and then run
with one readback of one element (kernels and pipelines are built before timing). Prints a table with the ratio
int64 / int32 (lower is better) and writes bench/results/int64.json.
"""
import argparse
import os
import time

import numpy as np
from _report import report

import webtorch


def _per_op_ms(make, reps, repeat):
    """Best time per op (ms) of ``reps`` calls of make() recorded, then waited on by one small readback."""
    def batch():
        outs = [make() for _ in range(reps)]
        outs[-1].reshape(-1)[:1].tolist()
        return outs
    batch()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        batch()
        best = min(best, time.perf_counter() - t0)
    return best / reps * 1e3


def cases(n, rng):
    """(name, {dtype name: zero-argument op}) of every row."""
    dev = "webgpu"
    data = rng.integers(-1000, 1000, size=n)
    perm = rng.integers(0, n, size=n)
    t = {d: webtorch.tensor(data, dtype=getattr(webtorch, d), device=dev) for d in ("int32", "int64")}
    u = {d: webtorch.tensor(data[::-1].copy(), dtype=getattr(webtorch, d), device=dev) for d in ("int32", "int64")}
    idx = {d: webtorch.tensor(perm, dtype=getattr(webtorch, d), device=dev) for d in ("int32", "int64")}
    x = webtorch.tensor(rng.standard_normal(n).astype(np.float32), device=dev)
    return [
        ("add", {d: (lambda d=d: t[d] + u[d]) for d in t}),
        ("sum (dtype kept)", {d: (lambda d=d: t[d].sum(dtype=t[d].dtype)) for d in t}),
        ("cumsum (dtype kept)", {d: (lambda d=d: t[d].cumsum(0, dtype=t[d].dtype)) for d in t}),
        ("index_select float32 by int32/int64 indices", {d: (lambda d=d: x.index_select(0, idx[d])) for d in idx}),
        ("index_select int32/int64 data", {d: (lambda d=d: t[d].index_select(0, idx["int32"])) for d in t}),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="10,000 elements, 2 batches of 2 (a smoke run)")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/int64.json)")
    args = ap.parse_args()
    if args.quick:
        args.n, args.repeat, args.reps = 10_000, 2, 2
    rng = np.random.default_rng(0)
    rows = []
    for name, ops in cases(args.n, rng):
        ms = {d: _per_op_ms(fn, args.reps, args.repeat) for d, fn in ops.items()}
        rows.append({"op": name, "int32_ms": ms["int32"], "int64_ms": ms["int64"],
                     "ratio": ms["int64"] / ms["int32"]})
    rt = webtorch.backends.webgpu.get_backend().rt
    report("int64", rows, [("op", "op", ""), ("int32_ms", "int32 ms", ".3f"), ("int64_ms", "int64 ms", ".3f"),
                           ("ratio", "int64/int32", ".2f")],
           title=f"int64 vs int32 on webgpu ({rt.description}), {args.n:,} elements, ms per op",
           path=args.out, n=args.n, repeat=args.repeat, reps=args.reps, quick=args.quick, adapter=rt.description,
           unit="ms per op")


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
