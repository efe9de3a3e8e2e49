"""im2col / col2im (F.unfold, F.fold) as conv_unfold.wgsl dispatches (unfold: an invocation per column and up
to _UNFOLD_CH kernel positions; fold: one summed element per invocation);
conv_unfold_gemm.py builds the convolutions of a CPU adapter on them, conv_kernels.py adds bias with
``add_channel_bias``."""
from ... import _dtype as D
from ..._geometry import numel
from ..window_geometry import out_size
from . import block_split
from .block_split import Out
from .handles import View
from .kernel_launch import float_kernel, grid256, pack, source, spatial3

_UNFOLD_CH = 32  # conv_unfold.wgsl's CH: kernel positions of one unfold column per invocation


def add_channel_bias(rec, y, bias):
    b = View(bias.st, (1, bias.shape[0]) + (1,) * (len(y.shape) - 2),
             (0, bias.strides[0]) + (0,) * (len(y.shape) - 2), bias.offset)
    return rec.ew("add", [y, b], D.float32, D.float32, y.shape)


# ---- F.unfold / F.fold ----------------------------------------------------------------------------
def _by_samples(rec, fn, h, out_shape, name):
    """Run F.unfold / F.fold in blocks of samples when a tensor it binds is past one binding (block_split.py);
    None when none is."""
    ins, outs = [(h, (0,))], [Out(out_shape, D.float32, (0,))]
    if not block_split.needed(ins, outs, rec.limits):
        return None
    return block_split.in_blocks(rec, fn, ins, outs, (h.shape[0],), name, "sample", "a smaller batch or image")


def im2col(rec, x, kernel, stride, padding, dilation):
    L = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    split = _by_samples(rec, lambda x: im2col(rec, x, kernel, stride, padding, dilation), x,
                        (x.shape[0], x.shape[1] * numel(kernel), numel(L)), "im2col")
    if split is not None:
        return split
    return float_kernel(rec, lambda x: unfold(rec, x, kernel, stride, padding, dilation), x)


def col2im(rec, cols, size, kernel, stride, padding, dilation):
    split = _by_samples(rec, lambda c: col2im(rec, c, size, kernel, stride, padding, dilation), cols,
                        (cols.shape[0], cols.shape[1] // numel(kernel)) + tuple(size), "col2im")
    if split is not None:
        return split
    return float_kernel(rec, lambda c: fold(rec, c, tuple(size), kernel, stride, padding, dilation), cols)


def unfold(rec, x, kernel, stride, padding, dilation, L=None):
    """im2col; ``L``: the columns' spatial grid when it is not the one x's size gives (see ``_fold``)."""
    N, C = x.shape[:2]
    if L is None:
        L = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(x.shape[2:], kernel, stride, padding, dilation))
    y = rec.new((N, C * numel(kernel), numel(L)), D.float32)
    return _unfold_dispatch(rec, x, y, C, x.shape[2:], kernel, L, stride, padding, dilation,
                            (x.strides[0], x.strides[1], 0, x.offset), spatial3(x.strides[2:], 0), False)


def fold(rec, cols, size, kernel, stride, padding, dilation, L=None):
    """col2im; ``L``: the columns' spatial grid when it is not the one ``size`` gives (a transposed
    convolution's output_padding adds input positions no column reaches)."""
    N = cols.shape[0]
    C = cols.shape[1] // numel(kernel)
    if L is None:
        L = tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(size, kernel, stride, padding, dilation))
    y = rec.new((N, C) + size, D.float32)
    return _unfold_dispatch(rec, cols, y, C, size, kernel, L, stride, padding, dilation,
                            (cols.strides[0], cols.strides[1], 0, cols.offset), (cols.strides[2], 0, 0),
                            True)


def _unfold_dispatch(rec, src, y, C, S, kernel, L, stride, padding, dilation, read, spatial, fold):
    total = y.numel
    chunks = 0
    if total and not fold:  # one work item per column and CH kernel positions (conv_unfold.wgsl)
        chunks = -(-numel(kernel) // _UNFOLD_CH)
        total = total // numel(kernel) * chunks
    if total:
        groups, width = grid256(total, rec.limits)
        words = ((total, C, width, chunks), spatial3(S, 1) + (0,), spatial3(kernel, 1) + (0,),
                 spatial3(L, 1) + (0,), spatial3(stride, 1) + (0,), spatial3(padding, 0) + (0,),
                 spatial3(dilation, 1) + (0,), read, tuple(spatial) + (0,))
        rec.record_kernel("conv_unfold", source("conv_unfold", FOLD=fold, CH=f"{_UNFOLD_CH}i"), pack(words),
                          groups, [src.st.buf, y.st.buf], [src.st.buf], [y.st.buf])
    return y
