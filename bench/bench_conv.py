"""fp32 conv2d GFLOP/s on this machine: webgpu (implicit GEMM; im2col + GEMM) vs the NumPy backend vs PyTorch.

    .venv/bin/python bench/bench_conv.py [--seconds 2]
    .venv/bin/python bench/bench_conv.py --batch 16 --cin 16 --cout 32 --size 32 [--kernel 3] [--padding 1]

Times conv2d forward (with bias), and on webgpu also its input and weight gradients
(conv_backward_input / conv_backward_weight), each as best-of timed runs, through both of the webgpu
backend's paths whatever the adapter: conv_igemm.wgsl (what a GPU runs) and im2col + matmul_register.wgsl
(what a CPU adapter -- SwiftShader, lavapipe -- runs). A webgpu timing covers recording,
one flush (one submit) and the wait. Without shape arguments it runs the layers of the LeNet tutorial net
(batch 16) and of the digits CNN example (batch 64) and one larger 3x3 layer; with them, that one shape.
Prints a table and writes bench/results/conv.json.
"""
import argparse

import numpy as np

from _report import report
from bench_matmul import _time  # best-of timing with a warm-up run


# (name, batch, in channels, out channels, input size, kernel, padding)
SHAPES = [("lenet conv1", 16, 1, 6, 32, 5, 0), ("lenet conv2", 16, 6, 16, 14, 5, 0),
          ("digits conv1", 64, 1, 16, 8, 3, 1), ("digits conv2", 64, 16, 32, 4, 3, 1),
          ("3x3 16->32", 16, 16, 32, 32, 3, 1)]


def bench(n, cin, cout, size, seconds, kernel=3, padding=1, name=None):
    import torch
    import webtorch
    import webtorch.nn.functional as F
    from webtorch.backends import webgpu
    be = webgpu.get_backend()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, cin, size, size), np.float32)
    w = rng.standard_normal((cout, cin, kernel, kernel), np.float32)
    b = rng.standard_normal(cout, np.float32)
    osize = size + 2 * padding - kernel + 1
    flops = 2.0 * n * cout * osize * osize * cin * kernel * kernel
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=padding)
    shape = f"N={n} {cin}->{cout} {size}x{size} k{kernel} p{padding}"
    row = {"shape": f"{name}: {shape}" if name else shape, "gflop": flops / 1e9}

    wx, ww, wb = (webtorch.tensor(a, device="webgpu") for a in (x, w, b))
    gy = webtorch.tensor(rng.standard_normal(ref.shape, np.float32), device="webgpu")

    def gpu_forward():
        y = F.conv2d(wx, ww, wb, padding=padding)
        webtorch.webgpu.synchronize()
        return y

    def gpu_grad_input():
        r = be.conv_backward_input(gy._data, ww._data, x.shape, (1, 1), (padding, padding), (1, 1), 1)
        webtorch.webgpu.synchronize()
        return r

    def gpu_grad_weight():
        r = be.conv_backward_weight(gy._data, wx._data, w.shape, (1, 1), (padding, padding), (1, 1), 1)
        webtorch.webgpu.synchronize()
        return r
    saved = be.rt.cpu_adapter
    try:
        for path, cpu in (("igemm", False), ("unfold", True)):
            be.rt.cpu_adapter = cpu
            err = float(np.abs(gpu_forward().cpu().numpy() - ref.numpy()).max())
            row["maxerr_webgpu"] = max(row.get("maxerr_webgpu", 0.0), err)
            row[f"{path}_forward"] = flops / _time(gpu_forward, seconds) / 1e9
            row[f"{path}_grad_input"] = flops / _time(gpu_grad_input, seconds) / 1e9
            row[f"{path}_grad_weight"] = flops / _time(gpu_grad_weight, seconds) / 1e9
    finally:
        be.rt.cpu_adapter = saved

    cx, cw, cb = (webtorch.tensor(a) for a in (x, w, b))
    row["numpy_forward"] = flops / _time(lambda: F.conv2d(cx, cw, cb, padding=padding), seconds) / 1e9
    tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
    row["torch_forward"] = flops / _time(lambda: torch.nn.functional.conv2d(tx, tw, tb, padding=padding), seconds) / 1e9
    return row, be.rt.description


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int)
    ap.add_argument("--cin", type=int, default=16)
    ap.add_argument("--cout", type=int, default=32)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--kernel", type=int, default=3)
    ap.add_argument("--padding", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--out", default=None, help="JSON path (default bench/results/conv.json)")
    args = ap.parse_args()
    shapes = SHAPES if args.batch is None else [
        (None, args.batch, args.cin, args.cout, args.size, args.kernel, args.padding)]
    rows = []
    for name, n, cin, cout, size, kernel, padding in shapes:
        row, adapter = bench(n, cin, cout, size, args.seconds, kernel, padding, name)
        rows.append(row)
    columns = [("shape", "conv2d", "s"), ("igemm_forward", "igemm fwd", ".3f"),
               ("igemm_grad_input", "igemm dX", ".3f"), ("igemm_grad_weight", "igemm dW", ".3f"),
               ("unfold_forward", "im2col fwd", ".3f"), ("unfold_grad_input", "im2col dX", ".3f"),
               ("unfold_grad_weight", "im2col dW", ".3f"), ("numpy_forward", "numpy fwd", ".3f"), ("torch_forward", "torch fwd", ".3f"),
               ("maxerr_webgpu", "max err", ".1e")]
    report("conv", rows, columns, title=f"conv2d GFLOP/s (webgpu adapter: {adapter})", path=args.out,
           unit="GFLOP/s", adapter=adapter, seconds=args.seconds)


if __name__ == "__main__":
    main()
