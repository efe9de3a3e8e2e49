"""WGSL kernels of the pooling primitives: max/adaptive max pooling (pool_max.wgsl), average pooling and its
gradient (pool_avg.wgsl), and the per-plane scatter/gather of max-pool indices (pool_*_plane.wgsl)."""

from ... import _dtype as D
from ..._geometry import numel as prod
from ..window_geometry import out_size
from . import limits
from .conv_kernels import dense, grid256, pack, source, spatial3
from .fallback import host_fallback
from .index_bounds import fits_int32, index32

# dtype -> (WGSL type, is float) of the kernels that compute in the element type
_ELEMENT = {D.float32: ("f32", True), D.int32: ("i32", False)}


def plane_geometry(x):
    """Words (x strides of n, c, s0, s1), (x stride of s2, x offset) of an (N, C, *S) view."""
    st = spatial3(x.strides[2:], 0)
    return (x.strides[0], x.strides[1], st[0], st[1]), (st[2], x.offset, 0, 0)


def _window_fits(spans):
    """True when one invocation walks a window of these spans (one nested loop per dim) within its loop
    budget (limits.py); a larger window (a global pool of a large plane) runs on the host, counted in
    stats()["host_fallbacks"], rather than come back truncated."""
    trips = 1
    for k in spans:
        trips = trips * k + 1
    return trips <= limits.loop_trips()


