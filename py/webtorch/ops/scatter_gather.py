"""gather, scatter (scatter_add, scatter_reduce), take_along_dim, and the helpers the other index-writing
families (index_along_dim.py, masked.py) share.

Forwards call the backend's gather / scatter_ primitives; each backward is written with the family's own ops
(the gradient of a gather is a scatter_add, and so on), so double backward works. Writing ops whose backward
needs no old value of self write straight into self's storage through inplace.write_inplace; the others compute
out of place and commit.
"""
from .. import _dtype as D
from .._broadcast import broadcast_shapes
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op, recording
from ..backends.base import IndexOutOfRange
from ._core.dispatch import check_same_device, norm_dim, wrap, wrap_target
from ._core.inplace import check_overlap, commit, write_inplace
from ._core.out_arg import SAME, takes_out

INDEX_DTYPES = (D.int64, D.int32)


def write_target(x, inplace):
    """The handle a writing op fills: self's storage (in-place variant) or a fresh copy of it."""
    return x._data if inplace else x._be.contiguous(x._data)


def handle_or_number(v):
    return v._data if isinstance(v, Tensor) else v


def to_device_of(t, like):
    """An index, mask, source or value tensor for an op on like: it must be on like's device, as PyTorch asks;
    only a 0-dim cpu tensor (PyTorch's cpu-scalar rule) is moved there."""
    if t._device == like._device:
        return t
    if t.dim() == 0 and t._device.type == "cpu":
        return t.to(like._device)
    check_same_device(like, t)


def fill_value(self, value, name):
    """A fill value for self: a Python number as given, or a 0-dim Tensor moved to self's device."""
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        return to_device_of(value, self)
    return D.fit_scalar(value, self.dtype)


# ---- gather / scatter --------------------------------------------------------------------------------

def _as1d(t):
    """0-dim tensors take part in gather/scatter as 1-element vectors (PyTorch's rule)."""
    return t._be.reshape_view(t._data, (1,)) if t.dim() == 0 else t._data


def _check_index_args(name, self, dim, index, src=None):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    check_same_device(self, index)
    nd = max(self.dim(), 1)
    if max(index.dim(), 1) != nd and index.numel() > 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    dim = norm_dim(dim, self.dim())
    if index.dim() == self.dim():
        ish, ssh = tuple(index.shape), tuple(self.shape)
        for d in range(len(ish)):
            too_big_self = d != dim and ish[d] > ssh[d]
            too_big_src = isinstance(src, Tensor) and src.dim() == len(ish) and ish[d] > src.shape[d]
            if isinstance(src, Tensor) and (too_big_self or too_big_src):
                raise RuntimeError(f"Expected index {list(ish)} to be no larger than self {list(ssh)} apart from "
                                   f"dimension {dim} and to be no larger size than src {list(src.shape)}")
            if too_big_self:
                raise RuntimeError(f"Size does not match at dimension {d} expected index {list(ish)} to be no "
                                   f"larger than self {list(ssh)} apart from dimension {dim}")
    if isinstance(src, Tensor) and src.dtype is not self.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype")
    return dim


def runtime_error(e):
    return RuntimeError(str(e))


def _index_block(index):
    return tuple(slice(0, n, 1) for n in index.shape)


def _src_grad(gs, index, src_shape):
    """A gradient computed for src's leading index-shaped block, as a gradient of all of src."""
    if tuple(gs.shape) == tuple(src_shape):
        return gs
    from .indexing import embed
    block = _index_block(index)
    return embed(gs, src_shape, lambda z: z[block])


class GatherBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.meta = (tuple(x.shape), dim, index)
        try:
            h = x._be.gather(_as1d(x), dim, _as1d(index))
        except IndexOutOfRange as e:
            raise runtime_error(e) from None
        if index.dim() == 0:
            h = x._be.reshape_view(h, ())
        return wrap(h, x, index.shape)

    @staticmethod
    def backward(ctx, g):
        shape, dim, index = ctx.meta
        return g.new_zeros(shape).scatter_add(dim, index, g), None


