"""webtorch: PyTorch's programming model (Tensor, autograd, nn, optim) for the browser.

``import webtorch as torch`` -- the names below follow PyTorch's.
"""
from ._dtype import (  # noqa: F401
    dtype, bool_ as bool, uint8, int8, int16, int32, int64, uint32, float16, bfloat16, float32, float64,
    get_default_dtype, set_default_dtype, promote_types, finfo, iinfo,
)
from ._dtype import float32 as float, float64 as double, float16 as half, int64 as long, int32 as int  # noqa: F401
from ._dtype import int16 as short, result_type as _result_type  # noqa: F401
from ._device import device, get_default_device, set_default_device  # noqa: F401
from ._tensor import Tensor, Size  # noqa: F401
from . import autograd  # noqa: F401
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: F401
from ._print import set_printoptions  # noqa: F401
from . import ops as _ops
from ._broadcast import broadcast_shapes  # noqa: F401

globals().update(_ops.FUNCTIONS)
from .ops.creation import Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa: F401,E402
from .ops.creation import range_ as range  # noqa: F401,E402

from . import linalg  # noqa: E402,F401
from . import special  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import webgpu  # noqa: E402,F401
from .backends.webgpu.runtime import OutOfMemoryError  # noqa: E402,F401 -- torch.OutOfMemoryError
from . import optim  # noqa: E402,F401
from . import distributions  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import legacy  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import accelerator, amp, backends, cuda, distributed, mps, onnx, random, version, xpu  # noqa: E402,F401
from ._settings import (  # noqa: E402,F401
    set_float32_matmul_precision, get_float32_matmul_precision, use_deterministic_algorithms,
    are_deterministic_algorithms_enabled, is_deterministic_algorithms_warn_only_enabled, set_num_threads,
    get_num_threads, set_num_interop_threads, get_num_interop_threads, set_flush_denormal, compile,
)
from .amp import autocast  # noqa: E402,F401
from .amp.autocast_mode import is_autocast_enabled  # noqa: E402,F401
from ._tensor_types import LEGACY_TYPES as _LEGACY_TYPES  # noqa: E402

globals().update(_LEGACY_TYPES)

from .version import __version__  # noqa: E402,F401


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(t):
    return t.dtype.is_floating_point


def numel(t):
    return t.numel()


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def can_cast(from_, to):
    return from_.category <= to.category


def is_nonzero(t):
    if t.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(t.item())
