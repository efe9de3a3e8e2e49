"""Gather/scatter family: gather, scatter(_add, _reduce), index_select/add/copy/fill, masked_fill/select/
scatter, nonzero/argwhere, take, take_along_dim, put.

Forwards call the backend's gather / scatter_ / index / index_put_ / nonzero primitives; each backward is
written with the family's own ops (the gradient of a gather is a scatter_add, and so on), so double
backward works. Writing ops whose backward needs no old value of self write straight into self's storage
through inplace.write_inplace; the others compute out of place and commit.
"""
from .. import _dtype as D
from .._broadcast import broadcast_shapes
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op, recording
from ..backends.base import IndexOutOfRange
from .dispatch import norm_dim, wrap
from .inplace import commit, write_inplace, scalar_type_name

_INDEX_DTYPES = (D.int64, D.int32)


def _target(x, inplace):
    """The handle a writing op fills: self's storage (in-place variant) or a fresh copy of it."""
    return x._data if inplace else x._be.contiguous(x._data)


def _h(v):
    return v._data if isinstance(v, Tensor) else v


# ---- gather / scatter --------------------------------------------------------------------------------

def _as1d(t):
    """0-dim tensors take part in gather/scatter as 1-element vectors (PyTorch's rule)."""
    return t._be.reshape_view(t._data, (1,)) if t.dim() == 0 else t._data


def _check_index_args(name, self, dim, index, src=None):
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
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


def _runtime(e):
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
            raise _runtime(e) from None
        if index.dim() == 0:
            h = x._be.reshape_view(h, ())
        return wrap(h, x)

    @staticmethod
    def backward(ctx, g):
        shape, dim, index = ctx.meta
        return g.new_zeros(shape).scatter_add(dim, index, g), None


def gather(input, dim, index, *, sparse_grad=False, out=None):
    dim = _check_index_args("gather", input, dim, index)
    return apply_op(GatherBackward0, input, dim, index)


def _scatter_into(x, h, dim, index, src, reduce, include_self=True):
    be = x._be
    hv = be.reshape_view(h, (1,)) if x.dim() == 0 else h
    sv = _as1d(src) if isinstance(src, Tensor) else src
    try:
        be.scatter_(hv, dim, _as1d(index), sv, reduce, include_self)
    except IndexOutOfRange as e:
        raise _runtime(e) from None


_LEGACY_REDUCE = {None: None, "add": "sum", "multiply": "prod"}


class ScatterBackward0(Node):
    """scatter with a src tensor."""
    @staticmethod
    def forward(ctx, x, dim, index, src, reduce=None, inplace=False):
        ctx.meta = (dim, index, reduce)
        ctx.src_shape = tuple(src.shape)
        h = _target(x, inplace)
        _scatter_into(x, h, dim, index, src, _LEGACY_REDUCE[reduce])
        return wrap(h, x)

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
        h = _target(x, inplace)
        _scatter_into(x, h, dim, index, value, _LEGACY_REDUCE[reduce])
        return wrap(h, x)

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
        if src._device != self._device:
            src = src.to(self._device)
        return ScatterBackward0, dim, src
    return ScatterBackward1, dim, src


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    node, dim, src = _scatter_args(input, dim, index, src, value, reduce)
    return apply_op(node, input, dim, index, src, reduce)


def scatter_(self, dim, index, src=None, value=None, *, reduce=None):
    node, dim, src = _scatter_args(self, dim, index, src, value, reduce)
    return write_inplace(self, node, dim, index, src, reduce)


class ScatterAddBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, src, inplace=False):
        ctx.meta = (dim, index, tuple(src.shape))
        h = _target(x, inplace)
        _scatter_into(x, h, dim, index, src, "sum")
        return wrap(h, x)

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
    return write_inplace(self, ScatterAddBackward0, _scatter_add_args(self, dim, index, src), index, src)


_REDUCTIONS = {"sum": "sum", "prod": "prod", "mean": "mean", "amax": "amax", "amin": "amin",
               "max": "amax", "min": "amin"}  # PyTorch also takes max/min


class ScatterReduceBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        h = x._be.contiguous(x._data)
        _scatter_into(x, h, dim, index, src, reduce, include_self)
        out = wrap(h, x)
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
    return commit(self, scatter_reduce(self.clone(), dim, index, src, reduce, include_self=include_self))


# ---- index_select / index_add / index_copy / index_fill ----------------------------------------------

