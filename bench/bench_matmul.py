"""fp32 matmul GFLOP/s on this machine: webgpu tiled kernel vs webgpu naive kernel vs NumPy vs PyTorch.

    .venv/bin/python bench/bench_matmul.py [--sizes 256 512 1024 2048] [--seconds 1.0]

Prints a table and writes bench/results/matmul.json. Each figure is the best of timed runs of square
n x n products; webgpu timings include one flush (one submit) of ``reps`` dispatches and the wait.
"""
import argparse
import json
import os
import platform
import time

import numpy as np


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
        for kernel in ("matmul_tiled", "matmul_naive"):
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
        print(f"{n:>6} {row['webgpu_tiled']:>14.2f} {row['webgpu_naive']:>14.2f} {row['numpy']:>10.2f} "
              f"{row['torch']:>10.2f}", flush=True)
    return rows, be.rt.description


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "matmul.json"))
    args = ap.parse_args()
    print(f"{'n':>6} {'webgpu tiled':>14} {'webgpu naive':>14} {'numpy':>10} {'torch':>10}   (GFLOP/s)")
    rows, adapter = bench(args.sizes, args.seconds)
    import torch
    result = {"adapter": adapter, "machine": platform.processor() or platform.machine(),
              "cpu_count": os.cpu_count(), "torch_threads": torch.get_num_threads(), "unit": "GFLOP/s",
              "rows": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(f"adapter: {adapter}; written {args.out}")


if __name__ == "__main__":
    main()
