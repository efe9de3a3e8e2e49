"""torch._C's names that Python programs use directly: switching ``__torch_function__`` dispatch off."""
from ._torch_function import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: F401
from ._torch_function import _disabled_torch_function_impl  # noqa: F401
from ._torch_function import state as _state


def _is_torch_function_enabled():
    return not _state.subclass_off


def _is_torch_function_mode_enabled():
    return bool(_state.modes) and not _state.all_off
