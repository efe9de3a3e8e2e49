"""Inputs with a zero-size dim, and the errors around them, as PyTorch 2.13 gives them (issue 21 section 2, the
bad-input sweep's zero-size classes): where PyTorch returns an empty or zero result, the same shape, dtype, values
and gradients; where it refuses, the same exception type."""
import numpy as np
import pytest

from optest import check, check_error, rand


def _sdpa(m, q, k, v, **kw):
    return m.nn.functional.scaled_dot_product_attention(q, k, v, **kw)


def _stats(m, x, c=3):
    return m.zeros(c, device=x.device), m.ones(c, device=x.device)


def _arrays(shapes):
    return [np.asarray(rand(*s)) for s in shapes]   # rand() of no dim is a NumPy scalar: a 0-dim array here


def _inf_query():
    q = rand(2, 3)
    q[0, 0] = np.inf
    return q


RESULTS = {
    # group norm: an empty batch, an empty group (NaN weight gradient, as PyTorch's), no channel
    "group_norm_empty_batch": (lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b), (0, 3, 4), (3,), (3,)),
    "group_norm_empty_group": (lambda m, x, w, b: m.nn.functional.group_norm(x, 3, w, b), (2, 3, 0), (3,), (3,)),
    "torch_group_norm_empty_batch": (lambda m, x: m.group_norm(x, 1), (0, 3)),
    "torch_group_norm_no_channel": (lambda m, x: m.group_norm(x, 1), (2, 0)),
    # batch norm of no element: a copy times weight[0] plus bias[0], whatever the channel count
    "batch_norm_train_empty_batch": (lambda m, x, w, b: m.nn.functional.batch_norm(x, *_stats(m, x), w, b, True),
                                     (0, 3, 4), (3,), (3,)),
    "batch_norm_eval_no_channel": (lambda m, x, w, b: m.nn.functional.batch_norm(x, *_stats(m, x), w, b),
                                   (2, 0, 4), (3,), (3,)),
    "batch_norm_train_empty_length": (lambda m, x, w: m.nn.functional.batch_norm(x, None, None, w, training=True),
                                      (2, 3, 0), (3,)),
    "batch_norm_no_running_stats_in_eval": (lambda m, x: m.nn.functional.batch_norm(x, None, None), (0, 3)),
    "torch_batch_norm_wrong_channel_count": (lambda m, x, w: m.batch_norm(x, w, None, None, None, True, 0.1, 1e-5,
                                                                          True), (0, 3, 2), (5,)),
    # adaptive average pooling: an empty batch or channel dim (its window dims must not be empty); an empty output
    "adaptive_avg_pool1d_no_channel": (lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, 3), (2, 0, 4)),
    "adaptive_avg_pool1d_unbatched_empty": (lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, 3), (0, 4)),
    "adaptive_avg_pool2d_no_channel": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 3), (2, 0, 4, 4)),
    "adaptive_avg_pool2d_empty_batch": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (2, 3)), (0, 3, 4, 4)),
    "adaptive_avg_pool2d_output_0": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (None, 0)), (2, 3, 4, 4)),
    "adaptive_avg_pool3d_empty_batch": (lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, 2), (0, 3, 4, 4, 4)),
    "adaptive_max_pool1d_output_0": (lambda m, x: m.nn.functional.adaptive_max_pool1d(x, 0), (2, 3)),
    "adaptive_max_pool2d_output_0_indices": (
        lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (0, 2), return_indices=True), (2, 3, 4, 4)),
    "adaptive_max_pool2d_empty_batch": (lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 3), (0, 3, 4, 4)),
    # attention: no query row or no value gives zeros of (..., L, Ev), key unchecked, gradients zeros
    "sdpa_no_value": (_sdpa, (2, 3), (2, 3), (0, 3)),
    "sdpa_no_query_row_key_unchecked": (_sdpa, (0, 3), (2, 5), (2, 3)),
    "sdpa_no_key_no_value": (_sdpa, (2, 3), (0, 3), (0, 5)),
    "sdpa_value_batch_0": (_sdpa, (2, 3), (2, 3), (0, 2, 3)),
    "sdpa_query_batch_0_computed": (_sdpa, (0, 2, 3), (2, 3), (2, 3)),
    "sdpa_value_width_0": (_sdpa, (2, 3), (4, 3), (5, 0)),
    "sdpa_no_value_causal": (lambda m, q, k, v: _sdpa(m, q, k, v, is_causal=True), (2, 3), (2, 3), (0, 3)),
    "sdpa_zero_width_head": (_sdpa, (2, 0), (2, 0), (2, 3)),
    "sdpa_zero_width_head_scale": (lambda m, q, k, v: _sdpa(m, q, k, v, scale=2.0), (1, 2, 0), (1, 2, 0), (1, 2, 3)),
    # cumulative_trapezoid and diag_embed of an empty dim
    "cumulative_trapezoid_empty_dim": (lambda m, y: m.cumulative_trapezoid(y), (2, 0)),
    "cumulative_trapezoid_one_sample": (lambda m, y: m.cumulative_trapezoid(y), (2, 1)),
    "cumulative_trapezoid_empty_batch": (lambda m, y: m.cumulative_trapezoid(y, dx=2.0), (0, 3)),
    "cumulative_trapezoid_empty_x": (lambda m, y, x: m.cumulative_trapezoid(y, x), (2, 0), (0,)),
    "diag_embed_empty_batch": (lambda m, x: m.diag_embed(x), (0, 3)),
    "diag_embed_empty_diagonal": (lambda m, x: m.diag_embed(x, 1), (2, 0)),
    # a convolution of an input with no channel keeps 0 channels (not the weight's out-channels)
    "conv2d_no_channel": (lambda m, x, w, b: m.nn.functional.conv2d(x, w, b), (2, 0, 4, 4), (5, 0, 2, 2), (5,)),
    "conv2d_no_channel_groups": (lambda m, x, w: m.nn.functional.conv2d(x, w, groups=2, stride=2, padding=1),
                                 (2, 0, 4, 4), (4, 0, 2, 2)),
    "conv2d_no_channel_unbatched": (lambda m, x, w: m.nn.functional.conv2d(x, w), (0, 4, 4), (5, 0, 2, 2)),
    "conv1d_no_channel_dilated": (lambda m, x, w, b: m.nn.functional.conv1d(x, w, b, dilation=2), (2, 0, 4),
                                  (5, 0, 2), (5,)),
    "conv3d_empty_batch": (lambda m, x, w, b: m.nn.functional.conv3d(x, w, b), (0, 3, 3, 3, 3), (2, 3, 2, 2, 2), (2,)),
    # grid_sample of an empty batch, channel or grid (its window dims must not be empty)
    "grid_sample_empty_batch": (lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=False),
                                (0, 3, 4, 4), (0, 2, 2, 2)),
    "grid_sample_no_channel": (lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=False),
                               (2, 0, 4, 4), (2, 2, 2, 2)),
    "grid_sample_empty_grid": (lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=True),
                               (2, 3, 4, 4), (2, 0, 2, 2)),
    "grid_sample_3d_empty_batch": (lambda m, x, g: m.nn.functional.grid_sample(x, g, align_corners=False),
                                   (0, 3, 4, 4, 4), (0, 2, 2, 2, 3)),
}


