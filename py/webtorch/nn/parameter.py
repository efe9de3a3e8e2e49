"""torch.nn.Parameter and torch.nn.Buffer: the tensors a Module registers when they are assigned to it; the
uninitialized ones of lazy modules."""
from .._tensor import Tensor, _as_subclass
from .._torch_function import _disabled_torch_function_impl
from ..autograd.grad_mode import no_grad


class Parameter(Tensor):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    Args:
        data (Tensor): the parameter's values (shared, not copied); an empty float tensor if None.
        requires_grad (bool): whether the parameter requires gradient. Default: True.

    Example::

        >>> p = nn.Parameter(torch.zeros(2))
        >>> p
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """
    __torch_function__ = _disabled_torch_function_impl  # ops on parameters give plain Tensors

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter expects a Tensor as data, got {type(data).__name__}")
        p = _as_subclass(data.detach(), cls)
        p.requires_grad = False
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        with no_grad():
            result = type(self)(self.data.clone(), self.requires_grad)
        result.__dict__.update({k: v for k, v in self.__dict__.items()})
        if self.grad is not None:
            result.grad = self.grad.__deepcopy__(memo)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)


class _BufferMeta(type):
    # nn.Buffer(t) returns a plain Tensor flagged as a buffer; isinstance tests that flag (PyTorch's design).
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and instance.__dict__.get("_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A Tensor that a Module registers as a buffer when assigned as an attribute.

    Args:
        data (Tensor): the buffer's values (shared, not copied).
        persistent (bool): whether the buffer is part of the module's state_dict. Default: True.
    """

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        t = data.detach()
        t._is_buffer = True
        t.persistent = persistent
        return t


class UninitializedTensorMixin:
    """A parameter or buffer of a lazy module: no values and no shape until ``materialize`` gives it a shape,
    which turns it into its ``cls_to_become`` in place (optimizers and modules holding it keep the object)."""

    cls_to_become = None

    def materialize(self, shape, device=None, dtype=None):
        """Give the tensor ``shape`` (uninitialized values) on ``device``/``dtype`` (its own by default)."""
        from ..ops.creation import empty
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        with no_grad():
            self.data = empty(shape, device=device or self.device, dtype=dtype or self.dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (type(self), (self.requires_grad,))

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """The parameter a lazy module (``nn.LazyLinear``, ...) holds until its first forward infers the shape."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        from ..ops.creation import empty
        return Parameter.__new__(cls, empty(0, device=device, dtype=dtype), requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """The buffer a lazy module (``nn.LazyBatchNorm1d``, ...) holds until its first forward infers the shape."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        from ..ops.creation import empty
        t = _as_subclass(empty(0, device=device, dtype=dtype), cls)
        t.requires_grad = requires_grad
        return t

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


def is_lazy(param):
    """Whether ``param`` is an uninitialized parameter or buffer of a lazy module."""
    return isinstance(param, UninitializedTensorMixin)
