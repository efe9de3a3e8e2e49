"""index_select, index_add, index_copy, index_fill: ops that read or write whole slices of one dim, chosen by
a 1-D index.

Forwards call the backend's index / index_put_ primitives; each backward is written with the family's own ops
(the gradient of index_select is an index_add, and so on), so double backward works. Writing ops whose
backward needs no old value of self write straight into self's storage through inplace.write_inplace.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op
from ..backends.base import IndexOutOfRange
from ._core.dispatch import norm_dim, wrap, wrap_target
from .._dtype import scalar_type_name
from ._core.inplace import write_inplace
from .scatter_gather import INDEX_DTYPES, write_target, handle_or_number, runtime_error, to_device_of, fill_value


def _dim_index(x, dim, index, name):
    """(dim, 1-D index) for the index_* ops; a 0-dim index counts as one index."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): argument 'index' must be Tensor, not {type(index).__name__}")
    if name == "index_fill" and index.dtype is not D.int64:  # PyTorch's index_fill takes int64 only
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dtype not in INDEX_DTYPES:
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index")
    if index.dim() > 1:
        if name == "index_fill":
            raise RuntimeError("Index has to be a vector/scalar")
        if name == "index_select":
            raise IndexError("index_select(): Index is supposed to be a vector")
        raise IndexError(f"{name}_(): Index is supposed to be a vector, but got dim: {index.dim()} with type: "
                         f"{scalar_type_name(index.dtype)} and size: {list(index.shape)}")
    index = to_device_of(index, x)
    dim = norm_dim(dim, x.dim())
    if name != "index_fill":  # index_fill alone takes negative indices, as in PyTorch
        index = _no_negatives(index, x.shape[dim] if x.dim() else 1)
    return dim, index.reshape(1) if index.dim() == 0 else index


def _no_negatives(index, size):
    """index with each negative value i moved to i - size: the backend's range check, which accepts [-size, size)
    as advanced indexing does, then refuses it (PyTorch's index_select/index_add/index_copy take no negative
    index) without reading the index back here. ``_users_index`` undoes the shift for the message."""
    known = index._be.known_range(index._data)
    if known is not None and known[0] >= 0:
        return index  # bounds the backend already knows (an upload, a creation op): no shift, no extra op
    return index.where(index >= 0, index - size)


def _users_index(e):
    """The IndexOutOfRange e as the user's index shows it (before ``_no_negatives``)."""
    i = e.index + e.size if e.index < -e.size else e.index
    return IndexOutOfRange(i, e.dim, e.size)


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
        n = index.numel()
        if x.dim():
            return wrap(h, x, x.shape[:dim] + (n,) + x.shape[dim + 1:])
        return wrap(x._be.reshape_view(h, ()), x, ()) if n == 1 else wrap(h, x, (n,))

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
        if name == "index_add":  # PyTorch's 0-/1-d kernel words it as index_select does
            raise (IndexError("index out of range in self") if x.dim() <= 1 else runtime_error(_users_index(e))) \
                from None
        if name == "index_copy":
            raise IndexError(f"index_copy_(): {_users_index(e)}") from None
        raise


class IndexAddBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, source, alpha=1, inplace=False):
        ctx.meta = (dim, index, alpha)
        h = write_target(x, inplace)
        if alpha != 1:
            source = wrap(x._be.elementwise("mul", (source._data, alpha), x.dtype), x, source.shape)
        _put_along(x, h, dim, index, source, True, "index_add")
        return wrap_target(h, x, inplace)

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
    return write_inplace(self, IndexAddBackward0, dim, index, source, alpha, inputs=(index, source), full=True)


class IndexCopyBackward0(Node):
    @staticmethod
    def forward(ctx, x, dim, index, source, inplace=False):
        ctx.meta = (dim, index)
        h = write_target(x, inplace)
        _put_along(x, h, dim, index, source, False, "index_copy")
        return wrap_target(h, x, inplace)

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
    return write_inplace(self, IndexCopyBackward0, dim, index, source, inputs=(index, source), full=True)


class IndexFillBackward0(Node):
    """index_fill with a Python number."""
    @staticmethod
    def forward(ctx, x, dim, index, value, inplace=False):
        ctx.meta = (dim, index)
        h = write_target(x, inplace)
        _put_along(x, h, dim, index, handle_or_number(value), False, "index_fill")
        return wrap_target(h, x, inplace)

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
    value = fill_value(self, value, "index_fill_")
    if isinstance(value, Tensor):
        return IndexFillBackward1, dim, index, value.to(self.dtype)
    return IndexFillBackward0, dim, index, value


def index_fill(input, dim, index, value):
    node, dim, index, value = _index_fill_args(input, dim, index, value)
    return apply_op(node, input, dim, index, value)


def index_fill_(self, dim, index, value):
    node, dim, index, value = _index_fill_args(self, dim, index, value)
    # PyTorch checks the index only: a Tensor value is read once, before anything is written
    return write_inplace(self, node, dim, index, value, inputs=(index,), full=True)


FUNCTIONS = {"index_select": index_select, "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill}
METHODS = dict(FUNCTIONS)
METHODS.update({"index_add_": index_add_, "index_copy_": index_copy_, "index_fill_": index_fill_})
