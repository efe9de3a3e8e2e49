"""The reduce, arg_reduce and require_all primitives (backends/contract.py) on the wasm backend (wasm-kernels/reduce.c).

Kernels reduce a contiguous (outer, red, inner) block: a contiguous input whose reduced dims are adjacent is read in
place; any other is permuted (kept dims first) into a contiguous copy, red last. float16/bfloat16 reduce in float32.
"""
from ... import _dtype as D
from ... import _geometry as G
from ..op_facts import VALUE_CHECKS
from .copies import cast, contiguous
from .elementwise import elementwise
from .transfer import item
from .views import View

_VIA_FLOAT32 = {D.float16: D.float32, D.bfloat16: D.float32}


def _blocks(ctx, h, dims):
    """(contiguous view, outer, red, inner) of h with ``dims`` (sorted, non-empty) as the red block."""
    shape = h.shape
    d0, d1 = dims[0], dims[-1]
    if d1 - d0 + 1 == len(dims) and G.is_contiguous(shape, h.strides):
        if len(dims) == len(shape):  # the whole tensor (the common full reduction)
            return h, 1, G.numel(shape), 1
        return h, G.numel(shape[:d0]), G.numel(shape[d0:d1 + 1]), G.numel(shape[d1 + 1:])
    kept = [d for d in range(len(shape)) if d not in dims]
    p = contiguous(ctx, View(h.st, *G.permute(h.shape, h.strides, h.offset, kept + list(dims))))
    return p, G.numel([shape[d] for d in kept]), G.numel([shape[d] for d in dims]), 1


def _kernel(ctx, op, ct):
    """The reduce kernel of op in ct (mean's is sum's: the host divides after)."""
    k = _KERNELS[(op, ct)] = ctx.rt.fn(f"reduce_{'sum' if op == 'mean' else op}_{ct.name}")
    return k


_KERNELS = {}  # (op, compute dtype) -> kernel callable: no name formatting per call


def reduce(ctx, op, h, dims, keepdim, dtype):
    if ctx.chain.ops:  # (backend.RUN_CHAIN_FIRST: no wrapper runs the pending chain for this primitive)
        ctx.chain.flush()
    nd = len(h.shape)
    if not dims:
        dims = tuple(range(nd))
    elif len(dims) > 1:
        dims = tuple(sorted(set(dims)))
    oshape = G.reduced(h.shape, dims, keepdim)
    ct = D.bool_ if op in ("all", "any") else _VIA_FLOAT32.get(dtype, dtype)
    x = h if h.st.dtype is ct else cast(ctx, h, ct)
    if not nd:
        x, outer, red, inner = contiguous(ctx, x), 1, 1, 1
    else:
        x, outer, red, inner = _blocks(ctx, x, dims)
    out = ctx.new(oshape, ct)
    kernel = _KERNELS.get((op, ct)) or _kernel(ctx, op, ct)
    kernel(out.addr, x.addr, outer, red, inner)
    if op == "mean":
        out = elementwise(ctx, "div", (out, float(red)), ct)
    return out if ct is dtype or op in ("all", "any") else cast(ctx, out, dtype)


def arg_reduce(ctx, op, h, dim, keepdim):
    x = h if h.dtype not in _VIA_FLOAT32 else cast(ctx, h, D.float32)
    if dim is None:
        x = contiguous(ctx, x) if not G.is_contiguous(x.shape, x.strides) else x
        outer, red, inner = 1, x.numel, 1
        oshape = (1,) * len(h.shape) if keepdim else ()
    elif not h.shape:
        x, outer, red, inner = contiguous(ctx, x), 1, 1, 1
        oshape = ()
    else:
        x, outer, red, inner = _blocks(ctx, x, (dim,))
        oshape = G.reduced(h.shape, (dim,), keepdim)
    out = ctx.new(oshape, D.int64)
    ctx.call(f"{op}_{x.dtype.name}", out.addr, x.addr, outer, red, inner)
    return out


def require_all(ctx, h, op):
    if h.numel and not item(ctx, reduce(ctx, "all", h, (), False, D.bool_)):
        raise RuntimeError(VALUE_CHECKS[op])
