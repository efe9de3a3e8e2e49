"""randperm on the webgpu device: a bitonic sort of (Philox key, index) pairs, all on the GPU.

A function of the device's Recorder (recorder.py), bound by WebGPUBackend (backend.py).
``randperm(n)`` draws P = next power of two >= n random int32 keys, then sorts
the pairs (key, index) -- ties by index, indices >= n (padding) last -- with webgpu-shaders/randperm_local.wgsl
(stages inside 2048-pair blocks in workgroup memory) and randperm_global.wgsl (one dispatch per longer
distance); the first n sorted indices are the permutation. 2 + O(log^2(P / 2048)) dispatches, all lazy, so
an epoch's shuffle joins the step's flush; no NumPy (Pyodide has none) and no host round trip.

Pairs past one binding (n past 2^25 at 128 MiB) are sorted in chunks: the largest power of two of pairs one
binding shows. Every stage runs once per chunk on windows of it (binding_windows.py; a chunk starts at a multiple
of 256 bytes); a distance of a chunk or more compares chunk A with chunk A + j (two windows of each array). The
directions come from each pair's place in the whole, so the order -- and so the permutation, equal to the cpu
device's for the same generator -- does not depend on the chunking.
"""
import struct

from ... import _dtype as D
from . import codegen, creation, dtypes as T, random_kernels
from .binding_windows import Window
from .elementwise_kernels import cast
from .handles import View
from .index_bounds import keep_bounds
from .kernel_launch import source

BLOCK = 2048  # randperm_local.wgsl's MAX_BLOCK: pairs sorted per workgroup
_KEY_RANGE = (1 << 31) - 1


def _chunk(p, limits):
    """Pairs sorted per window: all P when one binding shows them, else the largest power of two that one does."""
    return min(p, 1 << ((limits.binding_size() // 4).bit_length() - 1))


def randperm(rec, n, dtype, rng):
    T.check(dtype, rec.features)
    if n <= 1:
        return cast(rec, creation.arange(rec, 0, n, 1, D.int64), dtype)
    p = 1 << (n - 1).bit_length()
    chunk = _chunk(p, rec.limits)
    block = min(chunk, BLOCK)
    keys = random_kernels.draw(rec, 2, (p,), 0, _KEY_RANGE, rng, D.int32)
    vals = rec.new((p,), D.int32)
    kb, vb = keys.st.buf, vals.st.buf
    starts = range(0, p, chunk)  # the first pair of each chunk

    def bound(c0):
        """The keys and values of the chunk from pair c0: the buffers themselves when one chunk holds them all."""
        return [kb, vb] if chunk == p else [Window(kb, 4 * c0, 4 * chunk), Window(vb, 4 * c0, 4 * chunk)]

    def local(k_first, k_last, init):
        for c0 in starts:
            rec.record_kernel("randperm_local", source("randperm_local", INIT=init),
                              struct.pack("<8I", n, block, k_first, k_last, c0, 0, 0, 0),
                              codegen.grid(chunk // block, rec.limits), bound(c0), [kb] if init else [kb, vb],
                              [kb, vb])

    local(2, block, True)
    # randperm_global's second chunk when it compares within one: two small buffers (writable bindings never alias)
    spare = [rec.new((4,), D.int32).st.buf for _ in range(2)] if p > block else None
    k = block * 2
    while k <= p:
        j = k // 2
        while j >= block:
            if j >= chunk:  # partners lie in chunk c0 + j: one dispatch per pair of chunks
                pairs = [(c0, bound(c0) + bound(c0 + j), chunk, 1) for c0 in starts if not c0 & j]
            else:
                pairs = [(c0, bound(c0) + spare, chunk // 2, 0) for c0 in starts]
            for c0, binds, count, across in pairs:
                rec.record_kernel("randperm_global", source("randperm_global"),
                                  struct.pack("<8I", n, count, k, j, c0, across, 0, 0),
                                  codegen.grid(-(-count // 256), rec.limits), binds, [kb, vb], [kb, vb])
            j //= 2
        local(k, k, False)
        k *= 2
    first = View(vals.st, (n,), (1,), 0)
    out = cast(rec, first, dtype)
    if dtype in (D.int32, D.int64):
        keep_bounds(out, (0, n - 1))  # a permutation of 0..n-1: index checks need no readback
    return out