class PoolKernels:
    """max_pool, adaptive_max_pool, avg_pool, avg_pool_backward, scatter_plane, gather_plane."""

    def _elementwise_dtype(self, x, scale=1):
        """The float32/int32 view to compute x's pooling on (float16 cast up; int64 narrowed when the host knows its
        values, and sums of ``scale`` of them, fit int32), or None for the host fallback."""
        if x.dtype is D.float16:
            return self.cast(x, D.float32)
        if x.dtype is D.int64:
            return self.cast(x, D.int32) if fits_int32(self, [(x, scale)]) else None
        return x if x.dtype in _ELEMENT else None

    def max_pool(self, x, kernel, stride, padding, dilation, ceil_mode):
        out = tuple(out_size(s, k, st, p, d, ceil_mode) for s, k, st, p, d in zip(x.shape[2:], kernel, stride,
                                                                                   padding, dilation))
        return self._max_pool(x, out, (kernel, stride, padding, dilation), "max_pool",
                              (kernel, stride, padding, dilation, ceil_mode))

    def adaptive_max_pool(self, x, output_size):
        return self._max_pool(x, tuple(output_size), None, "adaptive_max_pool", (output_size,))

    def _max_pool(self, x, out, window, name, args):
        xc = self._elementwise_dtype(x)
        spans = window[0] if window else [-(-s // max(o, 1)) + 1 for s, o in zip(x.shape[2:], out)]
        if xc is None or not _window_fits(spans):
            return host_fallback(self, name, x, *args)
        wgsl_t, is_float = _ELEMENT[xc.dtype]
        shape = x.shape[:2] + out
        vals = self._new(shape, xc.dtype)
        idx = self._new(shape, D.int32)
        total = vals.numel
        if total:
            groups, width = grid256(total)
            kernel, stride, padding, dilation = window or ((1,) * len(out),) * 2 + ((0,) * len(out), (1,) * len(out))
            strides, tail = plane_geometry(xc)
            params = pack([(total, x.shape[1], width, 0), spatial3(out, 1) + (0,), spatial3(x.shape[2:], 1) + (0,),
                           spatial3(kernel, 1) + (0,), spatial3(stride, 1) + (0,), spatial3(padding, 0) + (0,),
                           spatial3(dilation, 1) + (0,), strides, tail])
            src = source("pool_max", T=wgsl_t, IS_FLOAT=is_float, ADAPTIVE=window is None)
            self._record_kernel("pool_max", src, params, groups, [xc.st.buf, vals.st.buf, idx.st.buf],
                                [xc.st.buf], [vals.st.buf, idx.st.buf])
            idx.st.buf.bounds = (0, max(prod(x.shape[2:]) - 1, 0))  # indices point into the plane by construction
        return (vals if vals.dtype is x.dtype else self.cast(vals, x.dtype)), self.cast(idx, D.int64)

    def avg_pool(self, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        xc = self._elementwise_dtype(x, prod(kernel))
        if xc is None or not _window_fits(kernel):
            return host_fallback(self, "avg_pool", x, kernel, stride, padding, ceil_mode, count_include_pad,
                                 divisor_override)
        out = tuple(out_size(s, k, st, p, 1, ceil_mode) for s, k, st, p in zip(x.shape[2:], kernel, stride, padding))
        y = self._avg_pool(xc, x.shape[:2] + out, x.shape, out, kernel, stride, padding, count_include_pad,
                           divisor_override, False)
        return y if y.dtype is x.dtype else self.cast(y, x.dtype)

    def avg_pool_backward(self, g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                          divisor_override):
        gc = self._elementwise_dtype(g, prod(kernel))
        if gc is None or not _window_fits([-(-k // s) + 1 for k, s in zip(kernel, stride)]):
            return host_fallback(self, "avg_pool_backward", g, input_shape, kernel, stride, padding, ceil_mode,
                                 count_include_pad, divisor_override)
        y = self._avg_pool(gc, tuple(input_shape), tuple(input_shape), g.shape[2:], kernel, stride, padding,
                           count_include_pad, divisor_override, True)
        return y if y.dtype is g.dtype else self.cast(y, g.dtype)

    def _avg_pool(self, src, shape, in_shape, out, kernel, stride, padding, count_include_pad, divisor_override,
                  backward):
        y = self._new(shape, src.dtype)
        total = y.numel
        if total:
            wgsl_t = _ELEMENT[src.dtype][0]
            groups, width = grid256(total)
            strides, tail = plane_geometry(src)
            params = pack([(total, shape[1], width, 0), spatial3(out, 1) + (0,), spatial3(in_shape[2:], 1) + (0,),
                           spatial3(kernel, 1) + (0,), spatial3(stride, 1) + (0,), spatial3(padding, 0) + (0,),
                           strides, tail, (int(divisor_override or 0), int(bool(count_include_pad)), 0, 0)])
            self._record_kernel("pool_avg", source("pool_avg", T=wgsl_t, BACKWARD=backward),
                                params, groups, [src.st.buf, y.st.buf], [src.st.buf], [y.st.buf])
        return y

    def scatter_plane(self, src, indices, plane_shape, accumulate):
        plane = prod(plane_shape)
        src_c = self._elementwise_dtype(src, prod(src.shape[2:]) if accumulate else 1)
        if src_c is None:
            return host_fallback(self, "scatter_plane", src, indices, plane_shape, accumulate)
        known = indices.st.buf.bounds
        if known is not None and indices.is_whole() and (known[0] < 0 or known[1] >= plane):  # PyTorch's words
            raise RuntimeError(f"Found an invalid max index: {known[0] if known[0] < 0 else known[1]} (output "
                               f"volumes are of size {'x'.join(str(s) for s in plane_shape)}")
        indices, _ = self._check_index(indices, plane, 0, False, "max_unpool")
        out = self.full(src.shape[:2] + tuple(plane_shape), 0, src_c.dtype)
        total = src.numel
        if total:
            src_c, idx = dense(self, src_c), dense(self, index32(self, indices))
            groups, width = grid256(total)
            j = prod(src.shape[2:])
            params = pack([(total, j, plane, width)])
            self._record_kernel("pool_scatter_plane", source("pool_scatter_plane", IS_FLOAT=src_c.dtype is D.float32,
                                                             ACCUMULATE=bool(accumulate)),
                                params, groups, [src_c.st.buf, idx.st.buf, out.st.buf], [src_c.st.buf, idx.st.buf],
                                [out.st.buf])
        return out if out.dtype is src.dtype else self.cast(out, src.dtype)

    def gather_plane(self, src, indices):
        if src.dtype is D.float16:  # the kernel moves 32-bit words
            return self.cast(self.gather_plane(self.cast(src, D.float32), indices), D.float16)
        if src.dtype is D.int64:
            return host_fallback(self, "gather_plane", src, indices)
        plane = prod(src.shape[2:])
        indices, _ = self._check_index(indices, plane, 0, False, "gather_plane")
        out = self._new(indices.shape, src.dtype)
        total = out.numel
        if total:
            src_c, idx = dense(self, src, offset_ok=True), dense(self, index32(self, indices))
            groups, width = grid256(total)
            params = pack([(total, prod(indices.shape[2:]), plane, width), (src_c.offset, 0, 0, 0)])
            self._record_kernel("pool_gather_plane", source("pool_gather_plane"), params, groups,
                                [src_c.st.buf, idx.st.buf, out.st.buf], [src_c.st.buf, idx.st.buf], [out.st.buf])
        return out
