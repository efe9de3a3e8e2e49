"""Scans, sorting and searching on the wasm backend (wasm-kernels/scan_sort.c): cumulative, sort, topk,
searchsorted. Integer and bool inputs run the int64 kernels, float16 and bfloat16 the float32 ones, on converted
copies; values come back converted to the input's dtype (exact)."""
from ... import _dtype as D
from ..._geometry import numel
from .copies import cast
from .operands import SUFFIX, any_instance, dense, lines, result

_SCANS = {"sum": 0, "prod": 1, "logsumexp": 2}


def cumulative(ctx, op, h, dim, dtype, reverse=False):
    kt = any_instance(dtype)
    x = dense(ctx, h if h.dtype is dtype else cast(ctx, h, dtype), kt)
    outer, L, inner = lines(h.shape, dim)
    if op in ("max", "min"):
        vals, idx = ctx.new(h.shape, kt), ctx.new(h.shape, D.int64)
        ctx.call("cumulative_extreme_" + SUFFIX[kt], x.addr, vals.addr, idx.addr, outer, L, inner, int(op == "max"),
                 int(reverse))
        return result(ctx, vals, dtype), idx
    if op not in _SCANS:
        raise ValueError(f"unknown cumulative op {op}")
    out = ctx.new(h.shape, kt)
    ctx.call("cumulative_" + SUFFIX[kt], x.addr, out.addr, outer, L, inner, _SCANS[op], int(reverse))
    return result(ctx, out, dtype)


def _sorted(ctx, h, k, dim, descending):
    """(values, int64 indices) of the first k along dim of h sorted stably."""
    kt = any_instance(h.dtype)
    x = dense(ctx, h, kt)
    outer, L, inner = lines(h.shape, dim)
    shape = tuple(h.shape[:dim]) + (k,) + tuple(h.shape[dim + 1:]) if h.shape else ()
    vals, idx = ctx.new(shape, kt), ctx.new(shape, D.int64)
    scratch = ctx.new((L * (2 * kt.itemsize + 8),), D.uint8)
    ctx.call("sort_" + SUFFIX[kt], x.addr, vals.addr, idx.addr, outer, L, inner, k, int(descending), scratch.addr)
    return result(ctx, vals, h.dtype), idx


def sort(ctx, h, dim, descending, stable):
    return _sorted(ctx, h, h.shape[dim] if h.shape else 1, dim, descending)


def topk(ctx, h, k, dim, largest, sorted):
    return _sorted(ctx, h, k if h.shape else 1, dim, largest)


def searchsorted(ctx, seq, values, right, out_int32):
    kt = D.float64 if (seq.dtype.is_floating_point or values.dtype.is_floating_point) else D.int64
    s, v = dense(ctx, seq, kt), dense(ctx, values, kt)
    n = seq.shape[-1]
    if len(seq.shape) == 1:
        rows, m, seq_rows = 1, values.numel, 1
    else:
        rows = numel(seq.shape[:-1])
        m = values.shape[-1]
        seq_rows = rows
    out = ctx.new(tuple(values.shape), D.int32 if out_int32 else D.int64)
    ctx.call("searchsorted_" + SUFFIX[kt], s.addr, v.addr, out.addr, rows, n, m, seq_rows, int(right),
             int(out_int32))
    return out