# PyTorch's backward of these refuses a grad_output with an empty non-batch dim: the forward is compared here, the
# backward's error in test_adaptive_pool_backward_refuses_an_empty_non_batch_dim
NO_BACKWARD = {"adaptive_avg_pool1d_no_channel", "adaptive_avg_pool2d_no_channel", "adaptive_avg_pool2d_output_0",
               "adaptive_max_pool1d_output_0", "adaptive_max_pool2d_output_0_indices"}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_zero_size_result_as_torch(name, device):
    fn, *shapes = RESULTS[name]
    check(fn, *_arrays(shapes), device=device, grad=name not in NO_BACKWARD)


@pytest.mark.parametrize("name", sorted(NO_BACKWARD))
def test_adaptive_pool_backward_refuses_an_empty_non_batch_dim(name, device):
    fn, *shapes = RESULTS[name]
    check_error(lambda m, x: fn(m, x.requires_grad_())[0].sum().backward() if "indices" in name else
                fn(m, x.requires_grad_()).sum().backward(), *_arrays(shapes), device=device,
                match="Expected grad_output to have non-zero size for non-batch dimensions")


def test_sdpa_empty_shortcut_spreads_nan_from_any_input(device):
    check(_sdpa, _inf_query(), rand(2, 3), rand(0, 3), device=device)


def test_batch_norm_of_no_integer_element_keeps_its_dtype(device):
    x = np.ones((0, 3, 2), dtype=np.int64)
    check(lambda m, x: m.nn.functional.batch_norm(x, *_stats(m, x), training=True), x, device=device)
    check(lambda m, x: m.nn.functional.batch_norm(x, *_stats(m, x), m.ones(3, device=x.device), training=True), x,
          device=device)


def test_adaptive_avg_pool2d_of_empty_output_checks_no_dtype(device):
    x = np.ones((2, 0, 4, 4), dtype=np.int64)
    check(lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 3), x, device=device)


