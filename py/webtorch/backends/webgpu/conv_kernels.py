"""WGSL kernels of the convolution family: conv and its two gradients as one implicit GEMM, im2col, col2im.

All three convolution primitives run ``conv_igemm.wgsl``: the same tiled GEMM whose operands are gathered
from the convolution's tensors through strides (see the kernel's header for the mapping), so no im2col
buffer is ever materialized and strided/sliced inputs need no copy. Spatial dims are padded to three
(size 1, stride 0), so 1-D, 2-D and 3-D convolutions share every pipeline. The helpers here (``source``,
``float_kernel``, ``spatial3``, ``grid256``, ``dense``, ``pack``) serve the family's other modules too.
"""
import struct

from ... import _dtype as D
from ..._geometry import numel
from ..window_geometry import out_size
from . import codegen, limits, wgsl_loader
from .conv_unfold_gemm import ConvUnfoldGemm
from .fallback import host_fallback
from .graph import View

TK = 32  # conv_igemm.wgsl's reduction step
SPLIT_TARGET = 64  # split the reduction until about this many workgroups are in flight
_sources = {}


def source(name, **spec):
    """Specialized source of webgpu-shaders/<name>.wgsl, cached per specialization."""
    key = (name,) + tuple(sorted(spec.items()))
    s = _sources.get(key)
    if s is None:
        s = _sources[key] = wgsl_loader.specialize(name, **spec) if spec else wgsl_loader.template(name)
    return s


def spatial3(values, fill):
    """Per-spatial-dim values padded in front to three dims with ``fill`` (size 1 / stride 0 dims)."""
    values = tuple(values)
    return (fill,) * (3 - len(values)) + values


def float_kernel(be, fn, *args):
    """Run ``fn(*args)`` in float32: float16 handles are cast up and the result back down; other dtypes
    (integer convolutions, which PyTorch rejects before reaching a backend) take the counted host fallback."""
    dts = {a.dtype for a in args if isinstance(a, View)}
    if dts <= {D.float32}:
        return fn(*args)
    if dts <= {D.float16}:
        r = fn(*[be.cast(a, D.float32) if isinstance(a, View) else a for a in args])
        return None if r is None else be.cast(r, D.float16)  # None: fn leaves it to the host fallback
    return None


