"""softmax family and normalization layers against PyTorch: values, every gradient, running statistics,
the fused backward formulas in float64, double backward, node names and errors."""
import warnings

import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand

F64 = dict(atol=1e-10, rtol=1e-9, device="cpu")  # float64 is a cpu dtype (WebGPU has no f64)


def f64(*shape, low=-1.0, high=1.0):
    return rand(*shape, low=low, high=high).astype(np.float64)


# ---- softmax --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(dim, device):
    out = check(lambda m, x: (m.softmax(x, dim), m.log_softmax(x, dim), x.softmax(dim), x.log_softmax(dim=dim),
                              m.nn.functional.softmin(x, dim)), rand(3, 4, 5, low=-4, high=4), device=device)
    assert [o.grad_fn.name() for o in out[:2]] == ["SoftmaxBackward0", "LogSoftmaxBackward0"]


def test_softmax_fused_backward_float64():
    check(lambda m, x: (m.softmax(x, 1), m.log_softmax(x, -1)), f64(4, 6, low=-5, high=5), **F64)


def test_softmax_large_logits_stable(device):
    x = np.array([[1000.0, 0.0, -1000.0], [-1e4, -1e4, -1e4], [88.0, 89.0, 90.0]], dtype=np.float32)
    check(lambda m, x: (m.softmax(x, 1), m.log_softmax(x, 1)), x, device=device)


def test_softmax_all_neg_inf_row_is_nan(device):
    x = np.array([[-np.inf, -np.inf], [0.0, -np.inf]], dtype=np.float32)
    check(lambda m, x: m.softmax(x, 1), x, device=device, grad=False)


def test_softmax_dtype_argument(device):
    check(lambda m, x: (m.softmax(x, 0, dtype=m.float64), m.nn.functional.log_softmax(x, 1, dtype=m.float64)),
          rand(3, 4), device="cpu")  # float64 is a cpu dtype
    check(lambda m, x: m.softmax(x, 0, dtype=m.float32), np.arange(6).reshape(2, 3), device=device, grad=False)


def test_softmax_scalar_and_empty(device):
    check(lambda m, x: m.softmax(x, 0), np.array(2.5, dtype=np.float32), device=device)
    check(lambda m, x: m.log_softmax(x, 1), np.zeros((0, 3), dtype=np.float32), device=device)


def test_softmax_double_backward():
    def fn(m, x):
        y = m.softmax(x, 1) * m.log_softmax(x * 2, 1)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return g
    check(fn, f64(3, 4), **F64)


@pytest.mark.parametrize("ndim,expected", [(1, 0), (2, 1), (3, 0), (4, 1)])
def test_softmax_implicit_dim_warns(ndim, expected, device):
    x = rand(*([3] * ndim))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        out = webtorch.nn.functional.softmax(webtorch.tensor(x, device=device))
    np.testing.assert_allclose(out.cpu().numpy(), torch.softmax(torch.tensor(x), expected).numpy(), rtol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, x: (m.nn.functional.log_softmax(x), m.nn.functional.softmin(x)), x, device=device)


def test_softmax_errors(device):
    check_error(lambda m, x: m.softmax(x, 2), rand(3, 4), device=device, match="Dimension out of range")
    check_error(lambda m, x: m.softmax(x, 0), np.arange(4), device=device, match="not implemented for 'Long'")


# ---- layer norm -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,norm", [((4, 6), (6,)), ((2, 3, 4), (3, 4)), ((2, 3, 5), [5])])
def test_layer_norm(shape, norm, device):
    ns = tuple(norm)
    out = check(lambda m, x, w, b: m.nn.functional.layer_norm(x, norm, w, b), rand(*shape, low=-3, high=3),
                rand(*ns), rand(*ns), device=device, atol=1e-5, rtol=1e-4)
    assert out.grad_fn.name() == "NativeLayerNormBackward0"
    check(lambda m, x: m.nn.functional.layer_norm(x, norm, eps=1e-3), rand(*shape), device=device)
    check(lambda m, x, w: m.layer_norm(x, ns, w), rand(*shape), rand(*ns), device=device)


