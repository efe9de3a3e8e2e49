"""torch.mode / Tensor.mode: the most frequent value along a dim (the smallest among equally frequent ones)
and the index of its last occurrence, as PyTorch's CPU kernel returns them.

Composed from sort and scans, O(n log n) per slice: in the sorted slice each run of equal values counts up
from its start (a running maximum of the run starts), the first position whose count is the largest holds the
mode, and a max over positions of equal elements gives its last index in the input.
"""
from ..autograd.graph import Node, apply_op
from ._core import return_types
from .creation import arange
from ._core.dispatch import norm_dim
from .extrema import selection_backward
from .shape import cat


class ModeBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, keepdim):
        n = x.shape[dim]
        shape = [1] * x.dim()
        shape[dim] = n
        pos = arange(n, device=x.device).reshape(shape)
        s = x.sort(dim, stable=True).values
        starts = cat([s.narrow(dim, 0, 1) == s.narrow(dim, 0, 1), s.narrow(dim, 1, n - 1) != s.narrow(dim, 0, n - 1)],
                     dim)
        count = pos - pos.where(starts, 0).cummax(dim).values
        first = (count == count.amax(dim, keepdim=True)).to(pos.dtype).argmax(dim, keepdim=True)
        values = s.gather(dim, first)
        indices = pos.where(x == values, -1).amax(dim, keepdim=True)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        ctx.save_for_backward(indices)
        ctx.meta = (tuple(x.shape), dim, keepdim)
        return values.detach(), indices

    backward = staticmethod(selection_backward)


def mode(input, dim=-1, keepdim=False):
    if input.dim() == 0:
        norm_dim(dim, 0)
        return return_types.mode(input.clone(), input.new_zeros((), dtype=arange(0).dtype))
    dim = norm_dim(dim, input.dim())
    if input.shape[dim] == 0:
        raise IndexError(f"mode(): Expected reduction dim {dim} to have non-zero size.")
    return return_types.mode(*apply_op(ModeBackward0, input, dim, bool(keepdim)))


FUNCTIONS = {"mode": mode}
METHODS = {"mode": mode}
