"""softmax / log_softmax, their backward, layer_norm and its backward as WGSL row kernels (webgpu).

One row (the softmax dim, or the flattened normalized dims) is reduced by RT cooperating invocations of
a workgroup (webgpu-shaders/softmax_*.wgsl, layernorm_*.wgsl): short rows get few invocations each (many
rows per workgroup), long rows a whole workgroup. Everything is recorded lazily like any other kernel.
The weight and bias gradients of layer_norm are column sums: recorded as elementwise nodes feeding a
reduction, which the scheduler fuses into one kernel each.
"""
import struct

from ... import _dtype as D
from . import kernels
from .codegen import coalesce, grid
from .graph import View, contiguous_strides

_SOURCES = {}


def _record(be, name, source, params, groups, reads, outs):
    """Record a kernel whose bindings are the Views ``reads`` then the Views ``outs``, in order."""
    bufs = [v.st.buf for v in reads + outs]
    be._record_kernel(name, source, params, groups, bufs, [v.st.buf for v in reads], [v.st.buf for v in outs])


def _source(name, **spec):
    key = (name,) + tuple(sorted(spec.items()))
    s = _SOURCES.get(key)
    if s is None:
        s = _SOURCES[key] = kernels.specialize(name, **spec)
    return s


def _launch(rows, length):
    """(WG, RT, groups): RT invocations per row, a power of two giving each about 8 elements."""
    rt = 1
    while rt < 256 and rt * 8 < length:
        rt *= 2
    wg = max(64, rt)
    return wg, rt, grid(-(-rows // (wg // rt)))


def _rows_geometry(views, dim):
    """Row geometry of same-shaped views reduced along ``dim``: (rows, kept sizes as 4 words, per view
    (4 kept strides, dim stride)), or None when the kept dims do not coalesce into four."""
    shape = views[0].shape
    kept = [d for d in range(len(shape)) if d != dim]
    sizes, strides = coalesce(tuple(shape[d] for d in kept), [tuple(v.strides[d] for d in kept) for v in views])
    if len(sizes) > 4:
        return None
    pad = 4 - len(sizes)
    rows = 1
    for s in sizes:
        rows *= s
    return (rows, (1,) * pad + sizes,
            [((0,) * pad + st, v.strides[dim]) for v, st in zip(views, strides)])


def _f32(be, h):
    return h if h.dtype is D.float32 else be.cast(h, D.float32)


class SoftmaxNormKernels:
    """Mixin of WebGPUBackend: the "nn: fused softmax and layer norm" primitives of backends/base.py."""

    def softmax(self, h, dim, log, dtype):
        x = _f32(self, h)
        out = self._new(h.shape, D.float32)
        if out.numel:
            geo = _rows_geometry([x, out], dim)
            if geo is None:
                x = self.contiguous(x)
                geo = _rows_geometry([x, out], dim)
            rows, sizes, ((xst, xds), (yst, yds)) = geo
            length = h.shape[dim]
            wg, rt, groups = _launch(rows, length)
            params = struct.pack("<20I", rows, length, xds, yds, *sizes, *xst, *yst, x.offset, 0, 0, 0)
            _record(self, "softmax_forward", _source("softmax_forward", LOG=log, WG=f"{wg}u", RT=f"{rt}u"),
                           params, groups, [x], [out])
        return out if dtype is D.float32 else self.cast(out, dtype)

    def softmax_backward(self, g, y, dim, log, dtype):
        g, y = _f32(self, g), _f32(self, y)
        out = self._new(y.shape, D.float32)
        if out.numel:
            geo = _rows_geometry([g, y, out], dim)
            if geo is None:
                g, y = self.contiguous(g), self.contiguous(y)
                geo = _rows_geometry([g, y, out], dim)
            rows, sizes, ((gst, gds), (yst, yds), (ost, ods)) = geo
            length = y.shape[dim]
            wg, rt, groups = _launch(rows, length)
            params = struct.pack("<28I", rows, length, 0, 0, *sizes, *gst, *yst, *ost, gds, yds, ods, 0,
                                 g.offset, y.offset, 0, 0)
            _record(self, "softmax_backward", _source("softmax_backward", LOG=log, WG=f"{wg}u", RT=f"{rt}u"),
                           params, groups, [g, y], [out])
        return out if dtype is D.float32 else self.cast(out, dtype)

    def layer_norm(self, x, weight, bias, n, eps):
        dt = x.dtype
        x2, rows, cols = self._norm_rows(x, n)
        stat_shape = x.shape[:len(x.shape) - n] + (1,) * n
        y = self._new(x.shape, D.float32)
        mean, rstd = self._new(stat_shape, D.float32), self._new(stat_shape, D.float32)
        if rows and not cols:  # nothing normalized: statistics of an empty set
            mean, rstd = self.full(stat_shape, float("nan"), dt), self.full(stat_shape, float("nan"), dt)
            return self.cast(x, dt), mean, rstd
        if rows:
            w = self.contiguous(_f32(self, weight)) if weight is not None else x2
            b = self.contiguous(_f32(self, bias)) if bias is not None else x2
            wg, rt, groups = _launch(rows, cols)
            params = struct.pack("<8I", rows, cols, weight is not None, bias is not None, x2.offset, w.offset,
                                 b.offset, struct.unpack("<I", struct.pack("<f", eps))[0])
            _record(self, "layernorm_forward", _source("layernorm_forward", WG=f"{wg}u", RT=f"{rt}u"),
                           params, groups, [x2, w, b], [y, mean, rstd])
        if dt is not D.float32:
            return self.cast(y, dt), self.cast(mean, dt), self.cast(rstd, dt)
        return y, mean, rstd

    def layer_norm_backward(self, g, x, mean, rstd, weight, n, need):
        x2, rows, cols = self._norm_rows(x, n)
        g2, _, _ = self._norm_rows(g, n)
        mean2 = self.reshape_view(self.contiguous(_f32(self, mean)), (rows, 1))
        rstd2 = self.reshape_view(self.contiguous(_f32(self, rstd)), (rows, 1))
        gx = gw = gb = None
        if need[0]:
            gx = self._new(x.shape, D.float32)
            if rows and cols:
                w = self.contiguous(_f32(self, weight)) if weight is not None else x2
                wg, rt, groups = _launch(rows, cols)
                params = struct.pack("<8I", rows, cols, weight is not None, 0, g2.offset, x2.offset, w.offset, 0)
                _record(self, "layernorm_backward", _source("layernorm_backward", WG=f"{wg}u", RT=f"{rt}u"),
                               params, groups, [g2, x2, mean2, rstd2, w], [gx])
            if x.dtype is not D.float32:
                gx = self.cast(gx, x.dtype)
        wshape = x.shape[len(x.shape) - n:]
        if need[1] and weight is not None:
            xhat = self.elementwise("mul", [self.elementwise("sub", [x2, mean2], D.float32), rstd2], D.float32)
            gw = self.reduce("sum", self.elementwise("mul", [g2, xhat], D.float32), (0,), False, weight.dtype)
            gw = self.reshape_view(gw, wshape)
        if need[2]:
            gb = self.reshape_view(self.reduce("sum", g2, (0,), False, x.dtype), wshape)
        return gx, gw, gb

    def _norm_rows(self, h, n):
        """h as a float32 (rows, cols) view with contiguous rows (copied when it has to be), rows, cols."""
        cols = 1
        for s in h.shape[len(h.shape) - n:]:
            cols *= s
        rows = h.numel // cols if cols else 0
        h = _f32(self, h)
        v = self.reshape_view(h, (rows, cols)) if cols else None
        if v is None or (rows > 1 and v.strides[0] != cols) or (cols > 1 and v.strides[1] != 1):
            v = View(self.contiguous(h).st, (rows, cols), contiguous_strides((rows, cols)), 0)
        return v, rows, cols
