"""The indexing primitives (backends/contract.py) on the wasm backend: index, index_put_, gather, scatter_, nonzero,
flip (wasm-kernels/index.c), check_classes.

Every one turns its index handles into one int64 array of element offsets first (range-checked, negatives wrapped,
scaled by the indexed dims' strides: elementwise kernels), then one kernel moves the elements: ``take_<bytes>``
reads ``src[s + offs[t]]``, ``put_<bytes>`` / ``put_<op>_<dtype>`` write or combine into ``dst[d + offs[t]]``, over a
geometry whose indexed dims walk the offsets and whose other dims walk the handle's own strides. A bad index raises
IndexOutOfRange before anything is written.
"""
from ... import _dtype as D
from ... import _geometry as G
from ..._broadcast import broadcast_shapes
from ..base import IndexOutOfRange
from .context import int_range
from .copies import cast, check_writable, contiguous, copy_
from .creation import full
from .elementwise import elementwise
from .reduction import reduce
from .transfer import item
from .views import View

_ADD_KERNELS = frozenset((D.float32, D.float64, D.int64, D.int32, D.int16, D.int8, D.uint8, D.uint32, D.bool_))


def _i64(ctx, ix):
    return ix if ix.dtype is D.int64 else cast(ctx, ix, D.int64)


def _check(ctx, ix, size, dim, negative):
    """Raise IndexOutOfRange for the first index of ix (int64) outside [-size or 0, size)."""
    if not ix.numel:
        return
    bad = ctx.new((1,), D.int64)
    if ctx.call("check_range", ix.addr, ctx.geom(ix.shape, ix.strides), -size if negative else 0, size, bad.addr):
        raise IndexOutOfRange(item(ctx, bad), dim, size)


def _scaled(ctx, ix, size, stride, wrap):
    """The element offsets ix * stride (int64), negatives wrapped by size first."""
    if wrap:
        ix = elementwise(ctx, "remainder", [ix, size], D.int64) if size else ix
    return ix if stride == 1 else elementwise(ctx, "mul", [ix, stride], D.int64)


def _plan(ctx, h, indices):
    """(offsets, kernel shape, h's strides in it, the offsets' strides in it, result shape) of advanced indexing."""
    pos = [d for d, ix in enumerate(indices) if ix is not None]
    offs = None
    for k, d in enumerate(pos):
        ix = _i64(ctx, indices[d])
        _check(ctx, ix, h.shape[d], k, True)
        o = _scaled(ctx, ix, h.shape[d], h.strides[d], True)
        offs = o if offs is None else elementwise(ctx, "add", [offs, o], D.int64)
    bshape = broadcast_shapes(*(indices[d].shape for d in pos))
    if offs.shape != bshape or not G.is_contiguous(offs.shape, offs.strides):
        offs = contiguous(ctx, View(offs.st, bshape, G.expand_strides(offs.shape, offs.strides, bshape), offs.offset))
    rest = [d for d in range(len(h.shape)) if d not in pos]
    adjacent = pos == list(range(pos[0], pos[-1] + 1))
    pre = [d for d in rest if d < pos[0]] if adjacent else []
    post = [d for d in rest if d not in pre]
    nb = G.numel(bshape)
    kshape = tuple(h.shape[d] for d in pre) + (nb,) + tuple(h.shape[d] for d in post)
    hst = tuple(h.strides[d] for d in pre) + (0,) + tuple(h.strides[d] for d in post)
    ost = (0,) * len(pre) + (1,) + (0,) * len(post)
    result = tuple(h.shape[d] for d in pre) + bshape + tuple(h.shape[d] for d in post)
    return offs, kshape, hst, ost, result


def index(ctx, h, indices):
    offs, kshape, hst, ost, result = _plan(ctx, h, indices)
    out = ctx.new(result, h.dtype)
    if out.numel:
        ctx.call(f"take_{h.dtype.itemsize}", out.addr, h.addr, offs.addr,
                 ctx.geom(kshape, G.contiguous_strides(kshape), hst, ost))
    return out


def _values(ctx, values, dtype, kshape, result):
    """(address, strides over kshape) of values broadcast to the indexed shape (a scalar: stride 0)."""
    if not isinstance(values, View):
        return ctx.scalar(values, dtype), (0,) * len(kshape)
    if values.dtype is not dtype:
        values = cast(ctx, values, dtype)
    v = contiguous(ctx, View(values.st, result, G.expand_strides(values.shape, values.strides, result),
                             values.offset))
    return v.addr, G.contiguous_strides(kshape)


def index_put_(ctx, h, indices, values, accumulate):
    check_writable(h)
    offs, kshape, hst, ost, result = _plan(ctx, h, indices)
    if not G.numel(kshape):
        return h
    if accumulate and h.dtype not in _ADD_KERNELS:  # float16/bfloat16: accumulate in float32, round once
        wide = cast(ctx, h, D.float32)
        index_put_(ctx, wide, indices, values if not isinstance(values, View) else cast(ctx, values, D.float32),
                   True)
        copy_(ctx, h, wide)
        return h
    vaddr, vst = _values(ctx, values, h.dtype, kshape, result)
    name = f"put_sum_{h.dtype.name}" if accumulate else f"put_{h.dtype.itemsize}"
    ctx.call(name, h.addr, vaddr, offs.addr, ctx.geom(kshape, hst, vst, ost))
    return h