def _dim_index(x, dim, index, name):
    """(dim, 1-D index) for the index_* ops; a 0-dim index counts as one index."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if index.dim() > 1:
        if name == "index_select":
            raise IndexError("index_select(): Index is supposed to be a vector")
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{scalar_type_name(index.dtype)} and size: {list(index.shape)}")
    if index._device != x._device:
        index = index.to(x._device)
    return norm_dim(dim, x.dim()), index.reshape(1) if index.dim() == 0 else index


def _along_dim(x, dim, index):
    return (None,) * dim + (index._data,) if x.dim() else (index._data,)


def _x1(x):
    return x._be.reshape_view(x._data, (1,)) if x.dim() == 0 else x._data


class IndexSelectBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.meta = (tuple(x.shape), dim, index)
        try:
            h = x._be.index(_x1(x), _along_dim(x, dim, index))
        except IndexOutOfRange:
            raise IndexError("index out of range in self") from None
        return wrap(h if x.dim() else x._be.reshape_view(h, ()) if index.numel() == 1 else h, x)

    @staticmethod
    def backward(ctx, g):
        shape, dim, index = ctx.meta
        return g.new_zeros(shape).index_add(dim, index, g), None


def index_select(input, dim, index):
    dim, index = _dim_index(input, dim, index, "index_select")
    return apply_op(IndexSelectBackward0, input, dim, index)


def _check_source(self, dim, index, source, name):
    if source.dtype is not self.dtype:
        if name == "index_add":
            raise RuntimeError(f"index_add_(): self ({scalar_type_name(self.dtype)}) and source "
                               f"({scalar_type_name(source.dtype)}) must have the same scalar type")
        raise RuntimeError(f"{name}_(): self and source expected to have the same dtype, but got (self) "
                           f"{scalar_type_name(self.dtype)} and (source) {scalar_type_name(source.dtype)}")
    ssh, xsh = tuple(source.shape), tuple(self.shape)
    n = ssh[dim] if source.dim() else 1
    if n != index.numel():
        raise RuntimeError(f"{name}_(): Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({n}), for dim: {dim}")
    if len(ssh) != len(xsh) or any(a != b for d, (a, b) in enumerate(zip(ssh, xsh)) if d != dim):
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(xsh)} source.shape = {list(ssh)}")


def _put_along(x, h, dim, index, values, accumulate, name):
    be = x._be
    hv = be.reshape_view(h, (1,)) if x.dim() == 0 else h
    if isinstance(values, Tensor):
        values = values._data if values.dim() == x.dim() else be.reshape_view(values._data, (1,))
    try:
        be.index_put_(hv, _along_dim(x, dim, index), values, accumulate)
    except IndexOutOfRange as e:
        if name == "index_add":
            raise _runtime(e) from None
        if name == "index_copy":
            raise IndexError(f"index_copy_(): {e}") from None
        raise


class IndexAddBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, source, alpha=1, inplace=False):
        ctx.meta = (dim, index, alpha)
        h = _target(x, inplace)
        if alpha != 1:
            source = wrap(x._be.elementwise("mul", (source._data, alpha), x.dtype), x)
        _put_along(x, h, dim, index, source, True, "index_add")
        return wrap(h, x)

    @staticmethod
    def backward(ctx, g):
        dim, index, alpha = ctx.meta
        gs = g.index_select(dim, index) if g.dim() else g.reshape(1)
        return g, None, gs * alpha if alpha != 1 else gs


def _index_add_args(self, dim, index, source):
    dim, index = _dim_index(self, dim, index, "index_add")
    _check_source(self, dim, index, source, "index_add")
    return dim, index


def index_add(input, dim, index, source, *, alpha=1):
    dim, index = _index_add_args(input, dim, index, source)
    return apply_op(IndexAddBackward0, input, dim, index, source, alpha)


def index_add_(self, dim, index, source, *, alpha=1):
    dim, index = _index_add_args(self, dim, index, source)
    return write_inplace(self, IndexAddBackward0, dim, index, source, alpha)


class IndexCopyBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, source, inplace=False):
        ctx.meta = (dim, index)
        h = _target(x, inplace)
        _put_along(x, h, dim, index, source, False, "index_copy")
        return wrap(h, x)

    @staticmethod
    def backward(ctx, g):
        dim, index = ctx.meta
        gs = g.index_select(dim, index) if g.dim() else g.reshape(1)
        return g.index_fill(dim, index, 0), None, gs


def _index_copy_args(self, dim, index, source):
    dim, index = _dim_index(self, dim, index, "index_copy")
    _check_source(self, dim, index, source, "index_copy")
    return dim, index


def index_copy(input, dim, index, source):
    dim, index = _index_copy_args(input, dim, index, source)
    return apply_op(IndexCopyBackward0, input, dim, index, source)


def index_copy_(self, dim, index, source):
    dim, index = _index_copy_args(self, dim, index, source)
    return write_inplace(self, IndexCopyBackward0, dim, index, source)


class IndexFillBackward0(Node):
    """index_fill with a Python number."""
    @staticmethod
    def forward(ctx, x, dim, index, value, inplace=False):
        ctx.meta = (dim, index)
        h = _target(x, inplace)
        _put_along(x, h, dim, index, _h(value), False, "index_fill")
        return wrap(h, x)

    @staticmethod
    def backward(ctx, g):
        dim, index = ctx.meta
        return g.index_fill(dim, index, 0), None


class IndexFillBackward1(IndexFillBackward0):
    """index_fill with a 0-dim Tensor value."""
    @staticmethod
    def backward(ctx, g):
        dim, index = ctx.meta
        return g.index_fill(dim, index, 0), None, g.index_select(dim, index).sum() if g.dim() else g


def _index_fill_args(self, dim, index, value):
    dim, index = _dim_index(self, dim, index, "index_fill")
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        if value._device != self._device:
            value = value.to(self._device)
        return IndexFillBackward1, dim, index, value.to(self.dtype)
    return IndexFillBackward0, dim, index, value


def index_fill(input, dim, index, value):
    node, dim, index, value = _index_fill_args(input, dim, index, value)
    return apply_op(node, input, dim, index, value)


def index_fill_(self, dim, index, value):
    node, dim, index, value = _index_fill_args(self, dim, index, value)
    return write_inplace(self, node, dim, index, value)


# ---- masked ops ----------------------------------------------------------------------------------------

def _mask_name(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
            "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char"}.get(dt.name, dt.name)


def _check_mask(mask, name):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask.dtype is not D.bool_:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {_mask_name(mask.dtype)}")


class MaskedFillBackward0(Node):
    """masked_fill with a Python number."""
    @staticmethod
    def forward(ctx, x, mask, value, inplace=False):
        ctx.mask = mask
        be = x._be
        if inplace:
            be.elementwise("where", (mask._data, _h(value), x._data), x.dtype, out=x._data)
            return wrap(x._data, x)
        return wrap(be.elementwise("where", (mask._data, _h(value), x._data), x.dtype), x)

    @staticmethod
    def backward(ctx, g):
        return g.masked_fill(ctx.mask, 0), None


class MaskedFillBackward1(MaskedFillBackward0):
    """masked_fill with a 0-dim Tensor value."""
    @staticmethod
    def backward(ctx, g):
        return g.masked_fill(ctx.mask, 0), None, g.masked_fill(ctx.mask.logical_not(), 0).sum()


def _masked_fill_args(self, mask, value):
    _check_mask(mask, "masked_fill_")
    if mask._device != self._device:
        mask = mask.to(self._device)
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        if value._device != self._device:
            value = value.to(self._device)
        return MaskedFillBackward1, mask, value
    return MaskedFillBackward0, mask, value


def masked_fill(input, mask, value):
    node, mask, value = _masked_fill_args(input, mask, value)
    return apply_op(node, input, mask, value)


def _check_inplace_broadcast(self, other):
    shape = tuple(self.shape)
    b = broadcast_shapes(shape, tuple(other.shape))
    if b != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(b)}")


def masked_fill_(self, mask, value):
    node, mask, value = _masked_fill_args(self, mask, value)
    _check_inplace_broadcast(self, mask)
    return write_inplace(self, node, mask, value)


def _mask_coords(mask):
    """The nonzero coordinates of mask as a tuple of 1-D index handles (one per dim)."""
    be = mask._be
    nz = be.nonzero(mask._data)
    return tuple(be.slice(nz, (slice(None), j)) for j in range(mask.dim()))


def _broadcast_pair(x, mask):
    shape = broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    return x.expand(shape) if tuple(x.shape) != shape else x, mask.expand(shape) if tuple(mask.shape) != shape \
        else mask


class MaskedSelectBackward0(Node):
    @staticmethod
    def forward(ctx, x, mask):
        xb, mb = _broadcast_pair(x, mask)
        ctx.meta = (tuple(xb.shape), mb)
        if xb.dim() == 0:
            xb, mb = xb.reshape(1), mb.reshape(1)
        return wrap(x._be.index(xb._data, _mask_coords(mb)), x)

    @staticmethod
    def backward(ctx, g):
        shape, mb = ctx.meta
        return g.new_zeros(shape).masked_scatter(mb, g), None


def masked_select(input, mask):
    _check_mask(mask, "masked_select:")
    if mask._device != input._device:
        mask = mask.to(input._device)
    return apply_op(MaskedSelectBackward0, input, mask)


class MaskedScatterBackward0(Node):
    @staticmethod
    def forward(ctx, x, mask, source, inplace=False):
        if inplace:
            xb, mb, h = x, mask.expand(tuple(x.shape)), x._data
        else:
            xb, mb = _broadcast_pair(x, mask)
            h = x._be.contiguous(xb._data)
        if xb.dim() == 0:
            h, mb = x._be.reshape_view(h, (1,)), mb.reshape(1)
        coords = _mask_coords(mb)
        n = x._be.shape(coords[0])[0] if coords else 0
        if source.numel() < n:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        flat = source.reshape(-1)
        x._be.index_put_(h, coords, x._be.slice(flat._data, (slice(0, n, 1),)), False)
        ctx.meta = (mb if xb.dim() else mb.reshape(()), n, tuple(source.shape))
        return wrap(h if xb.dim() else x._be.reshape_view(h, ()), x)

    @staticmethod
    def backward(ctx, g):
        mb, n, src_shape = ctx.meta
        picked = g.masked_select(mb)
        total = 1
        for s in src_shape:
            total *= s
        if total > n:
            from .shape import cat
            picked = cat([picked, picked.new_zeros((total - n,))])
        return g.masked_fill(mb, 0), None, picked.reshape(src_shape)


def _masked_scatter_args(self, mask, source):
    if not isinstance(mask, Tensor) or mask.dtype is not D.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{scalar_type_name(mask.dtype) if isinstance(mask, Tensor) else type(mask).__name__}")
    if source.dtype is not self.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{scalar_type_name(self.dtype)} and {scalar_type_name(source.dtype)}")
    if mask._device != self._device:
        mask = mask.to(self._device)
    if source._device != self._device:
        source = source.to(self._device)
    return mask, source


def masked_scatter(input, mask, source):
    mask, source = _masked_scatter_args(input, mask, source)
    return apply_op(MaskedScatterBackward0, input, mask, source)


def masked_scatter_(self, mask, source):
    mask, source = _masked_scatter_args(self, mask, source)
    _check_inplace_broadcast(self, mask)
    return write_inplace(self, MaskedScatterBackward0, mask, source)


# ---- nonzero, take, put --------------------------------------------------------------------------------

def nonzero(input, *, out=None, as_tuple=False):
    r = wrap(input._be.nonzero(input._data), input)
    if not as_tuple:
        return r
    if input.dim() == 0:
        return (wrap(input._be.nonzero(input._be.reshape_view(input._data, (1,))), input)[:, 0],)
    return tuple(r[:, j] for j in range(input.dim()))


def argwhere(input):
    return nonzero(input)


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
        return wrap(be.reshape_view(h, tuple(index.shape)), x)

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
    if index._device != input._device:
        index = index.to(input._device)
    return apply_op(TakeBackward0, input, index)


def take_along_dim(input, indices, dim=None, *, out=None):
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    dim = norm_dim(dim, input.dim())
    xs = list(input.shape)
    xs[dim] = indices.shape[dim]
    shape = broadcast_shapes(tuple(xs), tuple(indices.shape))
    xs = list(shape)
    xs[dim] = input.shape[dim]
    return gather(input.broadcast_to(tuple(xs)), dim, indices.broadcast_to(shape))


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
        return wrap(h, x)

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
    if index._device != self._device:
        index = index.to(self._device)
    if source._device != self._device:
        source = source.to(self._device)
    return index, source


def put(input, index, source, accumulate=False):
    index, source = _put_args(input, index, source)
    return apply_op(PutBackward0, input, index, source, accumulate)


def put_(self, index, source, accumulate=False):
    index, source = _put_args(self, index, source)
    return write_inplace(self, PutBackward0, index, source, accumulate)


FUNCTIONS = {
    "gather": gather, "scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
    "index_select": index_select, "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "masked_fill": masked_fill, "masked_select": masked_select, "masked_scatter": masked_scatter,
    "nonzero": nonzero, "argwhere": argwhere, "take": take, "take_along_dim": take_along_dim, "put": put,
}
METHODS = dict(FUNCTIONS)
METHODS.update({
    "scatter_": scatter_, "scatter_add_": scatter_add_, "scatter_reduce_": scatter_reduce_,
    "index_add_": index_add_, "index_copy_": index_copy_, "index_fill_": index_fill_,
    "masked_fill_": masked_fill_, "masked_scatter_": masked_scatter_, "put_": put_,
})
