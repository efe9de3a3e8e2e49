"""torch.cuda as a PyTorch build without CUDA answers it: nothing is available, seeding is a no-op, and what
would need a CUDA device raises an error that names webtorch's GPU device, "webgpu"."""
from .._device import no_storage_error
from . import amp  # noqa: F401
from .._absent_device import (  # noqa: F401
    is_available, device_count, is_initialized, manual_seed, manual_seed_all, seed, seed_all,
)


def is_bf16_supported(including_emulation=True):
    return False


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def get_rng_state_all():
    return []


def _unavailable(*args, **kwargs):
    raise no_storage_error("cuda")


current_device = get_device_name = get_device_properties = get_device_capability = synchronize = set_device = \
    reset_peak_memory_stats = _unavailable


def _legacy_type(name):
    def construct(*args, **kwargs):
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled "
                        "(webtorch's GPU device is \"webgpu\")")
    return type(name, (), {"__new__": construct, "__module__": "torch.cuda"})


FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor = (
    _legacy_type(n) for n in ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
                              "CharTensor", "ByteTensor", "BoolTensor"))


def is_current_stream_capturing():
    return False


def _graph_unavailable(*args, **kwargs):
    raise RuntimeError("Torch not compiled with CUDA enabled: CUDA graphs need a CUDA device; webtorch captures a "
                       "step on its GPU device with webtorch.webgpu.Graph() and `with webtorch.webgpu.graph(g):`")


CUDAGraph = type("CUDAGraph", (), {"__new__": _graph_unavailable, "__module__": "torch.cuda"})
graph = _graph_unavailable
