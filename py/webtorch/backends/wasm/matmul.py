"""The matmul primitive on the wasm backend: one gemm_batched_<t> call (wasm-kernels/matmul.c) over the broadcast
batch dims, operands read through their strides (a transposed weight is not copied); C's rows split across the
page's worker threads when it has them (threads.py). float16/bfloat16 multiply in float32 and round once (PyTorch's
CPU); narrower integers in int64 (the low bits are the same)."""
from ... import _dtype as D
from ... import _geometry as G
from ..._broadcast import broadcast_shapes
from ..strided_view import as_matrices, dropped
from . import threads
from .copies import cast

_KERNEL_TYPE = {D.float32: "f32", D.float64: "f64", D.int64: "i64", D.int32: "i32"}
_VIA = {D.float16: D.float32, D.bfloat16: D.float32, D.int8: D.int64, D.int16: D.int64, D.uint8: D.int64,
        D.uint32: D.int64}


def matmul(ctx, a, b):
    """np.matmul's rules: a 1-D operand is a row (a) or column (b) vector whose dim the result drops."""
    if ctx.chain.ops:  # (backend.RUN_CHAIN_FIRST: no wrapper runs the pending chain for this primitive)
        ctx.chain.flush()
    a, b, drop = as_matrices(a, b)
    return dropped(_matmul(ctx, a, b), drop)


def _matmul(ctx, a, b):
    dtype = a.dtype
    if dtype is D.bool_:
        raise RuntimeError("\"addmm_impl_cpu_\" not implemented for 'Bool'")
    ct = _VIA.get(dtype, dtype)
    if a.dtype is not ct:
        a = cast(ctx, a, ct)
    if b.dtype is not ct:
        b = cast(ctx, b, ct)
    n, k = a.shape[-2:]
    m = b.shape[-1]
    if b.shape[-2] != k:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {b.shape[-2]}x{m})")
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = ctx.new(batch + (n, m), ct)
    if out.numel:
        sa = G.expand_strides(a.shape[:-2], a.strides[:-2], batch)
        sb = G.expand_strides(b.shape[:-2], b.strides[:-2], batch)
        rows, sa_row = n, a.strides[-2]
        # b shared by every batch entry and a's batch dims walking in step with its rows: one taller GEMM whose
        # row stride is the merged dims' (a size-1 row dim's own stride means nothing)
        if batch and not any(sb):
            merged, (mst,) = G.coalesce(batch + (n,), [sa + (sa_row,)])
            if len(merged) == 1:
                rows, sa_row, batch, sa, sb = merged[0], mst[0], (), (), ()
        threads.gemm_batched(ctx, f"gemm_batched_{_KERNEL_TYPE[ct]}", rows, m, k, a.addr, sa_row, a.strides[-1],
                             b.addr, b.strides[-2], b.strides[-1], out.addr,
                             ctx.geom(batch, G.contiguous_strides(batch + (n, m))[:-2], sa, sb), ct.itemsize,
                             out.numel * k)
    return out if ct is dtype else cast(ctx, out, dtype)


