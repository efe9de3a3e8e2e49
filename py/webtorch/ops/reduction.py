"""Reductions over dims with keepdim: sum, mean (more in the families beside this file)."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .dispatch import norm_dims, wrap


def sum_dtype(dt):
    """PyTorch: integral and bool sums accumulate and return int64."""
    return dt if dt.is_floating_point else D.int64


def expand_back(g, in_shape, dims, keepdim):
    """Broadcast a reduced gradient back over the reduced dims."""
    if not keepdim and dims:
        shape = list(in_shape)
        for d in dims:
            shape[d] = 1
        g = g.reshape(shape)
    return g.expand(in_shape)


class SumBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        ctx.meta = (tuple(x.shape), dims, keepdim)
        return wrap(x._be.reduce("sum", x._data, dims, keepdim, dtype), x)

    @staticmethod
    def backward(ctx, g):
        return expand_back(g, *ctx.meta)


class SumBackward1(SumBackward0):
    pass


def sum(input, dim=None, keepdim=False, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else sum_dtype(input.dtype)
    if dim is None:
        return apply_op(SumBackward0, input, tuple(range(input.dim())), False, dt)
    dims = norm_dims(dim, input.dim())
    return apply_op(SumBackward1, input, dims, keepdim, dt)


class MeanBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim, dtype):
        n = 1
        for d in dims:
            n *= x.shape[d]
        ctx.meta = (tuple(x.shape), dims, keepdim)
        ctx.n = n
        return wrap(x._be.reduce("mean", x._data, dims, keepdim, dtype), x)

    @staticmethod
    def backward(ctx, g):
        return expand_back(g / ctx.n, *ctx.meta)


class MeanBackward1(MeanBackward0):
    pass


def mean(input, dim=None, keepdim=False, *, dtype=None):
    dt = D.to_dtype(dtype) if dtype is not None else input.dtype
    if not dt.is_floating_point:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {_scalar_name(dt)}")
    if dim is None:
        return apply_op(MeanBackward0, input, tuple(range(input.dim())), False, dt)
    return apply_op(MeanBackward1, input, norm_dims(dim, input.dim()), keepdim, dt)


def _scalar_name(dt):
    from .inplace import scalar_type_name
    return scalar_type_name(dt)


FUNCTIONS = {"sum": sum, "mean": mean}
METHODS = dict(FUNCTIONS)
