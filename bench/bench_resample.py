"""Milliseconds of interpolate and adaptive average pooling (separable_resample.py's tap gathers), forward and
forward + backward, on the cpu device (the backend WEBTORCH_CPU_BACKEND picks: numpy, or wasm through wasmtime) and
on webgpu, beside PyTorch's CPU.

    .venv/bin/python bench/bench_resample.py [--seconds 1] [--devices cpu webgpu] [--out PATH]

Shapes from training loops: a UNet/FPN-style bilinear 2x upsample, a nearest 2x upsample, adaptive_avg_pool2d with
even and with uneven windows. Each figure is the best of timed runs after a warm-up; a webgpu run covers recording,
one flush and the wait. Prints a table and writes bench/results/resample.json (or --out).
"""
import argparse
import os

import numpy as np

from _report import report
from bench_matmul import _time  # best-of timing with a warm-up run

# (name, input shape, call(F, x))
CASES = [("bilinear 2x", (16, 32, 32, 32), lambda F, x: F.interpolate(x, scale_factor=2, mode="bilinear")),
         ("nearest 2x", (16, 32, 32, 32), lambda F, x: F.interpolate(x, scale_factor=2)),
         ("adaptive_avg_pool2d 28->7", (16, 64, 28, 28), lambda F, x: F.adaptive_avg_pool2d(x, 7)),
         ("adaptive_avg_pool2d 13->6", (16, 64, 13, 13), lambda F, x: F.adaptive_avg_pool2d(x, 6))]


def bench(devices, seconds):
    import torch
    import webtorch
    rows = []
    for name, shape, call in CASES:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        row = {"case": f"{name} {shape}"}
        for dev in devices:
            sync = webtorch.webgpu.synchronize if dev == "webgpu" else (lambda: None)
            xw = webtorch.tensor(x, device=dev, requires_grad=True)
            gy = webtorch.ones_like(call(webtorch.nn.functional, xw))

            def forward():
                with webtorch.no_grad():
                    call(webtorch.nn.functional, xw)
                sync()

            def both():
                xw.grad = None
                call(webtorch.nn.functional, xw).backward(gy)
                sync()
            row[f"{dev}_fwd"] = _time(forward, seconds) * 1e3
            row[f"{dev}_fwdbwd"] = _time(both, seconds) * 1e3
        xt = torch.tensor(x, requires_grad=True)
        gt = torch.ones_like(call(torch.nn.functional, xt))

        def torch_both():
            xt.grad = None
            call(torch.nn.functional, xt).backward(gt)
        with torch.no_grad():
            row["torch_fwd"] = _time(lambda: call(torch.nn.functional, xt), seconds) * 1e3
        row["torch_fwdbwd"] = _time(torch_both, seconds) * 1e3
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--devices", nargs="+", default=["cpu", "webgpu"])
    ap.add_argument("--out", default=None, help="JSON path (default bench/results/resample.json)")
    args = ap.parse_args()
    rows = bench(args.devices, args.seconds)
    columns = [("case", "case", "s")] + [(f"{d}_{k}", f"{d} {k}", ".2f") for d in args.devices + ["torch"]
                                         for k in ("fwd", "fwdbwd")]
    backend = os.environ.get("WEBTORCH_CPU_BACKEND", "numpy")
    report("resample", rows, columns, title=f"interpolate / adaptive_avg_pool2d, ms (cpu backend: {backend})",
           path=args.out, unit="ms", seconds=args.seconds, cpu_backend=backend)


if __name__ == "__main__":
    main()