def gather(ctx, h, dim, index):
    ix = _i64(ctx, index)
    _check(ctx, ix, h.shape[dim], dim, False)
    out = ctx.new(index.shape, h.dtype)
    if out.numel:
        offs = _scaled(ctx, ix, h.shape[dim], h.strides[dim], False)
        hst = tuple(0 if d == dim else s for d, s in enumerate(h.strides))
        ctx.call(f"take_{h.dtype.itemsize}", out.addr, h.addr, offs.addr,
                 ctx.geom(index.shape, out.strides, hst, offs.strides))
    return out


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return float("-inf") if reduce == "amax" else float("inf")
    lo, hi = int_range(dtype)
    return lo if reduce == "amax" else hi


def scatter_(ctx, h, dim, index, src, reduce, include_self):
    check_writable(h)
    ix = _i64(ctx, index)
    _check(ctx, ix, h.shape[dim], dim, False)
    if not ix.numel:
        return h
    if reduce is not None and h.dtype not in _ADD_KERNELS:  # float16/bfloat16: in float32, rounded once
        wide = cast(ctx, h, D.float32)
        scatter_(ctx, wide, dim, index, src if not isinstance(src, View) else cast(ctx, src, D.float32), reduce,
                 include_self)
        copy_(ctx, h, wide)
        return h
    offs = _scaled(ctx, ix, h.shape[dim], h.strides[dim], False)
    hst = tuple(0 if d == dim else s for d, s in enumerate(h.strides))
    shape = ix.shape
    if isinstance(src, View):
        if src.dtype is not h.dtype:
            src = cast(ctx, src, h.dtype)
        vaddr, vst = src.addr, src.strides
    else:
        vaddr, vst = ctx.scalar(src, h.dtype), (0,) * len(shape)
    g = ctx.geom(shape, hst, vst, offs.strides)
    size = h.dtype.itemsize
    if reduce is None:
        ctx.call(f"put_{size}", h.addr, vaddr, offs.addr, g)
        return h
    if not include_self:
        ctx.call(f"put_{size}", h.addr, ctx.scalar(_identity(reduce, h.dtype), h.dtype), offs.addr,
                 ctx.geom(shape, hst, (0,) * len(shape), offs.strides))
    ctx.call(f"put_{'sum' if reduce == 'mean' else reduce}_{h.dtype.name}", h.addr, vaddr, offs.addr,
             ctx.geom(shape, hst, vst, offs.strides))
    if reduce == "mean":
        count = full(ctx, h.shape, 1 if include_self else 0, D.int64)
        cst = tuple(0 if d == dim else s for d, s in enumerate(count.strides))
        coffs = _scaled(ctx, ix, h.shape[dim], count.strides[dim], False)
        ctx.call("put_sum_int64", count.addr, ctx.scalar(1, D.int64), coffs.addr,
                 ctx.geom(shape, cst, (0,) * len(shape), coffs.strides))
        divisor = elementwise(ctx, "maximum", [count, 1], D.int64)
        op = "div" if h.dtype.is_floating_point else "floor_divide"
        copy_(ctx, h, elementwise(ctx, op, [h, divisor], h.dtype))
    return h


def nonzero(ctx, h):
    m = cast(ctx, h, D.bool_)
    n = ctx.call("count_true", m.addr, m.numel)
    nd = len(h.shape)
    out = ctx.new((n, nd), D.int64)
    if n and nd:
        shape = ctx.new((nd,), D.int32)
        ctx.write_values(shape, list(h.shape))
        ctx.call("nonzero_bool", out.addr, m.addr, m.numel, nd, shape.addr)
    return out


def flip(ctx, h, dims):
    strides, offset = list(h.strides), h.offset
    for d in dims:
        if h.shape[d] > 1:
            offset += (h.shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
    return contiguous(ctx, View(h.st, h.shape, tuple(strides), offset))


def check_classes(ctx, h, n, ignore, op):
    if not h.numel:
        return h
    dt = h.dtype
    bad = elementwise(ctx, "logical_or", [elementwise(ctx, "lt", [h, 0], dt), elementwise(ctx, "ge", [h, n], dt)],
                      D.bool_)
    if ignore is not None:
        bad = elementwise(ctx, "logical_and", [bad, elementwise(ctx, "ne", [h, ignore], dt)], D.bool_)
    if item(ctx, reduce(ctx, "any", bad, (), False, D.bool_)):
        value = elementwise(ctx, "where", [bad, h, 0], dt)
        hi, lo = (item(ctx, reduce(ctx, r, value, (), False, dt)) for r in ("amax", "amin"))
        raise IndexError(f"Target {hi if hi >= n else lo} is out of bounds.")
    return h
