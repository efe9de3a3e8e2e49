"""torch.xpu: Intel's GPU device, never present in webtorch (its GPU device is "webgpu")."""
from ._absent_device import is_available, device_count, manual_seed, manual_seed_all, seed, seed_all  # noqa: F401
