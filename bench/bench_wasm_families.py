"""The wasm backend's kernel families (wasm-kernels/: conv, pooling, softmax/norms, fused optimizer updates, sort)
vs the NumPy backend, primitive by primitive, in one process (wasmtime in CPython, one thread; NumPy/OpenBLAS on
one thread).

    .venv/bin/python bench/bench_wasm_families.py [--seconds 1]

Shapes are the benchmark models' (bench_browser.py): LeNet-5 b32 convolutions and pooling, GPT 2x128 ctx 64 b16
attention softmax and layer norm, MLP 784-256-10 Adam, plus one larger 3x3 convolution. Each figure is the best
of timed calls of the backend primitive (handles already resident). Prints a table with wasm / numpy time ratios
(lower is better for wasm) and writes bench/results/wasm_families.json.
"""
import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from _report import report  # noqa: E402
from bench_matmul import _time  # noqa: E402

RNG = np.random.default_rng(0)


def _cases():
    """(name, make(backend) -> a callable running the primitive once) pairs."""
    from webtorch import _dtype as D

    def arr(*shape):
        return RNG.standard_normal(shape).astype(np.float32)

    def conv(name, n, cin, cout, size, k, p):
        x, w, b = arr(n, cin, size, size), arr(cout, cin, k, k), arr(cout)
        o = size + 2 * p - k + 1
        g = arr(n, cout, o, o)
        geo = ((1, 1), (p, p), (1, 1), 1)

        def fwd(be):
            hx, hw, hb = (be.from_numpy(a, True) for a in (x, w, b))
            return lambda: be.conv(hx, hw, hb, *geo)

        def bwd(be):
            hx, hw, hg = (be.from_numpy(a, True) for a in (x, w, g))
            return lambda: (be.conv_backward_input(hg, hw, x.shape, *geo),
                            be.conv_backward_weight(hg, hx, w.shape, *geo))
        return [(f"conv {name} fwd", fwd), (f"conv {name} bwd", bwd)]

    def pool(be):
        h = be.from_numpy(arr(32, 6, 28, 28), True)
        return lambda: be.max_pool(h, (2, 2), (2, 2), (0, 0), (1, 1), False)

    def pool_bwd(be):
        v, i = pool(be)()
        return lambda: be.scatter_plane(v, i, (28, 28), True)

    att = arr(16, 4, 64, 64)

    def softmax(be):
        h = be.from_numpy(att, True)
        return lambda: be.softmax(h, 3, False, D.float32)

    def softmax_bwd(be):
        y, g = be.softmax(be.from_numpy(att, True), 3, False, D.float32), be.from_numpy(att, True)
        return lambda: be.softmax_backward(g, y, 3, False, D.float32)

    hid = arr(16, 64, 128)

    def layer_norm(be):
        h, w, b = be.from_numpy(hid, True), be.from_numpy(arr(128), True), be.from_numpy(arr(128), True)
        return lambda: be.layer_norm(h, w, b, 1, 1e-5)

    def layer_norm_bwd(be):
        h, w, b = be.from_numpy(hid, True), be.from_numpy(arr(128), True), be.from_numpy(arr(128), True)
        _, mean, rstd = be.layer_norm(h, w, b, 1, 1e-5)
        return lambda: be.layer_norm_backward(h, h, mean, rstd, w, 1, (True, True, True))

    sizes = ((784, 256), (256,), (256, 10), (10,))

    def adam(be):
        ps, gs, ms, vs = ([be.from_numpy(np.abs(arr(*s)), True) for s in sizes] for _ in range(4))
        return lambda: be.adam_update(ps, gs, ms, vs, [None] * 4, [3.0] * 4, 1e-3, 0.9, 0.999, 1e-8, 0.0, False,
                                      False, False)

    def sort(be):
        h = be.from_numpy(arr(64, 2048), True)
        return lambda: be.sort(h, 1, False, True)

    return (conv("lenet1 b32 1->6 28x28 k5", 32, 1, 6, 28, 5, 2)
            + conv("lenet2 b32 6->16 14x14 k5", 32, 6, 16, 14, 5, 0) + conv("b16 16->32 32x32 k3", 16, 16, 32, 32, 3, 1)
            + [("max_pool 2x2 32x6x28x28", pool), ("max_pool backward (scatter_plane)", pool_bwd),
               ("softmax 16x4x64x64", softmax), ("softmax backward", softmax_bwd),
               ("layer_norm 16x64x128", layer_norm), ("layer_norm backward", layer_norm_bwd),
               ("adam_update MLP 784-256-10", adam), ("sort 64x2048", sort)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.0)
    args = ap.parse_args()
    from webtorch.backends.numpy import get_backend as numpy_backend
    from webtorch.backends.wasm import get_backend as wasm_backend
    wasm, npb = wasm_backend(), numpy_backend()
    rows = []
    for name, make in _cases():
        tw, tn = _time(make(wasm), args.seconds), _time(make(npb), args.seconds)
        rows.append({"primitive": name, "wasm_ms": tw * 1e3, "numpy_ms": tn * 1e3, "ratio": tw / tn})
    report("wasm_families", rows, [("primitive", "primitive", ""), ("wasm_ms", "wasm ms", ".3f"),
                                   ("numpy_ms", "numpy ms", ".3f"), ("ratio", "wasm/numpy", ".2f")],
           title="wasm-kernels families: wasm (wasmtime, 1 thread) vs NumPy backend (1 thread), best of runs",
           seconds=args.seconds)


if __name__ == "__main__":
    main()