@takes_out("gather", SAME)
def gather(input, dim, index, *, sparse_grad=False):
    dim = _check_index_args("gather", input, dim, index)
    return apply_op(GatherBackward0, input, dim, index)


def _scatter_into(x, h, dim, index, src, reduce, include_self=True):
    be = x._be
    hv = be.reshape_view(h, (1,)) if x.dim() == 0 else h
    sv = _as1d(src) if isinstance(src, Tensor) else src
    try:
        be.scatter_(hv, dim, _as1d(index), sv, reduce, include_self)
    except IndexOutOfRange as e:
        raise runtime_error(e) from None


_LEGACY_REDUCE = {None: None, "add": "sum", "multiply": "prod"}


class ScatterBackward0(Node):
    """scatter with a src tensor."""
    @staticmethod
    def forward(ctx, x, dim, index, src, reduce=None, inplace=False):
        ctx.meta = (dim, index, reduce)
        ctx.src_shape = tuple(src.shape)
        h = write_target(x, inplace)
        _scatter_into(x, h, dim, index, src, _LEGACY_REDUCE[reduce])
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        dim, index, reduce = ctx.meta
        if reduce is not None:
            raise RuntimeError(f"the derivative for 'scatter' with reduce='{reduce}' is not implemented; use "
                               "scatter_reduce, which is differentiable")
        return g.scatter(dim, index, 0), None, _src_grad(g.gather(dim, index), index, ctx.src_shape)


class ScatterBackward1(Node):
    """scatter with a scalar value."""
    @staticmethod
    def forward(ctx, x, dim, index, value, reduce=None, inplace=False):
        ctx.meta = (dim, index, reduce)
        h = write_target(x, inplace)
        _scatter_into(x, h, dim, index, value, _LEGACY_REDUCE[reduce])
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        dim, index, reduce = ctx.meta
        if reduce is not None:
            raise RuntimeError(f"the derivative for 'scatter' with reduce='{reduce}' is not implemented")
        return g.scatter(dim, index, 0), None


def _scatter_args(self, dim, index, src, value, reduce):
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' or 'value'")
    if reduce not in _LEGACY_REDUCE:
        raise RuntimeError("reduce argument must be either add or multiply.")
    dim = _check_index_args("scatter", self, dim, index, src)
    if isinstance(src, Tensor):
        return ScatterBackward0, dim, to_device_of(src, self)
    return ScatterBackward1, dim, src


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    node, dim, src = _scatter_args(input, dim, index, src, value, reduce)
    return apply_op(node, input, dim, index, src, reduce)


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    node, dim, src = _scatter_args(self, dim, index, src, value, reduce)
    return write_inplace(self, node, dim, index, src, reduce, inputs=(index, src), full=True)


class ScatterAddBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, src, inplace=False):
        ctx.meta = (dim, index, tuple(src.shape))
        h = write_target(x, inplace)
        _scatter_into(x, h, dim, index, src, "sum")
        return wrap_target(h, x, inplace)

    @staticmethod
    def backward(ctx, g):
        dim, index, src_shape = ctx.meta
        return g, None, _src_grad(g.gather(dim, index), index, src_shape)


def _scatter_add_args(self, dim, index, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    return _check_index_args("scatter", self, dim, index, src)


def scatter_add(input, dim, index, src):
    return apply_op(ScatterAddBackward0, input, _scatter_add_args(input, dim, index, src), index, src)


def scatter_add_(self, dim, index, src):
    return write_inplace(self, ScatterAddBackward0, _scatter_add_args(self, dim, index, src), index, src,
                         inputs=(index, src), full=True)


_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin",
               "max": "amax", "min": "amin"}  # PyTorch also takes max/min


class ScatterReduceBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        h = x._be.contiguous(x._data)
        _scatter_into(x, h, dim, index, src, reduce, include_self)
        out = wrap(h, x, x.shape)
        if recording(ctx):
            ctx.meta = (dim, index, reduce, include_self)
            ctx.save_for_backward(x, src, out)
        return out

    @staticmethod
    def backward(ctx, g):
        dim, index, reduce, include_self = ctx.meta
        x, src_all, result = ctx.saved_tensors
        src = src_all[_index_block(index)] if tuple(src_all.shape) != tuple(index.shape) else src_all
        if reduce == "sum":
            gx, gs = g, g.gather(dim, index)
        elif reduce == "mean":
            n = (g.new_ones(tuple(g.shape)) if include_self else g.new_zeros(tuple(g.shape)))
            n = n.scatter_add(dim, index, src.new_ones(tuple(src.shape)))
            n = n.masked_fill(n == 0, 1)
            gx = g / n
            gs = g.gather(dim, index) / n.gather(dim, index)
        elif reduce == "prod":
            gx, gs = _prod_grads(g, x, dim, index, src, include_self, result)
        else:  # amax / amin: the gradient is shared evenly among the elements equal to the result
            value = result.gather(dim, index)
            x_is = (x == result).to(g.dtype)
            src_is = (src == value).to(g.dtype)
            share = g / x_is.scatter_add(dim, index, src_is)
            gx = x_is * share
            gs = src_is * share.gather(dim, index)
        if not include_self:
            gx = gx.scatter(dim, index, 0)
        return gx, None, _src_grad(gs, index, tuple(src_all.shape))


def _prod_grads(g, x, dim, index, src, include_self, result):
    # Products over zero are handled as PyTorch does: a zero's gradient is the product of the others.
    masked_x = x.masked_fill(x == 0, 1)
    masked_x_result = masked_x.scatter_reduce(dim, index, src, "prod", include_self=include_self)
    gx = g * masked_x_result / masked_x
    src_zero = src == 0
    src_num_zeros = x.new_zeros(tuple(x.shape)).scatter_add(dim, index, src_zero.to(x.dtype)).gather(dim, index)
    src_single_zero = src_zero.logical_and(src_num_zeros == 1)
    masked_src = src.masked_fill(src_single_zero, 1)
    masked_src_result = x.scatter_reduce(dim, index, masked_src, "prod", include_self=include_self)
    gs = (g * masked_src_result).gather(dim, index).where(
        src_single_zero, (g * result).gather(dim, index) / src.masked_fill(src_zero, 1))
    return gx, gs


def _scatter_reduce_args(self, dim, index, src, reduce):
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' must be Tensor, not {type(src).__name__}")
    return _check_index_args("scatter", self, dim, index, src)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    dim = _scatter_reduce_args(input, dim, index, src, reduce)
    return apply_op(ScatterReduceBackward0, input, dim, index, src, _REDUCTIONS[reduce], include_self)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    # backward needs self's old values: it reads a copy, as PyTorch saves the original self
    check_overlap(self, (index, src), full=True)
    return commit(self, scatter_reduce(self.clone(), dim, index, src, reduce, include_self=include_self))


def take_along_dim(input, indices, dim=None, *, out=None):
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1), out=out)
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    dim = norm_dim(dim, input.dim())
    xs = list(input.shape)
    xs[dim] = indices.shape[dim]
    shape = broadcast_shapes(tuple(xs), tuple(indices.shape))
    xs = list(shape)
    xs[dim] = input.shape[dim]
    return gather(input.broadcast_to(tuple(xs)), dim, indices.broadcast_to(shape), out=out)


FUNCTIONS = {
    "gather": gather, "scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
    "take_along_dim": take_along_dim,
}
METHODS = dict(FUNCTIONS)
METHODS.update({"scatter_": scatter_, "scatter_add_": scatter_add_, "scatter_reduce_": scatter_reduce_})
