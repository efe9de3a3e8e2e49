"""The convolution GEMMs on a CPU adapter (SwiftShader, lavapipe): im2col + matmul_register.wgsl.

conv_igemm.wgsl stages its gathered operands in workgroup memory behind barriers, which on an adapter that
runs shaders on the CPU costs more than the arithmetic (the digits CNN's step: 234 ms of its 330 in
conv_igemm on SwiftShader). There the three convolution primitives instead materialize the columns with
conv_unfold.wgsl (F.unfold's kernel: one gathered element per invocation, no barriers) and multiply with the
backend's matmul (matmul_register.wgsl on such an adapter), per sample and channel group:

    conv                  y[n, g]   = W[g] (mg x cg K)   @ cols(x)[n, g] (cg K x L)
    conv_backward_input   dx        = col2im(W[g]^T @ dy[n, g])
    conv_backward_weight  dW[g]     = sum over n of dy[n, g] @ cols(x)[n, g]^T

with K the kernel's positions and L the output's. Bias (and a following activation) join the product's
store through the planner's epilogue fusion, as for Linear.
"""
from ... import _dtype as D
from ..._geometry import contiguous_strides, numel
from . import matmul_kernels, reduce_kernels, unfold_kernels
from .handles import View


def _matrix_view(h, shape):
    """h (contiguous from its offset) seen as ``shape``."""
    return View(h.st, shape, contiguous_strides(shape), h.offset)


def conv_unfold(rec, x, w, bias, O, stride, padding, dilation, groups):
    N = x.shape[0]
    cout, cg = w.shape[:2]
    Kk = w.shape[2:]
    cols = unfold_kernels.unfold(rec, x, Kk, stride, padding, dilation)  # (N, cin K, L)
    L = cols.shape[2]
    mg = cout // groups
    wm = _matrix_view(w, (1, groups, mg, cg * numel(Kk)))
    y = matmul_kernels.matmul(rec, wm, _matrix_view(cols, (N, groups, cg * numel(Kk), L)))  # (N, groups, mg, L)
    y = _matrix_view(y, (N, cout) + O)
    return y if bias is None else unfold_kernels.add_channel_bias(rec, y, bias)


def conv_bi_unfold(rec, g, w, input_shape, stride, padding, dilation, groups):
    N, cout = g.shape[:2]
    cg = w.shape[1]
    Kk = w.shape[2:]
    mg = cout // groups
    L = numel(g.shape[2:])
    wm = _matrix_view(w, (1, groups, mg, cg * numel(Kk)))
    wt = View(wm.st, (1, groups, cg * numel(Kk), mg), (0,) + tuple(wm.strides[i] for i in (1, 3, 2)), wm.offset)
    dcols = matmul_kernels.matmul(rec, wt, _matrix_view(g, (N, groups, mg, L)))  # (N, groups, cg K, L)
    return unfold_kernels.fold(rec, _matrix_view(dcols, (N, groups * cg * numel(Kk), L)), tuple(input_shape[2:]), Kk,
                      stride, padding, dilation, tuple(g.shape[2:]))


def conv_bw_unfold(rec, g, x, weight_shape, stride, padding, dilation, groups):
    N, cout = g.shape[:2]
    cg = weight_shape[1]
    Kk = tuple(weight_shape[2:])
    mg = cout // groups
    cols = unfold_kernels.unfold(rec, x, Kk, stride, padding, dilation, tuple(g.shape[2:]))  # (N, cin K, L)
    L = cols.shape[2]
    ck = cg * numel(Kk)
    cm = _matrix_view(cols, (N, groups, ck, L))
    colsT = View(cm.st, (N, groups, L, ck), tuple(cm.strides[i] for i in (0, 1, 3, 2)), cm.offset)
    per_sample = matmul_kernels.matmul(rec, _matrix_view(g, (N, groups, mg, L)), colsT)
    dw = reduce_kernels.reduce(rec, "sum", per_sample, (0,), False, D.float32)  # (groups, mg, ck)
    return _matrix_view(dw, tuple(weight_shape))
