"""Whole-tensor writes: zero_, fill_, copy_ (broadcast, dtype cast, across devices) and resize_.

Each forward writes straight into self's storage (their backward needs no old value of self) and goes
through inplace.write_inplace, so version counters, views and CopySlices behave as for every in-place op.
"""
from .._dtype import fit_scalar
from .._tensor import Tensor
from ..autograd.graph import Node
from .creation import tensor
from ._core.dispatch import new_size_arg, wrap, wrap_target
from ._core.inplace import (check_inplace_broadcast, check_inplace_target, check_overlap, overlaps_itself,
                           resize_storage, write_inplace, write_sequentially)


def _target(x, inplace):
    return x._data if inplace else x._be.empty(tuple(x.shape), x.dtype)


class FillBackward2(Node):
    """fill_ with a Python number."""
    @staticmethod
    def forward(ctx, x, value, inplace=False):
        h = _target(x, inplace)
        x._be.copy_(h, value)
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        return _zeros(g)


class ZeroBackward0(FillBackward2):
    """zero_ (fill_ with 0 under PyTorch's own node name)."""


class FillBackward3(Node):
    """fill_ with a 0-dim Tensor (its gradient is the sum of the incoming one)."""
    @staticmethod
    def forward(ctx, x, value, inplace=False):
        h = _target(x, inplace)
        if value._be is x._be:
            x._be.copy_(h, value._data)
        else:
            x._be.copy_(h, value.item())
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        return _zeros(g), g.sum()


def _zeros(g):
    return g.new_zeros(tuple(g.shape))


def zero_(self):
    return write_inplace(self, ZeroBackward0, 0)


def fill_(self, value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
        return write_inplace(self, FillBackward3, value)
    return write_inplace(self, FillBackward2, fit_scalar(_number(value), self.dtype, self.numel()))


def fill(input, value):
    """Out-of-place fill: a new tensor like input holding value everywhere."""
    from ..autograd.graph import apply_op
    if isinstance(value, Tensor):
        return apply_op(FillBackward3, input, value)
    return apply_op(FillBackward2, input, fit_scalar(_number(value), input.dtype, input.numel()))


def _number(value):
    if isinstance(value, (bool, int, float)):
        return value
    try:
        return value.item()  # NumPy scalars
    except AttributeError:
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}") from None


class CopyBackwards(Node):
    def name(self):
        return "torch::autograd::CopyBackwards"

    @staticmethod
    def forward(ctx, x, src, inplace=False):
        h = _target(x, inplace)
        sh = src._data if src._be is x._be else src._be.to_other(src._data, x._be)
        x._be.copy_(h, sh)
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        # the engine sums g to src's shape and casts it to src's dtype and device
        return _zeros(g), g


def copy_(self, src, non_blocking=False):
    if isinstance(src, (bool, int, float)):   # PyTorch takes a Python number as a 0-dim tensor of it
        src = tensor(src, device=self.device)
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'other' must be Tensor, not {type(src).__name__}")
    if tuple(src.shape) != tuple(self.shape):
        check_inplace_broadcast(self, src)
    if self._base is not None and overlaps_itself(self):
        # several view elements on one address: PyTorch's element loop leaves the last one in C order there, a
        # single parallel write whichever a GPU ran last (the H200 did not leave the last): one slice at a time
        check_inplace_target(self)
        check_overlap(self, (src,))
        return write_sequentially(copy_, self, (src,), {})
    return write_inplace(self, CopyBackwards, src, inputs=(src,))


def resize_(self, *sizes, memory_format=None):
    """Reshape self in place to ``sizes`` (contiguous); the storage grows when it is too small (new
    elements uninitialized), keeping the old elements in order."""
    shape = new_size_arg(sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    return resize_storage(self, shape)


METHODS = {"zero_": zero_, "fill_": fill_, "copy_": copy_, "resize_": resize_}
FUNCTIONS = {"fill": fill}