ERRORS = {
    # torch.group_norm reads the batch and channel sizes first; F.group_norm checks the rank and the batch size
    "torch_group_norm_0_dim": (lambda m, x: m.group_norm(x, 1), (), "Dimension specified as 0"),
    "torch_group_norm_1_dim": (lambda m, x: m.group_norm(x, 1), (3,), "Dimension out of range"),
    "group_norm_1_dim": (lambda m, x: m.nn.functional.group_norm(x, 1), (3,), "at least 2 dimensions"),
    "group_norm_one_value_per_group": (lambda m, x: m.nn.functional.group_norm(x, 3), (1, 3),
                                       "Expected more than 1 value per channel when training, got input size [1, 3]"),
    "group_norm_indivisible_empty": (lambda m, x: m.nn.functional.group_norm(x, 2), (0, 3), "divisible by num_groups"),
    "batch_norm_zero_eps_training": (lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True, eps=0.0),
                                     (2, 3), "must be positive during training"),
    "batch_norm_no_weight_element": (lambda m, x, w: m.nn.functional.batch_norm(x, None, None, w, training=True),
                                     (2, 0, 4), (0,), None),
    # adaptive pooling: a negative output size; an empty window dim
    "adaptive_avg_pool1d_negative": (lambda m, x: m.nn.functional.adaptive_avg_pool1d(x, -3), (2, 3),
                                     "elements of output_size must be greater than or equal to 0 but received {1, -3}"),
    "adaptive_avg_pool2d_negative": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, (3, -1)), (2, 3, 4, 4),
                                     "greater than or equal to 0"),
    "adaptive_avg_pool3d_negative": (lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, -2), (1, 2, 3, 3),
                                     "greater than or equal to 0"),
    "adaptive_max_pool1d_negative": (lambda m, x: m.nn.functional.adaptive_max_pool1d(x, -3), (2, 3),
                                     "Trying to create tensor with negative dimension -3: [2, 1, -3]"),
    "adaptive_max_pool2d_negative": (lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (2, -2)), (2, 3, 4, 4),
                                     "negative dimension -2"),
    "adaptive_avg_pool2d_empty_window": (lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 3), (2, 3, 0, 4),
                                         "with dimension 2 being empty"),
    "adaptive_avg_pool3d_no_channel": (lambda m, x: m.nn.functional.adaptive_avg_pool3d(x, 3), (2, 0, 4, 4, 4),
                                       "with dimension 1 being empty"),
    "adaptive_max_pool2d_no_channel": (lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 3), (2, 0, 4, 4),
                                       "with dimension 1 being empty"),
    # attention: the rank check comes first; a zero-width query meets the key's width in the matmul
    "sdpa_0_dim_query": (_sdpa, (), (2, 3), (2, 3), "at least 2 dimensional"),
    "sdpa_0_dim_key": (_sdpa, (2, 3), (), (2, 3), "key.dim: 0"),
    "sdpa_1_dim": (_sdpa, (3,), (3,), (3,), "at least 2 dimensional"),
    "sdpa_zero_width_query": (_sdpa, (2, 0), (2, 3), (2, 3), "cannot be multiplied"),
    "sdpa_no_key_with_values": (_sdpa, (2, 3), (0, 3), (2, 3), "cannot be multiplied"),
    # cumulative_trapezoid: x must fit y
    "cumulative_trapezoid_empty_y_full_x": (lambda m, y, x: m.cumulative_trapezoid(y, x), (2, 0), (2, 3),
                                            "must match the size"),
    "cumulative_trapezoid_short_1d_x": (lambda m, y, x: m.cumulative_trapezoid(y, x), (2, 3), (2,),
                                        "There must be one `x` value for each sample point"),
    # a transposed convolution of an empty spatial dim (an empty batch or channel dim is fine)
    "conv_transpose1d_empty_length": (lambda m, x, w: m.nn.functional.conv_transpose1d(x, w), (2, 3, 0), (3, 3, 2),
                                      "Only zero batch or zero channel inputs are supported"),
    "conv_transpose2d_empty_height": (lambda m, x, w: m.nn.functional.conv_transpose2d(x, w), (2, 3, 0, 4),
                                      (3, 3, 2, 2), "but got input shape: [2, 3, 0, 4]"),
    "conv2d_no_channel_kernel_too_big": (lambda m, x, w: m.nn.functional.conv2d(x, w), (2, 0, 1, 1), (5, 0, 2, 2),
                                         "Kernel size can't be greater than actual input size"),
    "conv_transpose2d_weight_below_groups": (lambda m, x, w: m.nn.functional.conv_transpose2d(x, w), (2, 0, 4, 4),
                                             (0, 2, 2, 2), "expected weight to be at least 1 at dimension 0"),
    "conv_transpose3d_empty_width_padded": (lambda m, x, w: m.nn.functional.conv_transpose3d(x, w, padding=1),
                                            (2, 3, 4, 4, 0), (3, 3, 2, 2, 2), "Only zero batch"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_zero_size_error_as_torch(name, device):
    fn, *shapes, match = ERRORS[name]
    check_error(fn, *_arrays(shapes), device=device, match=match)


def test_conv_transpose3d_of_empty_batch_returns(device):
    check(lambda m, x, w: m.nn.functional.conv_transpose3d(x, w), rand(0, 3, 2, 2, 2), rand(3, 2, 2, 2, 2),
          device=device)
