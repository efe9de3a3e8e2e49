"""WGSL kernels of the pooling primitives: max/adaptive max pooling (pool_max.wgsl), average pooling and its
gradient (pool_avg.wgsl), the per-plane scatter/gather of max-pool indices (pool_*_plane.wgsl), and separable
resampling by taps (resample_taps.wgsl: interpolate, adaptive average pooling)."""

from ... import _dtype as D
from ..._geometry import numel as prod
from ..window_geometry import out_size
from . import block_split, creation, index_kernels
from .block_split import Out
from .elementwise_kernels import cast
from .fallback import host_fallback
from .index_bounds import keep_bounds, known_bounds
from .index_kernels import fits_int32, index32
from .kernel_launch import dense, grid256, pack, source, spatial3

# dtype -> (WGSL type, is float) of the kernels that compute in the element type
_ELEMENT = {D.float32: ("f32", True), D.int32: ("i32", False)}


def plane_geometry(x):
    """Words (x strides of n, c, s0, s1), (x stride of s2, x offset) of an (N, C, *S) view."""
    st = spatial3(x.strides[2:], 0)
    return (x.strides[0], x.strides[1], st[0], st[1]), (st[2], x.offset, 0, 0)


def window_fits(spans, limits):
    """True when one invocation walks a window of these spans (one nested loop per dim) within its loop
    budget (``limits``, the device's: limits.py); a larger window (a global pool of a large plane) runs on the
    host (host_rules.py) rather than come back truncated."""
    trips = 1
    for k in spans:
        trips = trips * k + 1
    return trips <= limits.loop_trips()


#: the dtypes the pooling kernels serve (float16 through float32, int64 through int32 when its values allow)
SERVED = frozenset({D.float32, D.float16, D.int32, D.int64})


def _elementwise_dtype(rec, x, scale=1):
    """The float32/int32 view to compute x's pooling on (float16 cast up; int64 narrowed when the host knows its
    values, and sums of ``scale`` of them, fit int32), or None: the int64 values do not fit, the host computes."""
    if x.dtype is D.float16:
        return cast(rec, x, D.float32)
    if x.dtype is D.int64:
        return cast(rec, x, D.int32) if fits_int32(rec, [(x, scale)]) else None
    return x


_PLANES = (0, 1)  # the independent axes of every pooling primitive: samples and channels


def _by_planes(rec, fn, ins, outs, name):
    """Run a pooling primitive in blocks of (sample, channel) planes when a tensor it binds is past one binding
    (block_split.py); None when none is. ``ins``: the per-plane inputs (N, C, ...); ``outs``: (shape, dtype)."""
    ins = [(v, _PLANES) for v in ins]
    outs = [Out(shape, dt, _PLANES) for shape, dt in outs]
    if not block_split.needed(ins, outs, rec.limits):
        return None
    return block_split.in_blocks(rec, fn, ins, outs, ins[0][0].shape[:2], name, "plane",
                                 "a smaller batch or image, or fewer channels")


