"""webtorch: PyTorch's programming model (Tensor, autograd, nn, optim) for the browser.

``import webtorch as torch`` -- the names below follow PyTorch's.
"""
from . import _bytecode_archive  # noqa: F401 -- first: in the browser's wheel it serves every module below
if _bytecode_archive.finder is not None:  # whose line numbers arrive later: sys.excepthook waits for them
    from . import _line_tables
    _line_tables.install_excepthook()
from ._dtype import (  # noqa: F401
    dtype, bool_ as bool, uint8, int8, int16, int32, int64, uint32, float16, bfloat16, float32, float64,
    get_default_dtype, set_default_dtype, promote_types, finfo, iinfo,
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,
)
from ._dtype import float32 as float, float64 as double, float16 as half, int64 as long, int32 as int  # noqa: F401
from ._dtype import int16 as short, result_type as _result_type  # noqa: F401
from ._memory_format import (memory_format, contiguous_format, channels_last, channels_last_3d,  # noqa: F401
                             preserve_format)
from ._device import device, get_default_device, set_default_device  # noqa: F401
from ._tensor import Tensor, Size  # noqa: F401
from . import autograd  # noqa: F401
from .autograd import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: F401
from ._print import set_printoptions  # noqa: F401
from ._broadcast import broadcast_shapes  # noqa: F401
from . import ops as _ops  # attaches every op's Tensor methods

