"""torch.nn.utils: flat parameter vectors, gradient clipping, BatchNorm fusion, skip_init, the packed sequences
of .rnn, parametrizations (.parametrize, .parametrizations: loaded on first use, ``webtorch._lazy``, as are the
flat vectors, fusion and memory-format helpers) and the older weight_norm/spectral_norm hooks."""
from ..._lazy import lazy_names
from .clip_grad import clip_grad_norm_, clip_grad_norm, clip_grad_value_, get_total_norm, clip_grads_with_norm_  # noqa: F401
from . import rnn  # noqa: F401
from .init import skip_init  # noqa: F401
from .spectral_norm import spectral_norm, remove_spectral_norm  # noqa: F401
from .weight_norm import weight_norm, remove_weight_norm  # noqa: F401

__getattr__, __dir__ = lazy_names(__name__, globals(), {
    "parametrize": ".parametrize", "parametrizations": ".parametrizations",
    **{n: f".convert_parameters:{n}" for n in ("parameters_to_vector", "vector_to_parameters")},
    **{n: f".fusion:{n}" for n in ("fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
                                   "fuse_linear_bn_weights")},
    **{n: f".memory_format:{n}" for n in ("convert_conv2d_weight_memory_format",
                                          "convert_conv3d_weight_memory_format")}})