def max_pool(rec, x, kernel, stride, padding, dilation, ceil_mode):
    out = tuple(out_size(s, k, st, p, d, ceil_mode)
                for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    split = _by_planes(rec, lambda x: max_pool(rec, x, kernel, stride, padding, dilation, ceil_mode), [x],
                       [(x.shape[:2] + out, x.dtype), (x.shape[:2] + out, D.int64)], "max_pool")
    if split is not None:
        return split
    return _max_pool(rec, x, out, (kernel, stride, padding, dilation), "max_pool",
                     (kernel, stride, padding, dilation, ceil_mode))


def adaptive_max_pool(rec, x, output_size):
    shape = x.shape[:2] + tuple(output_size)
    split = _by_planes(rec, lambda x: adaptive_max_pool(rec, x, output_size), [x],
                       [(shape, x.dtype), (shape, D.int64)], "adaptive_max_pool")
    if split is not None:
        return split
    return _max_pool(rec, x, tuple(output_size), None, "adaptive_max_pool", (output_size,))


def _max_pool(rec, x, out, window, name, args):
    xc = _elementwise_dtype(rec, x)
    if xc is None:
        return host_fallback(rec, name, x, *args)
    wgsl_t, is_float = _ELEMENT[xc.dtype]
    shape = x.shape[:2] + out
    vals = rec.new(shape, xc.dtype)
    idx = rec.new(shape, D.int32)
    total = vals.numel
    if total:
        groups, width = grid256(total, rec.limits)
        kernel, stride, padding, dilation = window or ((1,) * len(out),) * 2 + ((0,) * len(out), (1,) * len(out))
        strides, tail = plane_geometry(xc)
        params = pack([(total, x.shape[1], width, 0), spatial3(out, 1) + (0,), spatial3(x.shape[2:], 1) + (0,),
                       spatial3(kernel, 1) + (0,), spatial3(stride, 1) + (0,), spatial3(padding, 0) + (0,),
                       spatial3(dilation, 1) + (0,), strides, tail])
        src = source("pool_max", T=wgsl_t, IS_FLOAT=is_float, ADAPTIVE=window is None)
        rec.record_kernel("pool_max", src, params, groups, [xc.st.buf, vals.st.buf, idx.st.buf],
                          [xc.st.buf], [vals.st.buf, idx.st.buf])
        keep_bounds(idx, (0, max(prod(x.shape[2:]) - 1, 0)))  # indices point into the plane by construction
    return (vals if vals.dtype is x.dtype else cast(rec, vals, x.dtype)), cast(rec, idx, D.int64)


def avg_pool(rec, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    xc = _elementwise_dtype(rec, x, prod(kernel))
    if xc is None:
        return host_fallback(rec, "avg_pool", x, kernel, stride, padding, ceil_mode, count_include_pad,
                             divisor_override)
    out = tuple(out_size(s, k, st, p, 1, ceil_mode) for s, k, st, p in zip(x.shape[2:], kernel, stride, padding))
    split = _by_planes(rec, lambda x: avg_pool(rec, x, kernel, stride, padding, ceil_mode, count_include_pad,
                                               divisor_override), [x], [(x.shape[:2] + out, x.dtype)], "avg_pool")
    if split is not None:
        return split
    y = _avg_pool(rec, xc, x.shape[:2] + out, x.shape, out, kernel, stride, padding, count_include_pad,
                  divisor_override, False)
    return y if y.dtype is x.dtype else cast(rec, y, x.dtype)


def avg_pool_backward(rec, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
    split = _by_planes(rec, lambda g: avg_pool_backward(rec, g, g.shape[:2] + tuple(input_shape[2:]), kernel, stride,
                                                        padding, ceil_mode, count_include_pad, divisor_override),
                       [g], [(tuple(input_shape), g.dtype)], "avg_pool_backward")
    if split is not None:
        return split
    gc = _elementwise_dtype(rec, g, prod(kernel))
    if gc is None:
        return host_fallback(rec, "avg_pool_backward", g, input_shape, kernel, stride, padding, ceil_mode,
                             count_include_pad, divisor_override)
    y = _avg_pool(rec, gc, tuple(input_shape), tuple(input_shape), g.shape[2:], kernel, stride, padding,
                  count_include_pad, divisor_override, True)
    return y if y.dtype is g.dtype else cast(rec, y, g.dtype)


def _avg_pool(rec, src, shape, in_shape, out, kernel, stride, padding, count_include_pad, divisor_override,
              backward):
    y = rec.new(shape, src.dtype)
    total = y.numel
    if total:
        wgsl_t = _ELEMENT[src.dtype][0]
        groups, width = grid256(total, rec.limits)
        strides, tail = plane_geometry(src)
        params = pack([(total, shape[1], width, 0), spatial3(out, 1) + (0,), spatial3(in_shape[2:], 1) + (0,),
                       spatial3(kernel, 1) + (0,), spatial3(stride, 1) + (0,), spatial3(padding, 0) + (0,),
                       strides, tail, (int(divisor_override or 0), int(bool(count_include_pad)), 0, 0)])
        rec.record_kernel("pool_avg", source("pool_avg", T=wgsl_t, BACKWARD=backward),
                          params, groups, [src.st.buf, y.st.buf], [src.st.buf], [y.st.buf])
    return y


def scatter_plane(rec, src, indices, plane_shape, accumulate):
    split = _by_planes(rec, lambda s, i: scatter_plane(rec, s, i, plane_shape, accumulate), [src, indices],
                       [(src.shape[:2] + tuple(plane_shape), src.dtype)], "scatter_plane")
    if split is not None:
        return split
    plane = prod(plane_shape)
    src_c = _elementwise_dtype(rec, src, prod(src.shape[2:]) if accumulate else 1)
    if src_c is None:
        return host_fallback(rec, "scatter_plane", src, indices, plane_shape, accumulate)
    known = known_bounds(indices.st.buf, indices.st.dtype)
    if known is not None and indices.is_whole() and (known[0] < 0 or known[1] >= plane):  # PyTorch's words
        raise RuntimeError(f"Found an invalid max index: {known[0] if known[0] < 0 else known[1]} (output "
                           f"volumes are of size {'x'.join(str(s) for s in plane_shape)}")
    indices, _ = index_kernels.check_index(rec, indices, plane, 0, False, "max_unpool")
    out = creation.full(rec, src.shape[:2] + tuple(plane_shape), 0, src_c.dtype)
    total = src.numel
    if total:
        src_c, idx = dense(rec, src_c), dense(rec, index32(rec, indices))
        groups, width = grid256(total, rec.limits)
        j = prod(src.shape[2:])
        params = pack([(total, j, plane, width)])
        rec.record_kernel("pool_scatter_plane", source("pool_scatter_plane", IS_FLOAT=src_c.dtype is D.float32,
                                                       ACCUMULATE=bool(accumulate)),
                          params, groups, [src_c.st.buf, idx.st.buf, out.st.buf], [src_c.st.buf, idx.st.buf],
                          [out.st.buf])
    return out if out.dtype is src.dtype else cast(rec, out, src.dtype)


def gather_plane(rec, src, indices):
    split = _by_planes(rec, lambda s, i: gather_plane(rec, s, i), [src, indices], [(indices.shape, src.dtype)],
                       "gather_plane")
    if split is not None:
        return split
    if src.dtype is D.float16:  # the kernel moves 32-bit words (int64 runs on the host: host_rules.py)
        return cast(rec, gather_plane(rec, cast(rec, src, D.float32), indices), D.float16)
    plane = prod(src.shape[2:])
    indices, _ = index_kernels.check_index(rec, indices, plane, 0, False, "gather_plane")
    out = rec.new(indices.shape, src.dtype)
    total = out.numel
    if total:
        src_c, idx = dense(rec, src, offset_ok=True), dense(rec, index32(rec, indices))
        groups, width = grid256(total, rec.limits)
        params = pack([(total, prod(indices.shape[2:]), plane, width), (src_c.offset, 0, 0, 0)])
        rec.record_kernel("pool_gather_plane", source("pool_gather_plane"), params, groups,
                          [src_c.st.buf, idx.st.buf, out.st.buf], [src_c.st.buf, idx.st.buf], [out.st.buf])
    return out


def resample_taps(rec, x, dim, index, weight, divisor):
    O, K = index.shape
    shape = tuple(x.shape[:dim]) + (O,) + tuple(x.shape[dim + 1:])
    split = _by_planes(rec, lambda s: resample_taps(rec, s, dim, index, weight, divisor), [x], [(shape, x.dtype)],
                       "resample_taps")
    if split is not None:
        return split
    if x.dtype is D.float16:
        up = [None if h is None else cast(rec, h, D.float32) for h in (x, weight, divisor)]
        return cast(rec, resample_taps(rec, up[0], dim, index, up[1], up[2]), D.float16)
    out = rec.new(shape, D.float32)
    total = out.numel
    if total:
        xc, idx = dense(rec, x, offset_ok=True), dense(rec, index)
        wc, dc = (None if h is None else dense(rec, h) for h in (weight, divisor))
        groups, width = grid256(total, rec.limits)
        params = pack([(total, prod(x.shape[dim + 1:]), O, width), (x.shape[dim], K, xc.offset, 0)])
        reads = [v.st.buf for v in (xc, idx, wc, dc) if v is not None]
        src = source("resample_taps", HAS_WEIGHT=wc is not None, HAS_DIVISOR=dc is not None)
        binds = [xc.st.buf, idx.st.buf, (wc or xc).st.buf, (dc or xc).st.buf, out.st.buf]   # absent: never read
        rec.record_kernel("resample_taps", src, params, groups, binds, reads, [out.st.buf])
    return out
