"""fp32 matmul GFLOP/s on this machine: webgpu kernels (tiled: GPUs; register: CPU adapters; naive) vs NumPy vs PyTorch.

    .venv/bin/python bench/bench_matmul.py [--sizes 256 512 1024 2048] [--seconds 1.0]

Prints a table and writes bench/results/matmul.json. Each figure is the best of timed runs of square
n x n products; webgpu timings include one flush (one submit) of ``reps`` dispatches and the wait.
"""
import argparse
import sys
import time

import numpy as np
from _report import report


def _time(fn, seconds):
    fn()  # warm-up (compiles pipelines, allocates)
    best, total, reps = float("inf"), 0.0, 0
    while total < seconds or reps < 3:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best, total, reps = min(best, dt), total + dt, reps + 1
        if dt > seconds:
            break
    return best


def bench(sizes, seconds):
    import torch
    import webtorch
    from webtorch.backends import webgpu
    be = webgpu.get_backend()
    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n), np.float32)
        b = rng.standard_normal((n, n), np.float32)
        wa, wb = webtorch.tensor(a, device="webgpu"), webtorch.tensor(b, device="webgpu")
        flops = 2.0 * n ** 3
        row = {"n": n}
        for kernel in ("matmul_tiled", "matmul_register", "matmul_naive"):
            def run(kernel=kernel):
                out = be._new((n, n), webtorch.float32)
                be._record_matmul(wa._data, wb._data, out, (), n, n, n, kernel=kernel)
                webtorch.webgpu.synchronize()
                return out
            out = run()
            err = float(np.abs(be.to_numpy(out) - a @ b).max())
            row[kernel.replace("matmul_", "webgpu_")] = flops / _time(run, seconds) / 1e9
            row[kernel.replace("matmul_", "maxerr_")] = err
        row["numpy"] = flops / _time(lambda: a @ b, seconds) / 1e9
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        row["torch"] = flops / _time(lambda: ta @ tb, seconds) / 1e9
        rows.append(row)
        print(f"n={n} done", file=sys.stderr, flush=True)
    return rows, be.rt.description


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/matmul.json)")
    args = ap.parse_args()
    rows, adapter = bench(args.sizes, args.seconds)
    columns = [("n", "n", "d"), ("webgpu_tiled", "webgpu tiled", ".2f"),
               ("webgpu_register", "webgpu register", ".2f"), ("webgpu_naive", "webgpu naive", ".2f"),
               ("numpy", "numpy", ".2f"), ("torch", "torch", ".2f")]
    report("matmul", rows, columns, title=f"fp32 matmul, GFLOP/s (adapter: {adapter})", path=args.out,
           unit="GFLOP/s", adapter=adapter, seconds=args.seconds)


if __name__ == "__main__":
    main()
