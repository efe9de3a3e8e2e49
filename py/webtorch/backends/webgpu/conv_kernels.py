"""WGSL kernels of the convolutions: conv and its two gradients as one implicit GEMM (im2col, col2im:
unfold_kernels.py; a CPU adapter's GEMMs: conv_unfold_gemm.py).

All three convolution primitives run ``conv_igemm.wgsl``: the same tiled GEMM whose operands are gathered
from the convolution's tensors through strides (see the kernel's header for the mapping), so no im2col
buffer is ever materialized and strided/sliced inputs need no copy. Spatial dims are padded to three
(size 1, stride 0), so 1-D, 2-D and 3-D convolutions share every pipeline.
"""
from ... import _dtype as D
from ..._geometry import numel
from ..window_geometry import out_size
from . import block_split, conv_unfold_gemm, creation, reduce_kernels
from .block_split import Out
from .elementwise_kernels import contiguous
from .kernel_launch import dense, float_kernel, pack, source, spatial3
from .unfold_kernels import add_channel_bias

TK = 32  # conv_igemm.wgsl's reduction step
SPLIT_TARGET = 64  # split the reduction until about this many workgroups are in flight


def igemm_tile(M, NC):
    """(TM, TN4, WG_Y) of conv_igemm.wgsl for an M x NC product: the smallest tile covering few rows (a
    first layer's channels) or few columns (a weight gradient's kernel taps) so fewer lanes compute padding;
    the workgroup keeps at least TK invocations (they unravel the step's reduction indices)."""
    tm = 64 if M > 32 else (32 if M > 16 else (16 if M > 8 else 8))
    tn4 = 16 if NC > 32 else (8 if NC > 16 else 4)
    wg_y = 8 if tm >= 16 else max(TK // tn4, 4)
    return tm, tn4, wg_y


# ---- past one binding: blocks of samples (block_split.py) ------------------------------------------------------
_SAMPLE_HINT = "a smaller batch or image, or fewer channels"


def _by_samples(rec, fn, ins, outs, scratch, name):
    """Run a convolution primitive in blocks of samples (dim 0 of its per-sample operands) when a tensor it binds
    is past one binding; None when none is (the caller runs it whole). ``scratch``: shapes (N first) of what the
    CPU adapter's GEMMs materialize (conv_unfold_gemm.py: the columns), sized into the blocks there."""
    if rec.rt.cpu_adapter:
        outs = outs + [Out(s, D.float32, (0,)) for s in scratch]
    if not block_split.needed(ins, outs, rec.limits):
        return None
    n = next(v.shape[0] for v, dims in ins if dims == (0,))
    return block_split.in_blocks(rec, fn, ins, outs, (n,), name, "sample", _SAMPLE_HINT)


def _columns(n, c, kernel, positions):
    return (n, c * numel(kernel), numel(positions))


def conv(rec, x, w, bias, stride, padding, dilation, groups):
    O = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(x.shape[2:], w.shape[2:], stride, padding, dilation))
    split = _by_samples(rec, lambda x: conv(rec, x, w, bias, stride, padding, dilation, groups),
                        [(x, (0,))], [Out((x.shape[0], w.shape[0]) + O, D.float32, (0,))],
                        [_columns(x.shape[0], x.shape[1], w.shape[2:], O)], "conv")
    if split is not None:
        return split
    return float_kernel(rec, lambda x, w, b: _conv(rec, x, w, b, stride, padding, dilation, groups), x, w, bias)


def conv_backward_input(rec, g, w, input_shape, stride, padding, dilation, groups):
    split = _by_samples(rec, lambda g: conv_backward_input(rec, g, w, (g.shape[0],) + tuple(input_shape[1:]), stride,
                                                           padding, dilation, groups),
                        [(g, (0,))], [Out(input_shape, D.float32, (0,))],
                        [_columns(g.shape[0], input_shape[1], w.shape[2:], g.shape[2:])], "conv_backward_input")
    if split is not None:
        return split
    return float_kernel(rec, lambda g, w: _conv_bi(rec, g, w, tuple(input_shape), stride, padding, dilation,
                                                   groups), g, w)


