"""Glue between public ops and backends: argument checks, handles out, Tensors back."""
import operator

from ... import _dtype as D
from ..._tensor import Tensor, _wrap, fresh_geometry, handle_geometry
from ..._broadcast import broadcast_shapes  # noqa: F401  (re-exported for ops)
from ..._geometry import dim_index, norm_dim  # noqa: F401  (re-exported for ops)


def wrap(h, like, shape, dtype=None):
    """A Tensor around the fresh op result h of ``shape`` (a tuple, Size or list), on like's device; dtype: h's,
    when the caller knows it."""
    if type(shape) is list:  # (fresh_geometry's cache takes hashable shapes)
        shape = tuple(shape)
    return _wrap(h, like._be, like._device, fresh_geometry(shape), dtype=dtype)


def wrap_target(h, x, inplace):
    """The result of an op that wrote handle h: x's own handle (``inplace``: x's geometry) or a fresh copy of x."""
    return _wrap(h, x._be, x._device, x._geom, dtype=x.dtype) if inplace else wrap(h, x, x.shape)


def wrap_view(h, like):
    """A Tensor around handle h whose geometry only the backend knows: a view made on handles (reshape_view,
    permute, slice of a handle) or a result of data-dependent shape (nonzero, unique)."""
    return _wrap(h, like._be, like._device, handle_geometry(like._be, h))


_SCALAR_TYPES = (bool, int, float)


def operands(args):
    """(reference tensor, handles-or-scalars) for an elementwise op; checks devices agree.

    A 0-dim cpu tensor may join tensors of another device (PyTorch's cpu-scalar rule): it is read as a
    Python number.
    """
    ref = None
    out = []
    for a in args:
        if isinstance(a, Tensor):
            if ref is None:
                ref = a
            elif a._device.type != ref._device.type:
                return _mixed_device_operands(args)
            out.append(a._data)
        elif a is None or isinstance(a, _SCALAR_TYPES):
            out.append(a)
        else:
            raise TypeError(f"unsupported operand type {type(a).__name__}; expected a Tensor or a Python number")
    if ref is None:
        raise TypeError("expected at least one Tensor argument")
    return ref, out


def _mixed_device_operands(args):
    ref = None
    for a in args:
        if isinstance(a, Tensor) and (ref is None or (ref.dim() == 0 and ref._device.type == "cpu")):
            ref = a
    dev = ref._device
    out = []
    for a in args:
        if isinstance(a, Tensor):
            if a._device.type != dev.type:
                if a.dim() == 0 and a._device.type == "cpu":
                    out.append(a.item())
                    continue
                check_same_device(ref, a)
            out.append(a._data)
        else:
            out.append(a)
    return ref, out


def check_same_device(*tensors):
    dev = None
    for t in tensors:
        if t is None:
            continue
        if dev is None:
            dev = t._device
        elif t._device.type != dev.type:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{dev} and {t._device}! (move them with .to({str(dev)!r}))")


def norm_dims(dim, ndim):
    """A sorted tuple of normalized dims; None or () means every dim."""
    if type(dim) is int and 0 <= dim < ndim:
        return (dim,)
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int) or isinstance(dim, Tensor):
        return (norm_dim(dim_index(dim), ndim),)
    dims = tuple(norm_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if dims else tuple(range(ndim))


def float_result(dt):
    """dtype of a float-valued op (exp, sqrt, true div...) on inputs of dtype dt: ints become the default float."""
    return dt if dt.is_floating_point else D.get_default_dtype()


def shape_arg(size):
    """Accept f(2, 3), f((2, 3)), f([2, 3]) or f(torch.Size)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        return tuple(s if type(s) is int else operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be tuple of ints, not {size!r}") from None


def new_size_arg(size):
    """shape_arg for the size of a tensor being created: every dimension must be >= 0 (PyTorch's check)."""
    shape = shape_arg(size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    return shape
