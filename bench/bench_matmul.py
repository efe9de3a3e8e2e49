"""fp32 matmul GFLOP/s on this machine: ``webtorch.matmul`` on webgpu vs NumPy vs PyTorch (CPU, and CUDA if present).

    .venv/bin/python bench/bench_matmul.py [--sizes 256 512 1024 2048] [--seconds 1.0]

Prints a table and writes bench/results/matmul.json. Each figure is the best of timed runs of one square
n x n product through the public API; a webgpu run is ``webtorch.matmul`` then ``webtorch.webgpu.synchronize()``
(one flush, one dispatch of the kernel the backend picks for the adapter, and the wait). ``maxerr``: the
largest difference from NumPy's product. Where PyTorch sees a CUDA GPU (the same GPU webgpu runs on, through
Vulkan), a "torch-cuda" column times ``torch.matmul`` there in full float32 (TF32 off, PyTorch's default) with
``torch.cuda.synchronize()``: the same device's native peer.
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
    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n), np.float32)
        b = rng.standard_normal((n, n), np.float32)
        wa, wb = webtorch.tensor(a, device="webgpu"), webtorch.tensor(b, device="webgpu")
        flops = 2.0 * n ** 3

        def run():
            out = webtorch.matmul(wa, wb)
            webtorch.webgpu.synchronize()
            return out  # alive through the flush: a product nobody holds would be dropped from the pending queue

        row = {"n": n, "maxerr": float(np.abs(run().cpu().numpy() - a @ b).max())}
        row["webgpu"] = flops / _time(run, seconds) / 1e9
        row["numpy"] = flops / _time(lambda: a @ b, seconds) / 1e9
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        row["torch"] = flops / _time(lambda: torch.matmul(ta, tb), seconds) / 1e9
        if torch.cuda.is_available():
            ca, cb = ta.cuda(), tb.cuda()

            def run_cuda():
                out = torch.matmul(ca, cb)
                torch.cuda.synchronize()
                return out
            row["torch-cuda"] = flops / _time(run_cuda, seconds) / 1e9
        rows.append(row)
        print(f"n={n} done", file=sys.stderr, flush=True)
    return rows, webtorch.webgpu.stats()["adapter"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--out", help="where to write the JSON (default bench/results/matmul.json)")
    args = ap.parse_args()
    rows, adapter = bench(args.sizes, args.seconds)
    columns = [("n", "n", "d"), ("webgpu", "webgpu", ".2f"), ("numpy", "numpy", ".2f"), ("torch", "torch", ".2f"),
               ("maxerr", "webgpu max err", ".1e")]
    if "torch-cuda" in rows[0]:
        columns.insert(4, ("torch-cuda", "torch-cuda", ".2f"))
    report("matmul", rows, columns, title=f"fp32 matmul, GFLOP/s (adapter: {adapter})", path=args.out,
           unit="GFLOP/s", adapter=adapter, seconds=args.seconds)


if __name__ == "__main__":
    main()
