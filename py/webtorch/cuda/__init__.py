"""torch.cuda as a PyTorch build without CUDA answers it: nothing is available, seeding is a no-op, and what
would need a CUDA device raises an error that names webtorch's GPU device, "webgpu"."""
from .._device import no_storage_error
from . import amp  # noqa: F401


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def manual_seed(seed):
    pass


def manual_seed_all(seed):
    pass


def seed():
    pass


def seed_all():
    pass


def empty_cache():
    pass


def _unavailable(*args, **kwargs):
    raise no_storage_error("cuda")


current_device = get_device_name = get_device_properties = get_device_capability = synchronize = set_device = \
    memory_allocated = max_memory_allocated = memory_reserved = reset_peak_memory_stats = _unavailable


def _legacy_type(name):
    def construct(*args, **kwargs):
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled "
                        "(webtorch's GPU device is \"webgpu\")")
    return type(name, (), {"__new__": construct, "__module__": "torch.cuda"})


FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor = (
    _legacy_type(n) for n in ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
                              "CharTensor", "ByteTensor", "BoolTensor"))