# torch.<op>: each family's FUNCTIONS (ops/<family>.py), by name (tests/tooling/test_api_namespace.py checks they agree)
from .ops.creation import (  # noqa: F401
    tensor, as_tensor, asarray, from_numpy, frombuffer, zeros, ones, empty, full, zeros_like, ones_like,
    empty_like, full_like, empty_strided, arange, linspace, logspace, eye, rand, randn, randint, randperm,
    rand_like, randn_like, randint_like, normal
)
from .ops.convert import clone  # noqa: F401
from .ops.scaled_mm import _scaled_mm  # noqa: F401
from .ops.views import (  # noqa: F401
    reshape, permute, transpose, transpose as swapaxes, transpose as swapdims, t, broadcast_to, squeeze, unsqueeze,
    flatten, unflatten, ravel, as_strided, movedim, movedim as moveaxis
)
from .ops.comparison import (  # noqa: F401
    eq, ne, lt, le, gt, ge, gt as greater, lt as less, ge as greater_equal, le as less_equal, ne as not_equal,
    logical_and, logical_or, logical_xor, logical_not, bitwise_and, bitwise_or, bitwise_xor, bitwise_not,
    bitwise_left_shift, bitwise_right_shift, isnan, isinf, isfinite, signbit, equal, isclose, allclose
)
from .ops.where_clamp import (  # noqa: F401
    where, clamp, clamp as clip, clamp_min, clamp_max, maximum, minimum, fmax, fmin, clamp_, clip_, clamp_min_,
    clamp_max_
)
from .ops.unary_math import (  # noqa: F401
    neg, abs, exp, exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, sin, cos, tan, asin, acos, atan, sinh, cosh,
    tanh, asinh, acosh, atanh, sigmoid, relu, erf, erfc, erfinv, reciprocal, square, frac, sign, floor, ceil,
    torch_round as round, trunc, negative, positive, abs as absolute, asin as arcsin, acos as arccos,
    atan as arctan, asinh as arcsinh, acosh as arccosh, atanh as arctanh, trunc as fix, sinc, deg2rad, rad2deg,
    sgn, logit, nan_to_num, neg_, abs_, exp_, exp2_, expm1_, log_, log2_, log10_, log1p_, sqrt_, rsqrt_, sin_,
    cos_, tan_, asin_, acos_, atan_, sinh_, cosh_, tanh_, asinh_, acosh_, atanh_, sigmoid_, relu_, erf_, erfc_,
    erfinv_, reciprocal_, square_, frac_, floor_, ceil_, round_, trunc_, negative_, fix_, arcsin_, arccos_,
    arctan_, arcsinh_, arccosh_, arctanh_, nan_to_num_, logit_, deg2rad_, rad2deg_, sinc_
)
from .ops.binary_math import atan2, atan2 as arctan2, hypot, logaddexp, logaddexp2, xlogy, copysign, heaviside, xlogy_  # noqa: F401
from .ops.arithmetic import (  # noqa: F401
    add, sub, sub as subtract, rsub, mul, mul as multiply, div, div as divide, true_divide, floor_divide, pow,
    float_power, remainder, fmod, addcmul, addcdiv, lerp
)
from .ops.reduction import (  # noqa: F401
    sum, mean, prod, var, std, var_mean, std_mean, logsumexp, all, any, count_nonzero, nansum, nanmean
)
from .ops._core import return_types  # noqa: F401
from .ops.extrema import max, min, amax, amin, argmax, argmin, aminmax  # noqa: F401
from .ops.norms import norm, dist  # noqa: F401
from .ops.scan import cumsum, cumprod, cummax, cummin, logcumsumexp  # noqa: F401
from .ops.sorting import sort, argsort, msort, topk, kthvalue, median, nanmedian, unique, searchsorted, bucketize  # noqa: F401
from .ops.mode import mode  # noqa: F401
from .ops.random import bernoulli, multinomial  # noqa: F401
from .ops.linalg import mm, addmm, matmul, bmm, dot, mv, outer, outer as ger  # noqa: F401
from .ops.linalg_extra import (  # noqa: F401
    einsum, tril, triu, diag, diag_embed, trace, baddbmm, addmv, addbmm, cross, kron, cdist, inv as inverse, det
)
from .ops.linalg_decomp import cholesky_solve, logdet, torch_slogdet as slogdet, matrix_power  # noqa: F401
from .ops.indexing import select, narrow, diagonal, index_put  # noqa: F401
from .ops.fill import fill  # noqa: F401
from .ops.shape import (  # noqa: F401
    cat, cat as concat, cat as concatenate, stack, hstack, vstack, vstack as row_stack, dstack, column_stack,
    atleast_1d, atleast_2d, atleast_3d, unbind, split, split_with_sizes, chunk, unsafe_chunk, tensor_split, hsplit,
    vsplit, dsplit, tile, repeat_interleave, flip, fliplr, flipud, roll, rot90, broadcast_tensors, meshgrid
)
from .ops.scatter_gather import gather, scatter, scatter_add, scatter_reduce, take_along_dim  # noqa: F401
from .ops.index_along_dim import index_select, index_add, index_copy, index_fill  # noqa: F401
from .ops.masked import masked_fill, masked_select, masked_scatter, nonzero, argwhere  # noqa: F401
from .ops.take_put import take, put  # noqa: F401
from .ops.activation import selu, selu_, celu, celu_, threshold, threshold_, prelu, rrelu, rrelu_, hardshrink  # noqa: F401
from .ops.softmax import softmax, log_softmax  # noqa: F401
from .ops.normalization import (  # noqa: F401
    torch_layer_norm as layer_norm, torch_batch_norm as batch_norm, torch_instance_norm as instance_norm,
    torch_group_norm as group_norm, rms_norm, cosine_similarity, pairwise_distance
)
from .ops.dropout import (  # noqa: F401
    aten_dropout as dropout, aten_dropout_ as dropout_, aten_feature_dropout as feature_dropout,
    aten_feature_dropout_ as feature_dropout_, aten_alpha_dropout as alpha_dropout,
    aten_alpha_dropout_ as alpha_dropout_, aten_feature_alpha_dropout as feature_alpha_dropout,
    aten_feature_alpha_dropout_ as feature_alpha_dropout_
)
from .ops.loss import (  # noqa: F401
    _torch_bce_logits as binary_cross_entropy_with_logits, _torch_kl_div as kl_div,
    _torch_cosine_embedding as cosine_embedding_loss, _torch_margin_ranking as margin_ranking_loss,
    _torch_hinge_embedding as hinge_embedding_loss, _torch_triplet as triplet_margin_loss,
    _torch_poisson_nll as poisson_nll_loss
)
from .ops.ctc_loss import ctc_loss  # noqa: F401
from .ops.padding import constant_pad_nd  # noqa: F401
from .ops.conv import conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d  # noqa: F401
from .ops.pooling import max_pool1d, max_pool2d, max_pool3d, avg_pool1d, adaptive_avg_pool1d  # noqa: F401
from .ops.resampling import pixel_shuffle, pixel_unshuffle, channel_shuffle  # noqa: F401
from .ops.embedding import torch_embedding as embedding, embedding_renorm_  # noqa: F401
from .ops.special_math import lgamma, digamma, polygamma, mvlgamma, i0, i0_  # noqa: F401
from .ops.gamma_reparam import _standard_gamma_grad, _dirichlet_grad  # noqa: F401
from .ops.gamma_random import _standard_gamma, _sample_dirichlet  # noqa: F401
from .ops.renorm import renorm  # noqa: F401
from .ops.sparse_coo import sparse_coo_tensor  # noqa: F401
from ._layout import layout, strided, sparse_coo  # noqa: F401
from ._lazy import lazy_names as _lazy_names

