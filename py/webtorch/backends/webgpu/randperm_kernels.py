"""randperm on the webgpu device: a bitonic sort of (Philox key, index) pairs, all on the GPU.

Mixed into WebGPUBackend. ``randperm(n)`` draws P = next power of two >= n random int32 keys, then sorts
the pairs (key, index) -- ties by index, indices >= n (padding) last -- with webgpu-shaders/randperm_local.wgsl
(stages inside 2048-pair blocks in workgroup memory) and randperm_global.wgsl (one dispatch per longer
distance); the first n sorted indices are the permutation. 2 + O(log^2(P / 2048)) dispatches, all lazy, so
an epoch's shuffle joins the step's flush; no NumPy (Pyodide has none) and no host round trip.
"""
import struct

from ... import _dtype as D
from . import codegen, dtypes as T, wgsl_loader
from .graph import View
from .index_bounds import keep_bounds

BLOCK = 2048  # randperm_local.wgsl's MAX_BLOCK: pairs sorted per workgroup
_KEY_RANGE = (1 << 31) - 1
_SOURCES = {}


def _source(name, **values):
    key = (name, tuple(sorted(values.items())))
    s = _SOURCES.get(key)
    if s is None:
        s = _SOURCES[key] = wgsl_loader.specialize(name, **values) if values else wgsl_loader.template(name)
    return s


class WebGPURandpermMixin:
    """The ``randperm`` primitive of backends/base.py as WGSL dispatches."""

    def randperm(self, n, dtype, rng):
        T.check(dtype)
        if n <= 1:
            return self.cast(self.arange(0, n, 1, D.int64), dtype)
        p = 1 << (n - 1).bit_length()
        block = min(p, BLOCK)
        keys = self._random(2, (p,), 0, _KEY_RANGE, rng, D.int32)
        vals = self._new((p,), D.int64)
        kb, vb = keys.st.buf, vals.st.buf
        blocks = codegen.grid(p // block)

        def local(k_first, k_last, init):
            self._record_kernel("randperm_local", _source("randperm_local", INIT=init),
                                struct.pack("<4I", n, block, k_first, k_last), blocks, [kb, vb],
                                [kb] if init else [kb, vb], [kb, vb])

        local(2, block, True)
        k = block * 2
        while k <= p:
            j = k // 2
            while j >= block:
                self._record_kernel("randperm_global", _source("randperm_global"),
                                    struct.pack("<4I", n, p // 2, k, j), codegen.grid(-(-p // 512)), [kb, vb],
                                    [kb, vb], [kb, vb])
                j //= 2
            local(k, k, False)
            k *= 2
        first = View(vals.st, (n,), (1,), 0)
        out = self.contiguous(first) if dtype is D.int64 else self.cast(first, dtype)
        if dtype in (D.int32, D.int64):
            keep_bounds(out, (0, n - 1))  # a permutation of 0..n-1: index checks need no readback
        return out
