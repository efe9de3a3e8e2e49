"""torch.overrides: the ``__torch_function__`` protocol's public helpers (how a function written in Python takes
part in dispatch, and TorchFunctionMode). The dispatch itself: webtorch/_torch_function.py."""
from ._torch_function import current_mode, handle_torch_function, needs_dispatch, overloaded_args, pop_mode, push_mode

__all__ = ["TorchFunctionMode", "handle_torch_function", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "is_tensor_like"]


def has_torch_function(relevant_args):
    """Whether any of ``relevant_args`` (or an active mode) takes over a call: then call ``handle_torch_function``."""
    return needs_dispatch(relevant_args)


def has_torch_function_unary(arg):
    """``has_torch_function((arg,))``."""
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    """``has_torch_function(args)``."""
    return has_torch_function(args)


def is_tensor_like(inp):
    """A Tensor, or an object whose type defines ``__torch_function__``."""
    from ._tensor import Tensor
    return type(inp) is Tensor or hasattr(inp, "__torch_function__")


def _get_overloaded_args(relevant_args):
    return overloaded_args(relevant_args)


def _get_current_function_mode():
    return current_mode()


class TorchFunctionMode:
    """Inside ``with MyMode():``, every public function and Tensor method call goes to
    ``MyMode.__torch_function__(func, types, args, kwargs)`` first (with the mode off while it runs, so calling
    ``func`` inside runs the call)."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        pop_mode()