def conv_backward_weight(rec, g, x, weight_shape, stride, padding, dilation, groups):
    n, cout = g.shape[:2]
    per_sample = (n, cout * numel(weight_shape[1:]))  # a CPU adapter's products before their sum over samples
    split = _by_samples(rec, lambda g, x: conv_backward_weight(rec, g, x, weight_shape, stride, padding, dilation,
                                                               groups),
                        [(g, (0,)), (x, (0,))], [Out(weight_shape, D.float32, (None,), "sum")],
                        [_columns(n, x.shape[1], weight_shape[2:], g.shape[2:]), per_sample], "conv_backward_weight")
    if split is not None:
        return split
    return float_kernel(rec, lambda g, x: _conv_bw(rec, g, x, tuple(weight_shape), stride, padding, dilation,
                                                   groups), g, x)


# ---- the three GEMMs ----------------------------------------------------------------------------
def _conv(rec, x, w, bias, stride, padding, dilation, groups):
    N, cin = x.shape[:2]
    cout = w.shape[0]
    S, Kk = x.shape[2:], w.shape[2:]
    O = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(S, Kk, stride, padding, dilation))
    cg, mg = cin // groups, cout // groups
    P, Kp = numel(O), numel(Kk)
    xs, ws = x.strides, w.strides
    if bias is not None and bias.strides != (1,):
        bias = contiguous(rec, bias)
    if rec.rt.cpu_adapter:
        return conv_unfold_gemm.conv_unfold(rec, x, dense(rec, w, True), bias, O, stride, padding, dilation, groups)
    return _igemm(rec, 
        (N, cout) + O, w, x, bias, groups, M=mg, NC=N * P, K=cg * Kp,
        col=(spatial3(O, 1), spatial3(stride, 0), tuple(-p for p in spatial3(padding, 0)), xs[0], cout * P),
        red=(spatial3(Kk, 1), spatial3(dilation, 0), (0, 0, 0), xs[1], ws[1], spatial3(ws[2:], 0)),
        b=(spatial3(xs[2:], 0), spatial3(S, 1), None, cg * xs[1], x.offset),
        a=(ws[0], mg * ws[0], w.offset), c=(P, mg * P))


def _conv_bi(rec, g, w, input_shape, stride, padding, dilation, groups):
    N, cout = g.shape[:2]
    cg = w.shape[1]
    S, Kk, O = input_shape[2:], w.shape[2:], g.shape[2:]
    mg = cout // groups
    Sp, Kp = numel(S), numel(Kk)
    gs, ws = g.strides, w.strides
    q = spatial3(stride, 1) if any(s != 1 for s in stride) else None
    if rec.rt.cpu_adapter:
        return conv_unfold_gemm.conv_bi_unfold(rec, dense(rec, g, True), dense(rec, w, True), input_shape, stride,
                                               padding,
                                    dilation, groups)
    return _igemm(rec, 
        tuple(input_shape), w, g, None, groups, M=cg, NC=N * Sp, K=mg * Kp,
        col=(spatial3(S, 1), (1, 1, 1), spatial3(padding, 0), gs[0], input_shape[1] * Sp),
        red=(spatial3(Kk, 1), tuple(-d for d in spatial3(dilation, 0)), (0, 0, 0), gs[1], ws[0],
             spatial3(ws[2:], 0)),
        b=(spatial3(gs[2:], 0), spatial3(O, 1), q, mg * gs[1], g.offset),
        a=(ws[1], mg * ws[0], w.offset), c=(Sp, cg * Sp))


def _conv_bw(rec, g, x, weight_shape, stride, padding, dilation, groups):
    N, cout = g.shape[:2]
    cg = weight_shape[1]
    S, Kk, O = x.shape[2:], weight_shape[2:], g.shape[2:]
    mg = cout // groups
    Kp = numel(Kk)
    gs, xs = g.strides, x.strides
    if rec.rt.cpu_adapter:
        return conv_unfold_gemm.conv_bw_unfold(rec, dense(rec, g, True), x, weight_shape, stride, padding, dilation,
                                               groups)
    return _igemm(rec, 
        tuple(weight_shape), g, x, None, groups, M=mg, NC=cg * Kp, K=N * numel(O),
        col=(spatial3(Kk, 1), spatial3(dilation, 0), (0, 0, 0), xs[1], Kp),
        red=(spatial3(O, 1), spatial3(stride, 0), tuple(-p for p in spatial3(padding, 0)), xs[0], gs[0],
             spatial3(gs[2:], 0)),
        b=(spatial3(xs[2:], 0), spatial3(S, 1), None, cg * xs[1], x.offset),
        a=(gs[1], mg * gs[1], g.offset), c=(cg * Kp, mg * cg * Kp))


