"""torch.amp.GradScaler: a pass-through where disabled (nothing to scale without float16 autocast)."""
import warnings

from .._device import _BACKEND_MODULES
from .autocast_mode import _check_type, _disabled_message


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.**16, growth_factor=2., backoff_factor=.5, growth_interval=2000,
    enabled=True)``: disabled, ``scale`` returns its argument and ``step`` calls ``optimizer.step``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        _check_type(device)
        self._device = device
        if enabled and device in _BACKEND_MODULES:
            raise RuntimeError(f"GradScaler(enabled=True) on '{device}' is not supported by webtorch (there is no "
                               "float16 autocast whose gradients need scaling); construct it with enabled=False")
        if enabled:
            warnings.warn(_disabled_message(device, f"torch.{device}.amp.GradScaler is enabled, but "
                                                    f"{device.upper()} is not available.  Disabling."))
        self._enabled = False
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        return outputs

    def unscale_(self, optimizer):
        pass

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        pass

    def get_scale(self):
        return 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        pass
