"""The cost of device "cpu"'s random stream in CPython (Philox4x32-10 in vectorised NumPy, backends/numpy/rng.py)
against NumPy's own PCG64 Generator drawing the same counts (the stream cpu used before it joined webgpu's).

    .venv/bin/python bench/bench_rng.py [--n 1000000] [--repeat 7] [--out PATH]

Times randn, rand, randint and randperm of n values through the backend primitives and through
numpy.random.Generator(PCG64); each figure is the best of ``repeat`` calls. Prints a table with the ratio
Philox / PCG64 (lower is better) and writes bench/results/rng.json.
"""
import argparse
import time

import numpy as np
from _report import report

from webtorch import _dtype as D
from webtorch.backends.numpy import rng as philox


def _best_ms(fn, repeat):
    fn()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def cases(n):
    """(name, Philox primitive call, PCG64 call) of every row."""
    s, g = philox.rng_new(0), np.random.Generator(np.random.PCG64(0))
    return [
        ("randn float32", lambda: philox.normal((n,), 0.0, 1.0, D.float32, s),
         lambda: g.standard_normal(n, dtype=np.float32)),
        ("rand float32", lambda: philox.uniform((n,), 0.0, 1.0, D.float32, s), lambda: g.random(n, dtype=np.float32)),
        ("randint [0, 10) int64", lambda: philox.randint((n,), 0, 10, D.int64, s), lambda: g.integers(0, 10, n)),
        ("randperm int64", lambda: philox.randperm(n, D.int64, s), lambda: g.permutation(n)),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/rng.json)")
    args = ap.parse_args()
    rows = []
    for name, ours, pcg in cases(args.n):
        a, b = _best_ms(ours, args.repeat), _best_ms(pcg, args.repeat)
        rows.append({"op": name, "philox_ms": a, "pcg64_ms": b, "ratio": a / b})
    report("rng", rows, [("op", "op", ""), ("philox_ms", "Philox (ms)", ".2f"), ("pcg64_ms", "PCG64 (ms)", ".2f"),
                         ("ratio", "Philox / PCG64", ".2f")],
           title=f"cpu random stream, n = {args.n}", path=args.out, n=args.n, repeat=args.repeat)


if __name__ == "__main__":
    main()
