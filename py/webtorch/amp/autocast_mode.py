"""torch.autocast: a no-op context where disabled; an error where it would change dtypes."""
import functools
import warnings

from .._device import _BACKEND_MODULES, _FOREIGN_TYPES

_enabled = {}  # device type -> autocast enabled (only ever True for device types webtorch has no storage for)


def _check_type(device_type):
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if device_type not in _BACKEND_MODULES and device_type not in _FOREIGN_TYPES:
        raise RuntimeError(f"Expected one of cpu, webgpu, {', '.join(_FOREIGN_TYPES)} device type at start of "
                           f"device string: {device_type}")


def _disabled_message(device_type, absent):
    """Why autocast (or its GradScaler) on ``device_type`` does nothing: the device is absent (``absent``, PyTorch's
    words), or it is "cuda" while the cuda alias names webgpu, where webtorch runs every op in its inputs' dtype."""
    from .._cuda_alias import is_on
    if device_type == "cuda" and is_on():
        return ("\"cuda\" names webtorch's webgpu device here, which has no automatic mixed precision: ops run in "
                "their inputs' dtype; disabling autocast and gradient scaling")
    return absent


def is_autocast_available(device_type):
    _check_type(device_type)
    return False


def is_autocast_enabled(device_type=None):
    return bool(_enabled.get(device_type or "cuda", False))


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        _check_type(device_type)
        self.device = device_type
        self.fast_dtype = dtype
        if enabled and device_type in _BACKEND_MODULES:
            raise RuntimeError(f"autocast on '{device_type}' is not supported by webtorch (ops run in the dtype of "
                               "their inputs); pass enabled=False, or cast the model and inputs yourself "
                               "(e.g. .half() on webgpu)")
        if enabled:
            absent = f"{device_type.upper()} is not available; Disabling autocast."
            warnings.warn(_disabled_message(device_type, absent))
            enabled = False
        self._enabled = enabled

    def __enter__(self):
        self._prev = _enabled.get(self.device, False)
        _enabled[self.device] = self._enabled
        return self

    def __exit__(self, *exc):
        _enabled[self.device] = self._prev
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self:
                return func(*args, **kwargs)
        return wrapper
