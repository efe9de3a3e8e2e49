"""torch.accelerator: the probe scripts use to pick a device.

PyTorch answers from the accelerator it was built with (CUDA, MPS, XPU, ...). webtorch's accelerator is
"webgpu", reported when it is in use:

- in the browser (Pyodide) automatically, when a WebGPU device exists;
- natively only on request, because CPython scripts probe for an accelerator and would otherwise move all
  their work to a software adapter: set ``WEBTORCH_ACCELERATOR=webgpu`` in the environment, or call
  ``webtorch.accelerator.use_webgpu()`` before the probe.

So ``device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else "cpu"``
picks "webgpu" where it is reported and "cpu" elsewhere, as on a machine without CUDA.
"""
import os as _os
import sys as _sys

from ._device import device as _device
from . import webgpu as _webgpu

_choice = {"webgpu": None}  # None: decided by the platform and WEBTORCH_ACCELERATOR on first probe


def use_webgpu(enabled=True):
    """Report "webgpu" as the accelerator (when WebGPU is available), or stop reporting it."""
    _choice["webgpu"] = bool(enabled)


def _wanted():
    if _choice["webgpu"] is None:
        env = _os.environ.get("WEBTORCH_ACCELERATOR", "").strip().lower()
        if env not in ("", "webgpu", "none", "cpu"):
            raise RuntimeError(f"WEBTORCH_ACCELERATOR={env!r} is not understood; set it to 'webgpu' (report WebGPU "
                               "as the accelerator) or 'none'")
        _choice["webgpu"] = env == "webgpu" or (_sys.platform == "emscripten" and env == "")
    return _choice["webgpu"]


def is_available():
    return _wanted() and _webgpu.is_available()


def current_accelerator(check_available=False):
    """device("webgpu") when webgpu is the accelerator in use, else None (PyTorch's answer without one)."""
    if _wanted() and (not check_available or _webgpu.is_available()):
        return _device("webgpu")
    return None


def device_count():
    return 1 if is_available() else 0


def _require():
    if not is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index():
    _require()
    return 0


current_device_idx = current_device_index


def set_device_index(device):
    _require()
    index = _device(device).index if isinstance(device, (str, _device)) else device
    if index not in (None, -1, 0):
        raise RuntimeError(f"Invalid device index {index}: webtorch has one webgpu device (index 0)")


set_device_idx = set_device_index


def synchronize(device=None):
    _require()
    _webgpu.synchronize()


def empty_cache():
    if is_available():
        _webgpu.empty_cache()


def memory_allocated(device_index=None):
    _require()
    return _webgpu.memory_allocated()


def max_memory_allocated(device_index=None):
    _require()
    return _webgpu.max_memory_allocated()


def memory_reserved(device_index=None):
    _require()
    return _webgpu.memory_reserved()


def reset_peak_memory_stats(device_index=None):
    _require()
    _webgpu.reset_peak_memory_stats()
