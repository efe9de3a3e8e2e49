"""Boolean-mask ops: masked_fill, masked_select, masked_scatter, and nonzero/argwhere (a mask's coordinates).

Forwards call the backend's where / index / index_put_ / nonzero primitives; each backward is written with the
family's own ops (the gradient of masked_select is a masked_scatter, and so on), so double backward works.
The in-place forms write straight into self's storage through inplace.write_inplace.
"""
from .. import _dtype as D
from .._broadcast import broadcast_shapes
from .._tensor import Tensor, _wrap
from ..autograd.graph import Node, apply_op
from ._core.dispatch import wrap, wrap_view
from .._dtype import scalar_type_name
from ._core.inplace import check_inplace_broadcast, write_inplace
from ._core.out_arg import Rule, same, takes_out
from .scatter_gather import handle_or_number, to_device_of, fill_value


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
            be.elementwise("where", (mask._data, handle_or_number(value), x._data), x.dtype, out=x._data)
            return _wrap(x._data, be, x._device, x._geom, dtype=x.dtype)
        return wrap(be.elementwise("where", (mask._data, handle_or_number(value), x._data), x.dtype), x,
                    broadcast_shapes(x.shape, mask.shape))

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
    mask = to_device_of(mask, self)
    value = fill_value(self, value, "masked_fill_")
    if isinstance(value, Tensor):
        return MaskedFillBackward1, mask, value
    return MaskedFillBackward0, mask, value


def masked_fill(input, mask, value):
    node, mask, value = _masked_fill_args(input, mask, value)
    return apply_op(node, input, mask, value)


def masked_fill_(self, mask, value):
    node, mask, value = _masked_fill_args(self, mask, value)
    check_inplace_broadcast(self, mask)
    # PyTorch checks the mask only, and lets it be self itself
    return write_inplace(self, node, mask, value, inputs=(mask,))


def _mask_coords(mask):
    """(the nonzero coordinates of mask as a tuple of 1-D index handles (one per dim), their count)."""
    be = mask._be
    nz = be.nonzero(mask._data)
    return tuple(be.slice(nz, (slice(None), j)) for j in range(mask.dim())), be.geometry(nz)[0][0]


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
        coords, n = _mask_coords(mb)
        return wrap(x._be.index(xb._data, coords), x, (n,))

    @staticmethod
    def backward(ctx, g):
        shape, mb = ctx.meta
        return g.new_zeros(shape).masked_scatter(mb, g), None


def masked_select(input, mask):
    _check_mask(mask, "masked_select:")
    return apply_op(MaskedSelectBackward0, input, to_device_of(mask, input))


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
        coords, n = _mask_coords(mb)
        if source.numel() < n:
            raise RuntimeError("Number of elements of source < number of ones in mask")
        flat = source.reshape(-1)
        x._be.index_put_(h, coords, x._be.slice(flat._data, (slice(0, n, 1),)), False)
        ctx.meta = (mb if xb.dim() else mb.reshape(()), n, tuple(source.shape))
        if inplace:
            return _wrap(x._data, x._be, x._device, x._geom, dtype=x.dtype)
        return wrap(h if xb.dim() else x._be.reshape_view(h, ()), x, xb.shape)

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
    return to_device_of(mask, self), to_device_of(source, self)


def masked_scatter(input, mask, source):
    mask, source = _masked_scatter_args(input, mask, source)
    return apply_op(MaskedScatterBackward0, input, mask, source)


def masked_scatter_(self, mask, source):
    mask, source = _masked_scatter_args(self, mask, source)
    check_inplace_broadcast(self, mask)
    return write_inplace(self, MaskedScatterBackward0, mask, source)


def nonzero(input, *, out=None, as_tuple=False):
    if not as_tuple:
        return _nonzero(input, out=out)
    if out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    r = wrap_view(input._be.nonzero(input._data), input)  # (data-dependent size)
    if input.dim() == 0:
        return (wrap_view(input._be.nonzero(input._be.reshape_view(input._data, (1,))), input)[:, 0],)
    return tuple(r[:, j] for j in range(input.dim()))


@takes_out(None, Rule(same, "nonzero: Expected out tensor to have scalar type Long but got scalar type{o}"))
def _nonzero(input):
    return wrap_view(input._be.nonzero(input._data), input)  # (data-dependent size)


def argwhere(input):
    return nonzero(input)


FUNCTIONS = {"masked_fill": masked_fill, "masked_select": masked_select, "masked_scatter": masked_scatter,
             "nonzero": nonzero, "argwhere": argwhere}
METHODS = dict(FUNCTIONS)
METHODS.update({"masked_fill_": masked_fill_, "masked_scatter_": masked_scatter_})
