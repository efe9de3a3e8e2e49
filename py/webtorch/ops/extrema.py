"""Extrema reductions: max/min (a value, or values+indices along a dim), amax/amin, argmax/argmin, aminmax.

Gradients follow PyTorch: a full max/min and amax/amin split the gradient evenly among tied elements;
max/min along a dim send it to the selected index only.
"""
from ..autograd.graph import Node, apply_op
from .._tensor import Tensor
from ._core import return_types
from .._geometry import reduced
from ._core.dispatch import norm_dim, norm_dims, wrap
from ._core.out_arg import SAME, Rule, castable, takes_out
from .reduction import restore_dims


def _nonempty(name, x, dims):
    shape = x.shape
    for d in dims:
        if shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _whole_nonempty(name, x):
    if x.numel() == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")


def ties_mask(x, value_k):
    """Where x equals its reduced value (NaN matching NaN): the elements that share the gradient."""
    m = x == value_k
    if x.dtype.is_floating_point:
        m = m.logical_or(x.isnan().logical_and(value_k.isnan()))
    return m


def one_hot_along(index_k, size, dim, ndim):
    """Bool mask, True where the coordinate along ``dim`` equals index_k (keepdim-shaped indices)."""
    from .creation import arange
    shape = [1] * ndim
    shape[dim] = size
    return arange(size, device=index_k.device).reshape(shape) == index_k


def select_backward(g, index, in_shape, dim, keepdim):
    """Gradient of picking one element per slice along dim (max/min/kthvalue/median along a dim)."""
    g_k = restore_dims(g, in_shape, (dim,), keepdim)
    i_k = restore_dims(index, in_shape, (dim,), keepdim)
    mask = one_hot_along(i_k, in_shape[dim], dim, len(in_shape))
    return _where(mask, g_k)


def selection_backward(ctx, g, g_indices=None):
    """Backward of a (values, indices) node that saved the indices it picked and meta (in_shape, dim, keepdim)."""
    (indices,) = ctx.saved_tensors
    shape, dim, keepdim = ctx.meta
    return select_backward(g, indices, shape, dim, keepdim) if shape else g


def _where(mask, g_k):
    from .where_clamp import where
    return where(mask, g_k, g_k.new_zeros(()))


def _even_split(g, x, value, dims, keepdim, nan_aware=False):
    """PyTorch: a full max/min shares among ties, NaN matching NaN (evenly_distribute_backward); amax/amin
    scale by the count of exact matches, so a slice whose result is NaN gets NaN (scale_grad_by_count)."""
    shape = tuple(x.shape)
    v_k = restore_dims(value, shape, dims, keepdim)
    g_k = restore_dims(g, shape, dims, keepdim)
    if nan_aware:
        mask = ties_mask(x, v_k)
        return _where(mask, g_k / mask.sum())
    mask = x == v_k
    return g_k / mask.sum(dim=dims, keepdim=True) * mask


def _reduce(op, x, dims, keepdim):
    return wrap(x._be.reduce(op, x._data, dims, keepdim, x.dtype), x, reduced(x.shape, dims, keepdim))


def _make_full(op, node_name):
    def forward(ctx, x):
        out = _reduce(op, x, tuple(range(x.dim())), False)
        ctx.save_for_backward(x, out)
        return out

    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return _even_split(g, x, out, tuple(range(x.dim())), False, nan_aware=True)

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _make_amax(op, node_name):
    def forward(ctx, x, dims, keepdim):
        out = _reduce(op, x, dims, keepdim)
        ctx.save_for_backward(x, out)
        ctx.meta = (dims, keepdim)
        return out

    def backward(ctx, g):
        x, out = ctx.saved_tensors
        return _even_split(g, x, out, *ctx.meta)

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _make_along(op, arg_op, node_name):
    def forward(ctx, x, dim, keepdim):
        be = x._be
        dims = (dim,) if x.dim() else ()
        shape = reduced(x.shape, dims, keepdim)
        values = wrap(be.reduce(op, x._data, dims, keepdim, x.dtype), x, shape)
        indices = wrap(be.arg_reduce(arg_op, x._data, dim if x.dim() else None, keepdim), x, shape)
        ctx.save_for_backward(indices)
        ctx.meta = (tuple(x.shape), dim, keepdim)
        return values, indices

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(selection_backward)})