from .ops.creation import Generator, manual_seed, seed, initial_seed, get_rng_state, set_rng_state  # noqa: F401,E402
from .ops.creation import range_ as range  # noqa: F401,E402

from . import linalg  # noqa: E402,F401
from . import sparse  # noqa: E402,F401
from . import special  # noqa: E402,F401
from . import nn  # noqa: E402,F401
from . import webgpu  # noqa: E402,F401
from .backends.webgpu.runtime import OutOfMemoryError  # noqa: E402,F401 -- torch.OutOfMemoryError
from . import optim  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import amp, backends, cuda, distributed, mps, onnx, random, version, xpu  # noqa: E402,F401
from . import overrides, _C  # noqa: E402,F401
from .amp import autocast  # noqa: E402,F401
from .amp.autocast_mode import is_autocast_enabled  # noqa: E402,F401
from ._tensor_types import (  # noqa: E402,F401
    FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor, CharTensor, ShortTensor, IntTensor, LongTensor,
    BoolTensor,
)

from .version import __version__  # noqa: E402,F401


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.dtype.is_floating_point


def numel(input):
    return input.numel()


def result_type(tensor1, tensor2):
    return _result_type(tensor1, tensor2)


def can_cast(from_, to):
    return from_.category <= to.category


def is_nonzero(input):
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return input.item() != 0  # (the name bool is torch.bool here)


# Rarely used subpackages and op families load on first use (webtorch._lazy; an explicit ``import
# webtorch.distributions`` works as ever): the subpackages are about a tenth of the package's import time, and the op
# families (ops/__init__.py ON_FIRST_USE) stay out of the browser wheel's first archive.
_LAZY = {"distributions": ".distributions", "legacy": ".legacy",
         **{n: f".ops.combinatorics:{n}" for n in ("cartesian_prod", "combinations", "tril_indices", "triu_indices",
                                                   "block_diag", "vander")},
         "isin": ".ops.membership:isin", "accelerator": ".accelerator",
         **{n: f".ops.counting:{n}" for n in ("histc", "histogram", "bincount")},
         **{n: f".ops.quantile:{n}" for n in ("quantile", "nanquantile")},
         **{n: f".ops.differences:{n}" for n in ("diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid")},
         **{n: f".ops.covariance:{n}" for n in ("cov", "corrcoef")},
         **{n: f".ops.matrix_functions:{n}" for n in ("geqrf", "matrix_exp")},
         "orgqr": ".ops.matrix_functions:householder_product",
         **{n: f"._settings:{n}" for n in (
             "set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
             "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled", "set_num_threads",
             "get_num_threads", "set_num_interop_threads", "get_num_interop_threads", "set_flush_denormal", "compile")}}
__getattr__, __dir__ = _lazy_names(__name__, globals(), _LAZY)
