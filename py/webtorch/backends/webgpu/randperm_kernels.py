"""randperm on the webgpu device: a bitonic sort of (Philox key, index) pairs, all on the GPU.

A function of the device's Recorder (recorder.py), bound by WebGPUBackend (backend.py).
``randperm(n)`` draws P = next power of two >= n random int32 keys, then sorts
the pairs (key, index) -- ties by index, indices >= n (padding) last -- with webgpu-shaders/randperm_local.wgsl
(stages inside 2048-pair blocks in workgroup memory) and randperm_global.wgsl (one dispatch per longer
distance); the first n sorted indices are the permutation. 2 + O(log^2(P / 2048)) dispatches, all lazy, so
an epoch's shuffle joins the step's flush; no NumPy (Pyodide has none) and no host round trip.
"""
import struct

from ... import _dtype as D
from . import codegen, creation, dtypes as T, random_kernels
from .elementwise_kernels import cast
from .handles import View
from .index_bounds import keep_bounds
from .kernel_launch import source

BLOCK = 2048  # randperm_local.wgsl's MAX_BLOCK: pairs sorted per workgroup
_KEY_RANGE = (1 << 31) - 1


def randperm(rec, n, dtype, rng):
    T.check(dtype, rec.features)
    if n <= 1:
        return cast(rec, creation.arange(rec, 0, n, 1, D.int64), dtype)
    p = 1 << (n - 1).bit_length()
    block = min(p, BLOCK)
    keys = random_kernels.draw(rec, 2, (p,), 0, _KEY_RANGE, rng, D.int32)
    vals = rec.new((p,), D.int32)
    kb, vb = keys.st.buf, vals.st.buf
    blocks = codegen.grid(p // block, rec.limits)

    def local(k_first, k_last, init):
        rec.record_kernel("randperm_local", source("randperm_local", INIT=init),
                          struct.pack("<4I", n, block, k_first, k_last), blocks, [kb, vb],
                          [kb] if init else [kb, vb], [kb, vb])

    local(2, block, True)
    k = block * 2
    while k <= p:
        j = k // 2
        while j >= block:
            rec.record_kernel("randperm_global", source("randperm_global"),
                              struct.pack("<4I", n, p // 2, k, j), codegen.grid(-(-p // 512), rec.limits), [kb, vb],
                              [kb, vb], [kb, vb])
            j //= 2
        local(k, k, False)
        k *= 2
    first = View(vals.st, (n,), (1,), 0)
    out = cast(rec, first, dtype)
    if dtype in (D.int32, D.int64):
        keep_bounds(out, (0, n - 1))  # a permutation of 0..n-1: index checks need no readback
    return out