MaxBackward1, MinBackward1 = _make_full("amax", "MaxBackward1"), _make_full("amin", "MinBackward1")
MaxBackward0 = _make_along("amax", "argmax", "MaxBackward0")
MinBackward0 = _make_along("amin", "argmin", "MinBackward0")
AmaxBackward0, AminBackward0 = _make_amax("amax", "AmaxBackward0"), _make_amax("amin", "AminBackward0")


# max/min without dim: PyTorch's check has no better message
_CAN_CAST = Rule(castable, "Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                           "to be true, but got false.  (Could this error message be improved?  If so, please report "
                           "an enhancement request to PyTorch.)")


def _extremum(name, full_node, along_node, result_type, binary):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, Tensor):  # max(input, other): elementwise
            return binary(input, dim, out=out)
        return reduce(input, dim, keepdim, out=out)

    def reduce(input, dim, keepdim):
        if dim is None:
            _whole_nonempty(name, input)
            return apply_op(full_node, input)
        d = norm_dim(dim, input.dim())
        _nonempty(name, input, (d,) if input.dim() else ())
        return result_type(*apply_op(along_node, input, d, keepdim))
    fn.__name__ = reduce.__name__ = name
    reduce = takes_out(name, _CAN_CAST, (SAME, SAME))(reduce)
    return fn


def _binary(name):
    def fn(a, b, out=None):
        from . import where_clamp
        return getattr(where_clamp, name)(a, b, out=out)
    return fn


max = _extremum("max", MaxBackward1, MaxBackward0, return_types.max, _binary("maximum"))  # noqa: A001
min = _extremum("min", MinBackward1, MinBackward0, return_types.min, _binary("minimum"))  # noqa: A001


_SAME_AS_INPUT = Rule(lambda r, o: r is o, "Expected the dtype for input and out to match, but got {r} for input's "
                                          "dtype and {o} for out's dtype.")


def _amax_fn(name, node):
    def fn(input, dim=(), keepdim=False):
        dims = norm_dims(dim if dim != () else None, input.dim())
        if dim == ():   # every dim, not named: PyTorch asks for a dim when there is no element
            _whole_nonempty(name, input)
        _nonempty(name, input, dims)
        return apply_op(node, input, dims, keepdim)
    fn.__name__ = name
    return takes_out(name, _SAME_AS_INPUT)(fn)


amax = _amax_fn("amax", AmaxBackward0)
amin = _amax_fn("amin", AminBackward0)


def _arg(name):
    def fn(input, dim=None, keepdim=False):
        if input.dtype.name == "bool":
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None:
            if input.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            return wrap(input._be.arg_reduce(name, input._data, None, keepdim), input,
                        (1,) * input.dim() if keepdim else ())
        d = norm_dim(dim, input.dim())
        if input.dim():
            _nonempty(name, input, (d,))
        return wrap(input._be.arg_reduce(name, input._data, d if input.dim() else None, keepdim), input,
                    reduced(input.shape, (d,), keepdim) if input.dim() else ())
    fn.__name__ = name
    return fn


argmax, argmin = _arg("argmax"), _arg("argmin")


class AminmaxBackward0(Node):
    @staticmethod
    def forward(ctx, x, dims, keepdim):
        lo, hi = _reduce("amin", x, dims, keepdim), _reduce("amax", x, dims, keepdim)
        ctx.save_for_backward(x, lo, hi)
        ctx.meta = (dims, keepdim)
        return lo, hi

    @staticmethod
    def backward(ctx, g_min, g_max):
        x, lo, hi = ctx.saved_tensors
        return _even_split(g_min, x, lo, *ctx.meta) + _even_split(g_max, x, hi, *ctx.meta)


def aminmax(input, *, dim=None, keepdim=False):
    if dim is None:
        _whole_nonempty("aminmax", input)
        dims = tuple(range(input.dim()))
        keepdim_ = keepdim
    else:
        dims = (norm_dim(dim, input.dim()),)[:input.dim()]
        _nonempty("aminmax", input, dims)
        keepdim_ = keepdim
    return return_types.aminmax(*apply_op(AminmaxBackward0, input, dims, keepdim_))


FUNCTIONS = {"max": max, "min": min, "amax": amax, "amin": amin, "argmax": argmax, "argmin": argmin,
             "aminmax": aminmax, "return_types": return_types}
METHODS = {k: v for k, v in FUNCTIONS.items() if k != "return_types"}
