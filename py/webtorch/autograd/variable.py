"""torch.autograd.Variable: the pre-0.4 wrapper, now a tensor (every tensor is an instance).

It builds a tensor (``Variable()`` is an empty one), so this module is in the api layer (scripts/import_layers.py),
as the torch.autograd namespace (autograd/__init__.py) is, which gathers it on first use; it keeps PyTorch's
module path, torch.autograd.variable.
"""
import warnings

from .._tensor import Tensor


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(data, requires_grad=False)`` returns a tensor sharing ``data``'s storage (a new leaf)."""

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        if volatile:
            warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning)
        if data is None:
            data = Tensor(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out
