"""torch.cuda: while the cuda alias is off (CPython by default; _cuda_alias.py), as a PyTorch build without CUDA
answers -- nothing is available, seeding is a no-op, and what would need a CUDA device raises an error that names
webtorch's GPU device, "webgpu". While it is on (the page with a GPU adapter, or ``use_webgpu()``), the same
calls answer for the webgpu device: ``is_available()`` is True, ``synchronize``, memory, seeding and CUDA graphs
are webtorch.webgpu's.

    import webtorch
    webtorch.cuda.use_webgpu()        # "cuda" names the webgpu device from now on (False: off again)
"""
from .. import webgpu as _webgpu
from .._cuda_alias import is_on as is_available, use_webgpu  # noqa: F401
from .._device import no_storage_error
from . import amp  # noqa: F401


def _unavailable(*args, **kwargs):
    raise no_storage_error("cuda")


def device_count():
    return 1 if is_available() else 0


def is_initialized():
    return is_available() and _webgpu.is_initialized()


def is_bf16_supported(including_emulation=True):
    return False


def _on_webgpu(webgpu_fn, otherwise):
    """A torch.cuda function that is ``webgpu_fn`` while the alias is on, else ``otherwise``."""
    def call(*args, **kwargs):
        return (webgpu_fn if is_available() else otherwise)(*args, **kwargs)
    call.__name__ = webgpu_fn.__name__
    call.__doc__ = webgpu_fn.__doc__
    return call


def _nothing(*args, **kwargs):
    pass


def _zero(device=None):
    return 0


def _default_webgpu_generator():
    from ..ops.creation import default_generator
    return default_generator("webgpu")


def _seed_webgpu():
    _default_webgpu_generator().seed()


def _webgpu_rng_states():
    return [_default_webgpu_generator().get_state()]


def _index(device=None):
    """The webgpu device's index (0), refusing another one as PyTorch refuses a CUDA ordinal past device_count()."""
    from .._device import device as as_device
    index = as_device(device).index if isinstance(device, (str, as_device)) else device
    if index not in (None, -1, 0):
        raise RuntimeError(f"Invalid device index {index}: \"cuda\" names webtorch's one webgpu device (index 0)")
    return 0


def _device_name(device=None):
    _index(device)
    return _webgpu.info()["adapter"]


def _no_properties(device=None):
    raise RuntimeError("\"cuda\" names webtorch's webgpu device here, and WebGPU reports no CUDA properties (compute "
                       "capability, total memory); see webtorch.webgpu.info() for the adapter, its limits and features")


manual_seed = manual_seed_all = _on_webgpu(_webgpu.manual_seed, _nothing)
seed = seed_all = _on_webgpu(_seed_webgpu, _nothing)
get_rng_state_all = _on_webgpu(_webgpu_rng_states, lambda: [])
empty_cache = _on_webgpu(_webgpu.empty_cache, _nothing)
memory_allocated = _on_webgpu(_webgpu.memory_allocated, _zero)
max_memory_allocated = _on_webgpu(_webgpu.max_memory_allocated, _zero)
memory_reserved = _on_webgpu(_webgpu.memory_reserved, _zero)


def _no_reserved_peak(device=None):
    raise RuntimeError("\"cuda\" names webtorch's webgpu device here, whose buffer pool keeps no peak of reserved "
                       "memory; use torch.cuda.max_memory_allocated() (webtorch.webgpu.max_memory_allocated())")


max_memory_reserved = _on_webgpu(_no_reserved_peak, _zero)
reset_peak_memory_stats = _on_webgpu(_webgpu.reset_peak_memory_stats, _unavailable)
synchronize = _on_webgpu(_webgpu.synchronize, _unavailable)
current_device = _on_webgpu(lambda: 0, _unavailable)
set_device = _on_webgpu(_index, _unavailable)
get_device_name = _on_webgpu(_device_name, _unavailable)
get_device_properties = get_device_capability = _on_webgpu(_no_properties, _unavailable)
is_current_stream_capturing = _on_webgpu(_webgpu.is_current_stream_capturing, lambda: False)


def _legacy_type(name):
    def construct(cls, *args, **kwargs):
        if is_available():  # torch.cuda.FloatTensor([1.]): the cpu type's value, on webgpu
            from .. import _tensor_types
            return getattr(_tensor_types, name)(*args, **kwargs).to("webgpu")
        raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled "
                        "(webtorch's GPU device is \"webgpu\")")
    return type(name, (), {"__new__": construct, "__module__": "torch.cuda"})


FloatTensor, DoubleTensor, HalfTensor, LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor = (
    _legacy_type(n) for n in ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
                              "CharTensor", "ByteTensor", "BoolTensor"))


def _graph_unavailable(*args, **kwargs):
    raise RuntimeError("Torch not compiled with CUDA enabled: CUDA graphs need a CUDA device; webtorch captures a "
                       "step on its GPU device with webtorch.webgpu.Graph() and `with webtorch.webgpu.graph(g):`")


def _new_graph(cls, *args, **kwargs):
    if is_available():
        return _webgpu.Graph(*args, **kwargs)
    return _graph_unavailable()


CUDAGraph = type("CUDAGraph", (), {"__new__": _new_graph, "__module__": "torch.cuda"})
graph = _on_webgpu(_webgpu.graph, _graph_unavailable)
