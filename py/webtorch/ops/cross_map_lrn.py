"""The legacy CrossMapLRN2d op (nn.CrossMapLRN2d), reproduced as PyTorch computes it. Its forward's running
window sum never drops channel 0, so channel c sums the squares over [c - p + 1, c + p - 1] plus channel 0
(p = (size - 1) // 2 + 1); its hand-written backward sums over [c - size + (size - 1) // 2, c + (size - 1) // 2],
so the backward is PyTorch's formula, not the derivative of the forward."""
from .._dtype import bool_, get_default_dtype, int64
from ..autograd.graph import Node, apply_op, recording
from ._core.inplace import check_castable
from .creation import arange


def _window_sum(t, before, after, with_first=False):
    """s[:, c] = sum of t[:, j] for j in [c - before, c + after] (clipped to the channels; with_first: and j = 0),
    as one matmul."""
    c = t.shape[1]
    i = arange(c, device=t.device).unsqueeze(0)
    j = arange(c, device=t.device).unsqueeze(1)
    band = (j >= i - before) & (j <= i + after)
    if with_first:
        band = band | (j == 0)
    band = band.to(t.dtype)
    return t.movedim(1, -1).matmul(band).movedim(-1, 1)


class CrossMapLRN2dBackward(Node):
    @staticmethod
    def forward(ctx, x, size, alpha, beta, k):
        pre_pad = int((size - 1) / 2 + 1)
        scale = _window_sum(x * x, pre_pad - 1, pre_pad - 1, with_first=True) * (alpha / size) + k
        out = x * scale.pow(-beta)
        if recording(ctx):
            ctx.save_for_backward(x, out)
            ctx.scale = scale
            ctx.args = (size, alpha, beta)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        size, alpha, beta = ctx.args
        scale = ctx.scale
        inverse_pre_pad = int(size - (size - 1) / 2)
        c = x.shape[1]
        if inverse_pre_pad > size - 1:  # size 1: PyTorch's padded buffer is too short for its own narrow
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({c}) exceeds dimension size ({c + size - 1}).")
        accum = _window_sum(g * out / scale, inverse_pre_pad, size - 1 - inverse_pre_pad)
        return scale.pow(-beta) * g - x * accum * (2 * alpha * beta / size)


def cross_map_lrn2d(input, size, alpha=1e-4, beta=0.75, k=1):
    if input.dim() != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
    if not input.dtype.is_floating_point:
        # PyTorch's legacy op works in buffers of input's dtype: the squares of a bool input are int64, the scale of
        # an integer one is float, and neither is written back into its buffer
        check_castable(int64 if input.dtype is bool_ else get_default_dtype(), input.dtype)
    return apply_op(CrossMapLRN2dBackward, input, size, alpha, beta, k)
