"""Pooling on the wasm backend (wasm-kernels/pooling.c): max_pool, adaptive_max_pool, avg_pool (+ backward) and the
per-plane scatter / gather of max-pool backward and max_unpool. Integer and bool inputs run the int64 kernels,
float16 and bfloat16 the float32 ones, on converted copies (exact for max; sums as the NumPy backend)."""
from ... import _dtype as D
from ..._geometry import numel
from ..window_geometry import out_size
from .convolution import spatial_geometry
from .creation import full
from .operands import SUFFIX, address, any_instance, dense, first_out_of_range, float_instance, optional, result


def max_pool(ctx, x, kernel, stride, padding, dilation, ceil_mode):
    kt = any_instance(x.dtype)
    out = tuple(out_size(s, k, st, p, d, ceil_mode) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding,
                                                                               dilation))
    xc = dense(ctx, x, kt)
    shape = tuple(x.shape[:2]) + out
    vals, idx = ctx.new(shape, kt), ctx.new(shape, D.int64)
    ctx.call("max_pool_" + SUFFIX[kt], xc.addr, vals.addr, idx.addr, numel(x.shape[:2]),
             *spatial_geometry(x.shape[2:], kernel, stride, padding, dilation, out))
    return result(ctx, vals, x.dtype), idx


def adaptive_max_pool(ctx, x, output_size):
    kt = any_instance(x.dtype)
    lead = (1,) * (3 - len(output_size))
    xc = dense(ctx, x, kt)
    shape = tuple(x.shape[:2]) + tuple(output_size)
    vals, idx = ctx.new(shape, kt), ctx.new(shape, D.int64)
    ctx.call("adaptive_max_pool_" + SUFFIX[kt], xc.addr, vals.addr, idx.addr, numel(x.shape[:2]),
             *(lead + tuple(x.shape[2:])), *(lead + tuple(output_size)))
    return result(ctx, vals, x.dtype), idx


def _avg_geometry(size, kernel, stride, padding, out):
    """spatial_geometry without dilation (average pooling has none)."""
    words = spatial_geometry(size, kernel, stride, padding, (1,) * len(kernel), out)
    return words[:12] + words[15:]


def avg_pool(ctx, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kt = any_instance(x.dtype)
    out = tuple(out_size(s, k, st, p, 1, ceil_mode) for s, k, st, p in zip(x.shape[2:], kernel, stride, padding))
    xc = dense(ctx, x, kt)
    y = ctx.new(tuple(x.shape[:2]) + out, kt)
    ctx.call("avg_pool_" + SUFFIX[kt], xc.addr, y.addr, numel(x.shape[:2]),
             *_avg_geometry(x.shape[2:], kernel, stride, padding, out), int(count_include_pad),
             int(divisor_override or 0))
    return result(ctx, y, x.dtype)


def avg_pool_backward(ctx, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
    ct = float_instance(g.dtype)
    gc = dense(ctx, g, ct)
    gx = ctx.new(tuple(input_shape), ct)
    ctx.call("avg_pool_backward_" + SUFFIX[ct], gc.addr, gx.addr, numel(input_shape[:2]),
             *_avg_geometry(input_shape[2:], kernel, stride, padding, g.shape[2:]), int(count_include_pad),
             int(divisor_override or 0))
    return result(ctx, gx, g.dtype)


def scatter_plane(ctx, src, indices, plane_shape, accumulate):
    N, C = src.shape[:2]
    L = numel(plane_shape)
    idx = dense(ctx, indices, D.int64)
    bad = first_out_of_range(ctx, idx, 0, L)
    if bad is not None:
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(s) for s in plane_shape)}")
    shape = (N, C) + tuple(plane_shape)
    n = numel(indices.shape[2:])
    if accumulate:
        kt = any_instance(src.dtype)
        sc = dense(ctx, src, kt)
        out = ctx.new(shape, kt)
        ctx.call("scatter_plane_add_" + SUFFIX[kt], sc.addr, idx.addr, out.addr, N * C, n, L)
        return result(ctx, out, src.dtype)
    sc = dense(ctx, src)
    out = full(ctx, shape, 0, src.dtype)
    ctx.call("scatter_plane_assign", sc.addr, idx.addr, out.addr, N * C, n, L, src.dtype.itemsize)
    return out


def gather_plane(ctx, src, indices):
    N, C = src.shape[:2]
    L = numel(src.shape[2:])
    idx = dense(ctx, indices, D.int64)
    bad = first_out_of_range(ctx, idx, -L, L)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for axis 1 with size {L}")
    sc = dense(ctx, src)
    out = ctx.new(tuple(indices.shape), src.dtype)
    ctx.call("gather_plane", sc.addr, idx.addr, out.addr, N * C, numel(indices.shape[2:]), L, src.dtype.itemsize)
    return out


def resample_taps(ctx, x, dim, index, weight, divisor):
    ct = float_instance(x.dtype)
    O, K = index.shape
    xc, ix = dense(ctx, x, ct), dense(ctx, index, D.int32)
    wc, dc = optional(ctx, weight, ct), optional(ctx, divisor, ct)
    out = ctx.new(tuple(x.shape[:dim]) + (O,) + tuple(x.shape[dim + 1:]), ct)
    ctx.call("resample_taps_" + SUFFIX[ct], xc.addr, ix.addr, address(wc), address(dc), out.addr,
             numel(x.shape[:dim]), x.shape[dim], numel(x.shape[dim + 1:]), O, K)
    return result(ctx, out, x.dtype)
