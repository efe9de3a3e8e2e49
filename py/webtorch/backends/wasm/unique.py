"""The unique primitive on the wasm backend: a stable sort (scan_sort.sort), then one grouping pass
(wasm-kernels/unique.c). With ``dim``, the slices along dim are rows compared lexicographically."""
from ... import _dtype as D
from ... import _geometry as G
from .copies import cast, contiguous
from .indexing import index
from .scan_sort import sort
from .views import View

_KEY = {D.float32: D.float32, D.float64: D.float64}


def unique(ctx, h, sorted, return_inverse, return_counts, dim):
    if dim is None:
        return _unique_values(ctx, h)
    return _unique_slices(ctx, h, dim)


def _unique_values(ctx, h):
    n = h.numel
    c = h if G.is_contiguous(h.shape, h.strides) else contiguous(ctx, h)
    flat = View(c.st, (n,), (1,), c.offset)
    kt = _KEY.get(h.dtype, D.float32 if h.dtype.is_floating_point else D.int64)
    vals, idx = sort(ctx, flat if flat.dtype is kt else cast(ctx, flat, kt), 0, False, True)
    uvals, inverse, counts = ctx.new((n,), kt), ctx.new(h.shape, D.int64), ctx.new((n,), D.int64)
    k = ctx.call(f"unique_sorted_{kt.name}", vals.addr, idx.addr, n, uvals.addr, inverse.addr, counts.addr) if n else 0
    uvals = View(uvals.st, (k,), (1,), 0)
    return (uvals if kt is h.dtype else cast(ctx, uvals, h.dtype)), inverse, View(counts.st, (k,), (1,), 0)


def _unique_slices(ctx, h, dim):
    order = [dim] + [d for d in range(len(h.shape)) if d != dim]
    moved = contiguous(ctx, View(h.st, *G.permute(h.shape, h.strides, h.offset, order)))
    rows = h.shape[dim]
    cols = G.numel(moved.shape[1:])
    kt = D.float64 if h.dtype.is_floating_point else D.int64
    x = moved if moved.dtype is kt else cast(ctx, moved, kt)
    perm, tmp = ctx.new((rows,), D.int32), ctx.new((rows,), D.int32)
    inverse, counts, firsts = ctx.new((rows,), D.int64), ctx.new((rows,), D.int64), ctx.new((rows,), D.int64)
    k = 0
    if rows:
        ctx.call(f"sort_rows_{kt.name}", x.addr, rows, cols, perm.addr, tmp.addr)
        k = ctx.call(f"group_rows_{kt.name}", x.addr, rows, cols, perm.addr, inverse.addr, counts.addr, firsts.addr)
    picked = index(ctx, moved, [View(firsts.st, (k,), (1,), 0)])
    back = [0] * len(order)
    for i, d in enumerate(order):
        back[d] = i
    vals = contiguous(ctx, View(picked.st, *G.permute(picked.shape, picked.strides, picked.offset, back)))
    return vals, inverse, View(counts.st, (k,), (1,), 0)
