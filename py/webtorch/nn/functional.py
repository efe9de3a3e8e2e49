"""torch.nn.functional: the functional forms of layers, activations and losses.

The ops live in webtorch.ops (forward and backward side by side); this module gathers them under
PyTorch's F names and signatures.
"""
import functools

from .._lazy import lazy_names
from .._torch_function import public as _public
from ..ops.unary_math import relu as _relu  # noqa: F401
from ..ops.linalg import matmul as _matmul  # noqa: F401


@_public
def relu(input, inplace=False):
    return input.relu_() if inplace else _relu(input)


# ---- activations, softmax, normalization, dropout, losses, attention (webtorch.ops.<family>) ------------
from ..ops.softmax import (f_softmax as softmax, f_log_softmax as log_softmax, f_softmin as softmin,  # noqa: E402,F401
                           gumbel_softmax)
from ..ops.activation import (  # noqa: E402,F401
    hardtanh, hardtanh_, relu6, leaky_relu, leaky_relu_, threshold, threshold_, hardshrink, softshrink,
    hardsigmoid, hardswish, elu, elu_, selu, selu_, celu, celu_, softplus, gelu, silu, mish, logsigmoid, softsign,
    tanhshrink, rrelu, rrelu_, prelu, glu, sigmoid, tanh
)
from ..ops.normalization import (  # noqa: E402,F401
    layer_norm, batch_norm, instance_norm, group_norm, rms_norm, cosine_similarity, pairwise_distance,
    local_response_norm, normalize
)
from ..ops.dropout import dropout, alpha_dropout, feature_alpha_dropout, dropout1d, dropout2d, dropout3d  # noqa: E402,F401,E501
from ..ops.loss import (  # noqa: E402,F401
    mse_loss, l1_loss, smooth_l1_loss, huber_loss, soft_margin_loss, binary_cross_entropy,
    binary_cross_entropy_with_logits, nll_loss, cross_entropy, multi_margin_loss, kl_div, poisson_nll_loss,
    gaussian_nll_loss, cosine_embedding_loss, margin_ranking_loss, hinge_embedding_loss, triplet_margin_loss,
    multilabel_soft_margin_loss
)
from ..ops.margin_losses import multilabel_margin_loss, triplet_margin_with_distance_loss  # noqa: E402,F401
from ..ops.ctc_loss import ctc_loss  # noqa: E402,F401
from ..ops.linear_cross_entropy import linear_cross_entropy  # noqa: E402,F401


# ---- convolution, pooling, resampling, padding, embedding (webtorch.ops.<family>) -----------------------------
from ..ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: E402,F401
                        conv_transpose3d, unfold, fold)
from ..ops.pooling import (max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool2d,  # noqa: E402,F401
                           avg_pool3d, adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,
                           adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d, max_unpool1d,
                           max_unpool2d, max_unpool3d, lp_pool1d, lp_pool2d, lp_pool3d)


def _with_indices(pool):
    """PyTorch's ``<pool>_with_indices``: the pooling function returning (values, indices) by default."""
    with_indices = functools.partial(pool, return_indices=True)
    with_indices.__name__ = pool.__name__ + "_with_indices"
    return with_indices


(max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices, adaptive_max_pool1d_with_indices,
 adaptive_max_pool2d_with_indices, adaptive_max_pool3d_with_indices) = map(_with_indices, (
    max_pool1d, max_pool2d, max_pool3d, adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d))


def assert_int_or_pair(arg, arg_name, message):
    """PyTorch's TorchScript-era check of a kernel-size-like argument: an int or a pair, else
    ``AssertionError(message.format(arg_name))``."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))

from ..ops.resampling import (pixel_shuffle, pixel_unshuffle, channel_shuffle, interpolate,  # noqa: E402,F401
                              upsample, upsample_nearest, upsample_bilinear)
from ..ops.padding import pad  # noqa: E402,F401
from ..ops.embedding import embedding, one_hot  # noqa: E402,F401


# ---- linear layers (nn engineer) ------------------------------------------------------------------------------
from ..ops.linalg import addmm as _addmm, linear  # noqa: E402,F401
from ..ops.scaled_mm import (  # noqa: E402,F401
    _ScalingType as ScalingType, _SwizzleType as SwizzleType, scaled_mm, scaled_grouped_mm)


@_public
def bilinear(input1, input2, weight, bias=None):
    """y_k = input1^T weight_k input2 + bias_k over the last dims; leading dims are batch dims."""
    in1, in2 = weight.shape[1], weight.shape[2]
    if input1.shape[-1] != in1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {in1}")
    if input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {in2}")
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{input1.shape[d]} and {input2.shape[d]}")
    out_features = weight.shape[0]
    lead = tuple(input1.shape[:-1])
    x1 = input1.reshape(-1, in1)
    x2 = input2.reshape(-1, in2)
    # (N, in1) @ (in1, out*in2) -> (N, out, in2), then contract in2 with x2
    t = x1.mm(weight.permute(1, 0, 2).reshape(in1, out_features * in2)).view(-1, out_features, in2)
    y = (t * x2.unsqueeze(1)).sum(-1)
    if bias is not None:
        y = y + bias
    return y.view(*lead, out_features)


# the functions gathered here from no ops table (FUNCTIONAL entries are public already) honour __torch_function__
(adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d, avg_pool2d,
 avg_pool3d, embedding, fold, gumbel_softmax, interpolate, linear, log_softmax, lp_pool1d, lp_pool2d, lp_pool3d,
 max_unpool1d, max_unpool2d, max_unpool3d, one_hot, pad, softmax, softmin, unfold, upsample, upsample_bilinear,
 upsample_nearest) = map(_public, (
    adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
    avg_pool2d, avg_pool3d, embedding, fold, gumbel_softmax, interpolate, linear, log_softmax, lp_pool1d, lp_pool2d,
    lp_pool3d, max_unpool1d, max_unpool2d, max_unpool3d, one_hot, pad, softmax, softmin, unfold, upsample,
    upsample_bilinear, upsample_nearest))

# the families no first training step calls load at their first use (ops/__init__.py ON_FIRST_USE; public there),
# as does multi-head attention (nn/multi_head_attention.py)
__getattr__, __dir__ = lazy_names(__name__, globals(), {
    "multi_head_attention_forward": "webtorch.nn.multi_head_attention:multi_head_attention_forward",
    "scaled_dot_product_attention": "webtorch.ops.attention:scaled_dot_product_attention",
    **{n: f"webtorch.ops.fractional_pooling:{n}" for n in ("fractional_max_pool2d", "fractional_max_pool3d",
                                                            "fractional_max_pool2d_with_indices",
                                                            "fractional_max_pool3d_with_indices")},
    "affine_grid": "webtorch.ops.grid_sample:affine_grid", "grid_sample": "webtorch.ops.grid_sample:grid_sample",
    "embedding_bag": "webtorch.ops.embedding_bag:embedding_bag", "grouped_mm": "webtorch.ops.grouped_mm:grouped_mm"})