def igemm_tile(M, NC):
    """(TM, TN4, WG_Y) of conv_igemm.wgsl for an M x NC product: the smallest tile covering few rows (a
    first layer's channels) or few columns (a weight gradient's kernel taps) so fewer lanes compute padding;
    the workgroup keeps at least TK invocations (they unravel the step's reduction indices)."""
    tm = 64 if M > 32 else (32 if M > 16 else (16 if M > 8 else 8))
    tn4 = 16 if NC > 32 else (8 if NC > 16 else 4)
    wg_y = 8 if tm >= 16 else max(TK // tn4, 4)
    return tm, tn4, wg_y


def grid256(total):
    """Workgroup counts of a 256-wide 1-D launch over ``total`` invocations, and the row width gx * 256."""
    groups = codegen.grid(-(-total // 256))
    return groups, groups[0] * 256


def dense(be, h, offset_ok=False):
    """h itself when C-contiguous (from offset 0 unless offset_ok), else a contiguous copy."""
    return h if h.is_contiguous() and (offset_ok or h.offset == 0) else be.contiguous(h)


def pack(rows):
    """Uniform parameter bytes: rows of four int32 (a ``array<vec4<i32>, N>`` block)."""
    return struct.pack(f"<{4 * len(rows)}i", *(v for row in rows for v in row))


class ConvKernels(ConvUnfoldGemm):
    """conv, conv_backward_input, conv_backward_weight, im2col, col2im as WGSL dispatches (on a CPU adapter the
    three GEMMs go through conv_unfold_gemm.py)."""

    def conv(self, x, w, bias, stride, padding, dilation, groups):
        r = float_kernel(self, lambda x, w, b: self._conv(x, w, b, stride, padding, dilation, groups),
                         x, w, bias)
        return host_fallback(self, "conv", x, w, bias, stride, padding, dilation, groups) if r is None else r

    def conv_backward_input(self, g, w, input_shape, stride, padding, dilation, groups):
        r = float_kernel(self, lambda g, w: self._conv_bi(
            g, w, tuple(input_shape), stride, padding, dilation, groups), g, w)
        if r is None:
            return host_fallback(self, "conv_backward_input", g, w, input_shape, stride, padding, dilation, groups)
        return r

    def conv_backward_weight(self, g, x, weight_shape, stride, padding, dilation, groups):
        r = float_kernel(self, lambda g, x: self._conv_bw(
            g, x, tuple(weight_shape), stride, padding, dilation, groups), g, x)
        if r is None:
            return host_fallback(self, "conv_backward_weight", g, x, weight_shape, stride, padding, dilation,
                                 groups)
        return r

    # ---- the three GEMMs ----------------------------------------------------------------------------
    def _conv(self, x, w, bias, stride, padding, dilation, groups):
        N, cin = x.shape[:2]
        cout = w.shape[0]
        S, Kk = x.shape[2:], w.shape[2:]
        O = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(S, Kk, stride, padding, dilation))
        cg, mg = cin // groups, cout // groups
        P, Kp = numel(O), numel(Kk)
        xs, ws = x.strides, w.strides
        if bias is not None and bias.strides != (1,):
            bias = self.contiguous(bias)
        if self.rt.cpu_adapter:
            return self._conv_unfold(x, dense(self, w, True), bias, O, stride, padding, dilation, groups)
        return self._igemm(
            (N, cout) + O, w, x, bias, groups, M=mg, NC=N * P, K=cg * Kp,
            col=(spatial3(O, 1), spatial3(stride, 0), tuple(-p for p in spatial3(padding, 0)), xs[0], cout * P),
            red=(spatial3(Kk, 1), spatial3(dilation, 0), (0, 0, 0), xs[1], ws[1], spatial3(ws[2:], 0)),
            b=(spatial3(xs[2:], 0), spatial3(S, 1), None, cg * xs[1], x.offset),
            a=(ws[0], mg * ws[0], w.offset), c=(P, mg * P))

    def _conv_bi(self, g, w, input_shape, stride, padding, dilation, groups):
        N, cout = g.shape[:2]
        cg = w.shape[1]
        S, Kk, O = input_shape[2:], w.shape[2:], g.shape[2:]
        mg = cout // groups
        Sp, Kp = numel(S), numel(Kk)
        gs, ws = g.strides, w.strides
        q = spatial3(stride, 1) if any(s != 1 for s in stride) else None
        if self.rt.cpu_adapter:
            return self._conv_bi_unfold(dense(self, g, True), dense(self, w, True), input_shape, stride, padding,
                                        dilation, groups)
        return self._igemm(
            tuple(input_shape), w, g, None, groups, M=cg, NC=N * Sp, K=mg * Kp,
            col=(spatial3(S, 1), (1, 1, 1), spatial3(padding, 0), gs[0], input_shape[1] * Sp),
            red=(spatial3(Kk, 1), tuple(-d for d in spatial3(dilation, 0)), (0, 0, 0), gs[1], ws[0],
                 spatial3(ws[2:], 0)),
            b=(spatial3(gs[2:], 0), spatial3(O, 1), q, mg * gs[1], g.offset),
            a=(ws[1], mg * ws[0], w.offset), c=(Sp, cg * Sp))

    def _conv_bw(self, g, x, weight_shape, stride, padding, dilation, groups):
        N, cout = g.shape[:2]
        cg = weight_shape[1]
        S, Kk, O = x.shape[2:], weight_shape[2:], g.shape[2:]
        mg = cout // groups
        Kp = numel(Kk)
        gs, xs = g.strides, x.strides
        if self.rt.cpu_adapter:
            return self._conv_bw_unfold(dense(self, g, True), x, weight_shape, stride, padding, dilation, groups)
        return self._igemm(
            tuple(weight_shape), g, x, None, groups, M=mg, NC=cg * Kp, K=N * numel(O),
            col=(spatial3(Kk, 1), spatial3(dilation, 0), (0, 0, 0), xs[1], Kp),
            red=(spatial3(O, 1), spatial3(stride, 0), tuple(-p for p in spatial3(padding, 0)), xs[0], gs[0],
                 spatial3(gs[2:], 0)),
            b=(spatial3(xs[2:], 0), spatial3(S, 1), None, cg * xs[1], x.offset),
            a=(gs[1], mg * gs[1], g.offset), c=(cg * Kp, mg * cg * Kp))

    def _igemm(self, shape, a_view, b_view, bias, groups, M, NC, K, col, red, b, a, c):
        """Record conv_igemm and return its (contiguous, fresh) result of ``shape``: per group an (M x NC)
        product over K, plus bias (contiguous, one per row of all groups) when given.
        col = (Lc, cmul, cadd, B outer stride, C outer stride); red = (J, kmul, kadd, B outer stride,
        A outer stride, A strides of j); b = (B strides, Lb, q or None, B group stride, B offset);
        a = (A row stride, A group stride, A offset); c = (C row stride, C group stride)."""
        if not numel(shape) or not K:  # nothing to compute, or an empty reduction: zeros (plus bias)
            out = self.full(shape, 0.0, D.float32)
            return out if bias is None or not numel(shape) else self._add_channel_bias(out, bias)
        tm, tn4, wg_y = igemm_tile(M, NC)
        row_tiles = -(-M // tm)
        tiles = row_tiles * -(-NC // (4 * tn4))
        steps = -(-K // TK)
        splits = 1
        if tiles * groups < SPLIT_TARGET and steps >= 8:
            splits = min(-(-SPLIT_TARGET // (tiles * groups)), steps // 4)
        kchunk = -(-steps // splits) * TK
        # one invocation loops about once per k (tile loads included): K past the loop budget (limits.py) splits
        kchunk = min(kchunk, max(TK, limits.loop_trips() // TK * TK))
        splits = -(-K // kchunk)
        gx = min(tiles, limits.workgroups())
        Lc, cmul, cadd, cb_outer, cc_outer = col
        J, kmul, kadd, kb_outer, ka_outer, aj = red
        bstr, Lb, q, b_gs, b_off = b
        a_rs, a_gs, a_off = a
        c_rs, c_gs = c
        total = numel(shape)
        target = self._new(((splits,) if splits > 1 else ()) + shape, D.float32)
        fuse_bias = bias is not None and splits == 1
        src = source("conv_igemm", TM=f"{tm}u", TN4=f"{tn4}u", WG_Y=f"{wg_y}u", TRANSPOSED=q is not None,
                     HAS_BIAS=fuse_bias)
        bias_buf = bias.st.buf if fuse_bias else a_view.st.buf
        reads = [a_view.st.buf, b_view.st.buf] + ([bias_buf] if fuse_bias else [])
        nz, w = groups * splits, limits.workgroups()
        for z0 in range(0, nz, w):  # several dispatches when groups * splits pass the limit
            words = ((M, NC, K, kchunk), (splits, gx, row_tiles, tiles), Lc + (cb_outer,), cmul + (cc_outer,),
                     cadd + (0,), J + (kb_outer,), kmul + (ka_outer,), kadd + (0,), aj + (0,), bstr + (0,),
                     Lb + (0,), (q or (1, 1, 1)) + (0,), (a_rs, a_gs, a_off, 0), (b_gs, b_off, z0, 0),
                     (c_rs, c_gs, total, bias.offset if fuse_bias else 0))
            self._record_kernel("conv_igemm", src, pack(words), (gx, -(-tiles // gx), min(w, nz - z0)),
                                [a_view.st.buf, b_view.st.buf, bias_buf, target.st.buf], reads, [target.st.buf],
                                epilogue_shape=shape if splits == 1 and nz <= w else None)
        if splits == 1:
            return target
        out = self.reduce("sum", target, (0,), False, D.float32)
        return out if bias is None else self._add_channel_bias(out, bias)

    def _add_channel_bias(self, y, bias):
        b = View(bias.st, (1, bias.shape[0]) + (1,) * (len(y.shape) - 2),
                 (0, bias.strides[0]) + (0,) * (len(y.shape) - 2), bias.offset)
        return self._ew("add", [y, b], D.float32, D.float32, y.shape)

    # ---- F.unfold / F.fold ----------------------------------------------------------------------------
    def im2col(self, x, kernel, stride, padding, dilation):
        r = float_kernel(self, lambda x: self._unfold(x, kernel, stride, padding, dilation), x)
        return host_fallback(self, "im2col", x, kernel, stride, padding, dilation) if r is None else r

    def col2im(self, cols, size, kernel, stride, padding, dilation):
        r = float_kernel(self, lambda c: self._fold(c, tuple(size), kernel, stride, padding, dilation),
                         cols)
        return host_fallback(self, "col2im", cols, size, kernel, stride, padding, dilation) if r is None else r

    def _unfold(self, x, kernel, stride, padding, dilation, L=None):
        """im2col; ``L``: the columns' spatial grid when it is not the one x's size gives (see ``_fold``)."""
        N, C = x.shape[:2]
        if L is None:
            L = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding,
                                                                          dilation))
        y = self._new((N, C * numel(kernel), numel(L)), D.float32)
        return self._unfold_dispatch(x, y, C, x.shape[2:], kernel, L, stride, padding, dilation,
                                     (x.strides[0], x.strides[1], 0, x.offset), spatial3(x.strides[2:], 0), False)

    def _fold(self, cols, size, kernel, stride, padding, dilation, L=None):
        """col2im; ``L``: the columns' spatial grid when it is not the one ``size`` gives (a transposed
        convolution's output_padding adds input positions no column reaches)."""
        N = cols.shape[0]
        C = cols.shape[1] // numel(kernel)
        if L is None:
            L = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(size, kernel, stride, padding, dilation))
        y = self._new((N, C) + size, D.float32)
        return self._unfold_dispatch(cols, y, C, size, kernel, L, stride, padding, dilation,
                                     (cols.strides[0], cols.strides[1], 0, cols.offset), (cols.strides[2], 0, 0),
                                     True)

    def _unfold_dispatch(self, src, y, C, S, kernel, L, stride, padding, dilation, read, spatial, fold):
        total = y.numel
        if total:
            groups, width = grid256(total)
            words = ((total, C, width, 0), spatial3(S, 1) + (0,), spatial3(kernel, 1) + (0,),
                     spatial3(L, 1) + (0,), spatial3(stride, 1) + (0,), spatial3(padding, 0) + (0,),
                     spatial3(dilation, 1) + (0,), read, tuple(spatial) + (0,))
            self._record_kernel("conv_unfold", source("conv_unfold", FOLD=fold), pack(words), groups,
                                [src.st.buf, y.st.buf], [src.st.buf], [y.st.buf])
        return y