def test_layer_norm_fused_backward_float64():
    check(lambda m, x, w, b: m.nn.functional.layer_norm(x, (5,), w, b), f64(3, 4, 5, low=-3, high=3), f64(5),
          f64(5), **F64)
    check(lambda m, x, b: m.nn.functional.layer_norm(x, (4, 5), None, b), f64(3, 4, 5), f64(4, 5), **F64)


def test_layer_norm_double_backward():
    def fn(m, x, w, b):
        y = m.nn.functional.layer_norm(x, (4,), w, b)
        gx, gw = m.autograd.grad((y * y * y).sum(), (x, w), create_graph=True)
        return gx, gw
    check(fn, f64(3, 4), f64(4), f64(4), **F64)


def test_layer_norm_errors(device):
    check_error(lambda m, x: m.nn.functional.layer_norm(x, (3,)), rand(2, 4), device=device,
                match="Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 4]")
    check_error(lambda m, x, w: m.nn.functional.layer_norm(x, (4,), w), rand(2, 4), rand(3), device=device,
                match="Expected weight to be of same shape as normalized_shape")


# ---- batch / instance / group norm ------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4)])
def test_batch_norm_training_updates_running_stats(shape, device):
    rm0, rv0 = rand(3), rand(3, low=0.5, high=2.0)

    def fn(m, x, w, b):
        rm = m.tensor(rm0, device=x.device)
        rv = m.tensor(rv0, device=x.device)
        y = m.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)
        return y, rm, rv
    out = check(fn, rand(*shape, low=-2, high=3), rand(3), rand(3), device=device)
    assert out[0].grad_fn.name() == "NativeBatchNormBackward0"


def test_batch_norm_eval_and_no_affine(device):
    rm, rv = rand(3), rand(3, low=0.5, high=2.0)
    check(lambda m, x, w, b: m.nn.functional.batch_norm(x, m.tensor(rm, device=x.device), m.tensor(rv, device=x.device), w, b, training=False),
          rand(4, 3, 2), rand(3), rand(3), device=device)
    check(lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True), rand(5, 3, 2), device=device)
    check(lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False), rand(5, 3), rand(3),
          rand(3), device=device)


def test_batch_norm_backward_float64_and_double_backward():
    check(lambda m, x, w, b: m.nn.functional.batch_norm(x, None, None, w, b, training=True),
          f64(4, 3, 5, low=-2, high=2), f64(3), f64(3), **F64)

    def fn(m, x, w):
        y = m.nn.functional.batch_norm(x, None, None, w, None, training=True)
        return m.autograd.grad((y ** 3).sum(), (x, w), create_graph=True)
    check(fn, f64(4, 3), f64(3), **F64)


def test_batch_norm_errors(device):
    check_error(lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True), rand(1, 4), device=device,
                match="Expected more than 1 value per channel when training, got input size torch.Size([1, 4])")
    check_error(lambda m, x: m.nn.functional.batch_norm(x, None, None), rand(3, 4), device=device,
                match="running_mean must be defined in evaluation mode")
    check_error(lambda m, x, rm, rv: m.nn.functional.batch_norm(x, rm, rv), rand(3, 4), rand(5), rand(5),
                device=device, match="running_mean should contain 4 elements not 5")


def test_instance_norm(device):
    rm0, rv0 = rand(3), rand(3, low=0.5, high=2.0)

    def fn(m, x, w, b):
        rm, rv = m.tensor(rm0, device=x.device), m.tensor(rv0, device=x.device)
        return m.nn.functional.instance_norm(x, rm, rv, w, b, momentum=0.2), rm, rv
    check(fn, rand(2, 3, 5, low=-2, high=2), rand(3), rand(3), device=device)
    check(lambda m, x: m.nn.functional.instance_norm(x), rand(2, 3, 3, 2), device=device)
    check(lambda m, x: m.nn.functional.instance_norm(x, m.tensor(rm0, device=x.device), m.tensor(rv0, device=x.device), use_input_stats=False),
          rand(2, 3, 4), device=device)
    check_error(lambda m, x: m.nn.functional.instance_norm(x), rand(2, 3, 1), device=device,
                match="Expected more than 1 spatial element when training")