def _igemm(rec, shape, a_view, b_view, bias, groups, M, NC, K, col, red, b, a, c):
    """Record conv_igemm and return its (contiguous, fresh) result of ``shape``: per group an (M x NC)
    product over K, plus bias (contiguous, one per row of all groups) when given.
    col = (Lc, cmul, cadd, B outer stride, C outer stride); red = (J, kmul, kadd, B outer stride,
    A outer stride, A strides of j); b = (B strides, Lb, q or None, B group stride, B offset);
    a = (A row stride, A group stride, A offset); c = (C row stride, C group stride)."""
    if not numel(shape) or not K:  # nothing to compute, or an empty reduction: zeros (plus bias)
        out = creation.full(rec, shape, 0.0, D.float32)
        return out if bias is None or not numel(shape) else add_channel_bias(rec, out, bias)
    tm, tn4, wg_y = igemm_tile(M, NC)
    row_tiles = -(-M // tm)
    tiles = row_tiles * -(-NC // (4 * tn4))
    steps = -(-K // TK)
    splits = 1
    if tiles * groups < SPLIT_TARGET and steps >= 8:  # the split partial products fit one binding together
        splits = max(1, min(-(-SPLIT_TARGET // (tiles * groups)), steps // 4,
                            rec.limits.binding_size() // (4 * numel(shape))))
    kchunk = -(-steps // splits) * TK
    # one invocation loops about once per k (tile loads included): K past the loop budget (limits.py) splits
    kchunk = min(kchunk, max(TK, rec.limits.loop_trips() // TK * TK))
    splits = -(-K // kchunk)
    gx = min(tiles, rec.limits.workgroups())
    Lc, cmul, cadd, cb_outer, cc_outer = col
    J, kmul, kadd, kb_outer, ka_outer, aj = red
    bstr, Lb, q, b_gs, b_off = b
    a_rs, a_gs, a_off = a
    c_rs, c_gs = c
    total = numel(shape)
    target = rec.new(((splits,) if splits > 1 else ()) + shape, D.float32)
    fuse_bias = bias is not None and splits == 1
    src = source("conv_igemm", TM=f"{tm}u", TN4=f"{tn4}u", WG_Y=f"{wg_y}u", TRANSPOSED=q is not None,
                 HAS_BIAS=fuse_bias)
    bias_buf = bias.st.buf if fuse_bias else a_view.st.buf
    reads = [a_view.st.buf, b_view.st.buf] + ([bias_buf] if fuse_bias else [])
    nz, w = groups * splits, rec.limits.workgroups()
    for z0 in range(0, nz, w):  # several dispatches when groups * splits pass the limit
        words = ((M, NC, K, kchunk), (splits, gx, row_tiles, tiles), Lc + (cb_outer,), cmul + (cc_outer,),
                 cadd + (0,), J + (kb_outer,), kmul + (ka_outer,), kadd + (0,), aj + (0,), bstr + (0,),
                 Lb + (0,), (q or (1, 1, 1)) + (0,), (a_rs, a_gs, a_off, 0), (b_gs, b_off, z0, 0),
                 (c_rs, c_gs, total, bias.offset if fuse_bias else 0))
        rec.record_kernel("conv_igemm", src, pack(words), (gx, -(-tiles // gx), min(w, nz - z0)),
                          [a_view.st.buf, b_view.st.buf, bias_buf, target.st.buf], reads, [target.st.buf],
                          epilogue_shape=shape if splits == 1 and nz <= w else None)
    if splits == 1:
        return target
    out = reduce_kernels.reduce(rec, "sum", target, (0,), False, D.float32)
    return out if bias is None else add_channel_bias(rec, out, bias)


