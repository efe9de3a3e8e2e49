"""torch.mps: Apple's Metal device, never present in webtorch (its GPU device is "webgpu")."""
from ._absent_device import is_available, device_count, manual_seed, seed  # noqa: F401


def _unavailable(*args, **kwargs):
    raise RuntimeError("Cannot use the MPS backend: webtorch has no 'mps' device; use .to(\"webgpu\") for the GPU")


synchronize = empty_cache = current_allocated_memory = driver_allocated_memory = _unavailable