@pytest.mark.parametrize("shape,groups", [((2, 4, 6), 2), ((3, 8), 2), ((2, 4, 3, 3), 1), ((2, 4, 5), 4)])
def test_group_norm(shape, groups, device):
    out = check(lambda m, x, w, b: m.nn.functional.group_norm(x, groups, w, b), rand(*shape, low=-2, high=3),
                rand(shape[1]), rand(shape[1]), device=device)
    assert out.grad_fn.name() == "NativeGroupNormBackward0"
    check(lambda m, x: m.group_norm(x, groups), rand(*shape), device=device)


def test_group_norm_float64_and_errors(device):
    check(lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b, eps=1e-3), f64(3, 4, 5), f64(4), f64(4),
          **F64)
    check_error(lambda m, x: m.nn.functional.group_norm(x, 3), rand(2, 4, 6), device=device,
                match="Expected number of channels in input to be divisible by num_groups, but got input of shape "
                      "[2, 4, 6] and num_groups=3")
    check_error(lambda m, x: m.nn.functional.group_norm(x, 2), rand(4), device=device,
                match="Expected at least 2 dimensions for input tensor but received 1")


# ---- rms / local response norm, normalize, similarity ------------------------------------------------------

def test_rms_norm(device):
    check(lambda m, x, w: (m.nn.functional.rms_norm(x, (4,), w), m.rms_norm(x, [3, 4], eps=1e-3),
                           m.nn.functional.rms_norm(x, [4])), rand(2, 3, 4), rand(4), device=device)
    check(lambda m, x: m.nn.functional.rms_norm(x, (3,)), f64(5, 3), **F64)
    check_error(lambda m, x: m.nn.functional.rms_norm(x, (2,)), rand(2, 3), device=device,
                match="Given normalized_shape=[2]")


@pytest.mark.parametrize("shape,size", [((2, 5, 4), 3), ((2, 6, 3, 3), 2), ((1, 4, 2, 2, 2), 5)])
def test_local_response_norm(shape, size, device):
    check(lambda m, x: m.nn.functional.local_response_norm(x, size, alpha=0.1, beta=0.6, k=1.5),
          rand(*shape, low=-2, high=2), device=device)


def test_local_response_norm_error(device):
    check_error(lambda m, x: m.nn.functional.local_response_norm(x, 2), rand(2, 3), device=device,
                match="Expected 3D or higher dimensionality")


def test_normalize(device):
    check(lambda m, x: (m.nn.functional.normalize(x), m.nn.functional.normalize(x, p=1.0, dim=0),
                        m.nn.functional.normalize(x, p=3.0, dim=-1), m.nn.functional.normalize(x, p=float("inf"))),
          rand(3, 4), device=device)
    x = rand(3, 4)
    x[1] = 0.0
    check(lambda m, x: m.nn.functional.normalize(x), x, device=device)


def test_cosine_similarity_and_pairwise_distance(device):
    check(lambda m, a, b: (m.nn.functional.cosine_similarity(a, b), m.cosine_similarity(a, b, dim=-1, eps=1e-3),
                           m.nn.functional.pairwise_distance(a, b), m.pairwise_distance(a, b, p=1.0, keepdim=True),
                           m.nn.functional.pairwise_distance(a, b, p=3.0)), rand(4, 5), rand(4, 5), device=device)
    check(lambda m, a, b: m.nn.functional.cosine_similarity(a, b, dim=0), rand(3, 1), rand(3, 4), device=device)
    z = np.zeros((2, 3), dtype=np.float32)
    check(lambda m, a, b: m.nn.functional.cosine_similarity(a, b), z, rand(2, 3), device=device)
