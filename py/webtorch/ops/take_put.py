"""take and put: read and write a tensor's elements by flat (row-major) index.

take's backward is a put with accumulate, put's reads the written places back with take, so double backward
works. put_ writes straight into self's storage through inplace.write_inplace.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op
from ..backends.base import IndexOutOfRange
from ._core.dispatch import wrap, wrap_target
from .._dtype import scalar_type_name
from ._core.inplace import write_inplace
from .scatter_gather import to_device_of


def _flat(x):
    """x's elements as a 1-D handle (a view when the strides allow)."""
    be = x._be
    h = be.reshape_view(x._data, (x.numel(),))
    return h if h is not None else be.reshape_view(be.contiguous(x._data), (x.numel(),))


def _out_of_range(e, n):
    return IndexError(f"out of range: tried to access index {e.index} on a tensor of {n} elements.")


class TakeBackward0(Node):
    @staticmethod
    def forward(ctx, x, index):
        ctx.meta = (tuple(x.shape), index)
        be = x._be
        try:
            h = be.index(_flat(x), (be.reshape_view(be.contiguous(index._data), (index.numel(),)),))
        except IndexOutOfRange as e:
            raise _out_of_range(e, x.numel()) from None
        return wrap(be.reshape_view(h, tuple(index.shape)), x, index.shape)

    @staticmethod
    def backward(ctx, g):
        shape, index = ctx.meta
        return g.new_zeros(shape).put(index, g, accumulate=True), None


def _check_long(index, name):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype is not D.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}")


def take(input, index):
    _check_long(index, "take")
    return apply_op(TakeBackward0, input, to_device_of(index, input))


class PutBackward0(Node):
    @staticmethod
    def forward(ctx, x, index, source, accumulate=False, inplace=False):
        ctx.meta = (index, tuple(source.shape), accumulate)
        be = x._be
        n = x.numel()
        h = x._data if inplace else be.contiguous(x._data)
        flat = be.reshape_view(h, (n,))
        work = flat if flat is not None else be.reshape_view(be.contiguous(h), (n,))
        idx = be.reshape_view(be.contiguous(index._data), (index.numel(),))
        try:
            be.index_put_(work, (idx,), _flat(source), accumulate)
        except IndexOutOfRange as e:
            raise _out_of_range(e, n) from None
        if flat is None:  # self is not viewable as 1-D: write the updated copy back
            be.copy_(h, be.reshape_view(work, tuple(x.shape)))
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        index, src_shape, accumulate = ctx.meta
        gx = g if accumulate else g.put(index, g.new_zeros(src_shape))
        return gx, None, g.take(index).reshape(src_shape)


def _put_args(self, index, source):
    _check_long(index, "put_")
    if source.dtype is not self.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{scalar_type_name(self.dtype)} and source.dtype = {scalar_type_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError("put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    return to_device_of(index, self), to_device_of(source, self)


def put(input, index, source, accumulate=False):
    index, source = _put_args(input, index, source)
    return apply_op(PutBackward0, input, index, source, accumulate)


def put_(self, index, source, accumulate=False):
    index, source = _put_args(self, index, source)
    return write_inplace(self, PutBackward0, index, source, accumulate, inputs=(index, source), full=True)


FUNCTIONS = {"take": take, "put": put}
METHODS = {"take": take, "put": put, "put_": put_}
