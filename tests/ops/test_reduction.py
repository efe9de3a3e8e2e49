"""Reductions: prod, max/min/amax/amin/argmax/argmin/aminmax, var/std, logsumexp, norms, all/any, nan-sums."""
import math

import numpy as np
import pytest
import torch

import webtorch
from optest import check, check_error, rand, randint, webgpu_dtype_error

F64 = np.float64


# ---- prod ------------------------------------------------------------------------------------------------

def test_prod(device):
    check(lambda m, x: (x.prod(), x.prod(1), m.prod(x, 0, keepdim=True)), rand(3, 4, low=0.5, high=1.5),
          device=device)
    if device == "cpu":
        check(lambda m, x: x.prod(-1, dtype=m.float64), rand(3, 4), device=device)


def test_prod_grad_with_zeros(device):
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.5, 2.0, -1.0], [0.0, 5.0, 0.5]], dtype=np.float32)
    check(lambda m, t: (t.prod(1), t.prod(0)), x, device=device)
    check(lambda m, t: t.prod(), x[0], device=device)
    check(lambda m, t: t.prod(), x[1], device=device)


def test_prod_float64_grad(device):
    with webgpu_dtype_error(device):
        check(lambda m, x: (x.prod(1), x.prod()), rand(3, 4, dtype=F64) + 0.2, device=device, atol=1e-12, rtol=1e-10)


def test_prod_dtypes(device):
    check(lambda m, x: (x.prod(), x.prod(0), x.prod(dtype=m.float32)), randint(1, 4, 2, 3), device=device)
    check(lambda m, x: x.prod(), np.array([True, True, False]), device=device)


# ---- max / min ----------------------------------------------------------------------------------------------

def test_max_min_full_ties_split(device):
    x = np.array([[1.0, 3.0, 3.0], [3.0, -2.0, -2.0]], dtype=np.float32)
    check(lambda m, t: (t.max(), t.min(), m.max(t), m.amax(t), m.amin(t, (0, 1))), x, device=device)


def test_max_min_dim_namedtuple(device):
    x = rand(3, 4, 5)
    out = check(lambda m, t: (t.max(1), t.min(-1, keepdim=True), m.max(t, dim=0), t.max(dim=2, keepdim=False)),
                x, device=device)
    r = out[0]
    assert type(r).__name__ == "max" and r.values is r[0] and r.indices is r[1]
    tr = torch.tensor(x).max(1)
    assert repr(webtorch.tensor(x).max(1)).splitlines()[0] == repr(tr).splitlines()[0] == "torch.return_types.max("
    v, i = webtorch.tensor(x).min(0)
    assert i.dtype == webtorch.int64 and v.shape == (4, 5)


def test_max_binary_and_zero_dim(device):
    check(lambda m, a, b: (m.max(a, b), m.min(a, b), a.max(b)), rand(3, 4), rand(4), device=device)
    check(lambda m, a: (a.max(), a.max(0), a.argmax(), a.argmax(0)), rand(), device=device)


def test_amax_amin_dims_and_ties(device):
    x = np.array([[[1.0, 4.0], [4.0, 2.0]], [[0.5, 0.5], [0.5, 0.5]]], dtype=np.float32)
    check(lambda m, t: (t.amax((1, 2)), t.amin(1, keepdim=True), m.amax(t, -1), t.amin((0, 2))), x,
          device=device)
    check(lambda m, t: (t.amax(1), t.amin((0, 1))), rand(3, 4, 2), device=device)


def test_max_nan(device):
    x = np.array([[1.0, np.nan, 3.0], [2.0, 0.0, -1.0]], dtype=np.float32)
    check(lambda m, t: (t.max(1), t.amax(1), t.min(1), t.argmax(1)), x, device=device)


def test_argmax_argmin(device):
    x = rand(3, 4, 5)
    check(lambda m, t: (t.argmax(), t.argmin(), t.argmax(1), t.argmin(-1, keepdim=True), m.argmax(t, 0, True),
                        t.argmax(keepdim=True)), x, device=device)
    check(lambda m, t: (t.argmax(), t.argmin(0)), randint(0, 100, 4, 3), device=device)


def test_aminmax(device):
    x = np.array([[1.0, 3.0, 3.0], [3.0, -2.0, 0.0]], dtype=np.float32)
    out = check(lambda m, t: (m.aminmax(t), m.aminmax(t, dim=1), t.aminmax(dim=0, keepdim=True)), x, device=device)
    assert out[0].min is out[0][0] and out[0].max is out[0][1]
    assert repr(out[0]).startswith("torch.return_types.aminmax(\nmin=")


def test_extrema_int_and_bool(device):
    check(lambda m, t: (t.max(), t.min(1), t.amax(0), t.argmin()), randint(-5, 5, 3, 4), device=device)
    check(lambda m, t: (t.max(), t.amin(0)), np.array([[True, False], [False, False]]), device=device)


def test_extrema_empty_errors(device):
    check_error(lambda m, t: t.max(), np.zeros((0,), np.float32), device=device,
                match="max(): Expected reduction dim to be specified for input.numel() == 0.")
    check_error(lambda m, t: t.max(0), np.zeros((0, 3), np.float32), device=device,
                match="max(): Expected reduction dim 0 to have non-zero size.")
    check_error(lambda m, t: t.amax(0), np.zeros((0, 3), np.float32), device=device,
                match="amax(): Expected reduction dim 0 to have non-zero size.")
    check_error(lambda m, t: t.argmax(), np.zeros((0,), np.float32), device=device,
                match="argmax(): Expected reduction dim to be specified for input.numel() == 0.")
    check(lambda m, t: (t.max(1), t.amax(1)), np.zeros((0, 3), np.float32), device=device)


def test_extrema_node_names(device):
    x = webtorch.rand(3, 4, device=device, requires_grad=True)
    assert x.max().grad_fn.name() == "MaxBackward1"
    assert x.max(1).values.grad_fn.name() == "MaxBackward0"
    assert x.min().grad_fn.name() == "MinBackward1"
    assert x.min(0)[0].grad_fn.name() == "MinBackward0"
    assert x.amax(0).grad_fn.name() == "AmaxBackward0"
    assert x.amin(0).grad_fn.name() == "AminBackward0"
    assert webtorch.aminmax(x).max.grad_fn.name() == "AminmaxBackward0"
    assert x.max(1).indices.requires_grad is False


# ---- var / std ------------------------------------------------------------------------------------------

def test_var_std_forms(device):
    check(lambda m, x: (x.var(), x.std(), x.var(1), x.std(0, keepdim=True), x.var(False), x.std(1, True),
                        x.var(dim=(0, 2), correction=0), m.std(x, dim=1, unbiased=False), x.var(-1, keepdim=True),
                        x.std(correction=2)), rand(3, 4, 5), device=device)


def test_var_mean_std_mean(device):
    check(lambda m, x: (m.var_mean(x), m.var_mean(x, 1), m.std_mean(x, (0, 1), keepdim=True),
                        m.std_mean(x, 0, correction=0)), rand(3, 4, 2), device=device)


def test_var_std_float64_grads(device):
    with webgpu_dtype_error(device):
        check(lambda m, x: (x.var(1), x.std(0), m.var_mean(x, 1), m.std_mean(x)), rand(4, 5, dtype=F64),
              device=device, atol=1e-12, rtol=1e-10)


def test_var_node_names_and_errors(device):
    x = webtorch.rand(3, 4, device=device, requires_grad=True)
    assert x.var().grad_fn.name() == "VarBackward0" and x.std(1).grad_fn.name() == "StdBackward0"
    assert webtorch.var_mean(x)[0].grad_fn.name() == "VarMeanBackward0"
    assert webtorch.std_mean(x)[1].grad_fn.name() == "StdMeanBackward0"
    check_error(lambda m, t: t.var(), randint(0, 3, 4), device=device,
                match="std and var only support floating point and complex dtypes")
    check(lambda m, t: (t.var(), t.std(0)), rand(1, 3), device=device, grad=False)


def test_std_zero_spread_grad(device):
    check(lambda m, x: x.std(1), np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]], dtype=np.float32), device=device)


# ---- logsumexp ---------------------------------------------------------------------------------------------

def test_logsumexp(device):
    check(lambda m, x: (x.logsumexp(1), m.logsumexp(x, (0, 2), keepdim=True), x.logsumexp(-1)), rand(3, 4, 2),
          device=device)


def test_logsumexp_stable_and_inf(device):
    x = np.array([[1000.0, 1000.0, -1000.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0]], dtype=np.float32)
    check(lambda m, t: t.logsumexp(1), x, device=device, grad=False)
    check(lambda m, t: t.logsumexp(1), x[:1], device=device)
    check(lambda m, t: t.logsumexp(0), randint(0, 5, 4), device=device)


def test_logsumexp_float64(device):
    with webgpu_dtype_error(device):
        check(lambda m, x: x.logsumexp(1), rand(3, 6, dtype=F64) * 5, device=device, atol=1e-12, rtol=1e-10)


# ---- norms ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2, 1, math.inf, -math.inf, 3, 0.5, 0, "fro"])
def test_norm_p(p, device):
    check(lambda m, x: (x.norm(p), m.norm(x, p, dim=1), x.norm(p, dim=(0, 1), keepdim=True)), rand(3, 4, 2),
          device=device)


def test_norm_ties_and_zero(device):
    x = np.array([[3.0, -3.0, 1.0], [0.0, 0.0, 0.0]], dtype=np.float32)
    check(lambda m, t: (t.norm(math.inf, dim=1), m.linalg.vector_norm(t, -math.inf, dim=1)), x, device=device)
    check(lambda m, t: t.norm(dim=1), x, device=device)


def test_linalg_norms(device):
    check(lambda m, x: (m.linalg.vector_norm(x), m.linalg.vector_norm(x, 1, dim=-1), m.linalg.vector_norm(
        x, 3.5, dim=(0, 2), keepdim=True), m.linalg.norm(x), m.linalg.norm(x, dim=1)), rand(2, 3, 4), device=device)
    check(lambda m, a: (m.linalg.matrix_norm(a), m.linalg.matrix_norm(a, 1), m.linalg.matrix_norm(a, -1),
                        m.linalg.matrix_norm(a, math.inf), m.linalg.matrix_norm(a, -math.inf, keepdim=True),
                        m.linalg.norm(a[0], 1), m.linalg.norm(a[0], "fro"), m.linalg.norm(a, math.inf, dim=(1, 2))),
          rand(2, 3, 4), device=device)


def test_norm_float64_grads(device):
    with webgpu_dtype_error(device):
        check(lambda m, x: (x.norm(), x.norm(3, dim=1), m.linalg.vector_norm(x, 0.5), m.linalg.matrix_norm(x, 1)),
              rand(3, 4, dtype=F64), device=device, atol=1e-12, rtol=1e-10)


def test_norm_errors(device):
    check_error(lambda m, x: m.linalg.vector_norm(x), randint(0, 3, 4), device=device,
                match="linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long")
    x = webtorch.rand(3, device=device, requires_grad=True)
    assert x.norm().grad_fn.name() == "LinalgVectorNormBackward0"


# ---- logical reductions, counting, NaN-aware -------------------------------------------------------------------

def test_all_any(device):
    b = np.array([[True, False, True], [True, True, True]])
    check(lambda m, t: (t.all(), t.any(), t.all(1), t.any(0, keepdim=True), m.all(t, dim=(0, 1))), b,
          device=device)
    check(lambda m, t: (t.all(), t.any(1)), randint(0, 2, 3, 4), device=device)
    check(lambda m, t: (t.all(), t.any(0)), np.array([1, 2, 0], dtype=np.uint8), device=device)  # uint8 keeps uint8
    check(lambda m, t: (t.all(), t.any(0)), rand(3, 2), device=device)


def test_count_nonzero(device):
    x = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]], dtype=np.float32)
    check(lambda m, t: (m.count_nonzero(t), t.count_nonzero(0), m.count_nonzero(t, dim=(0, 1))), x, device=device)


def test_nansum_nanmean(device):
    x = np.array([[np.nan, 1.0, 2.0], [3.0, np.nan, np.nan]], dtype=np.float32)
    check(lambda m, t: (t.nansum(), t.nansum(1), m.nansum(t, 0, keepdim=True), t.nanmean(), t.nanmean(1)), x,
          device=device)
    check(lambda m, t: t.nansum(), randint(0, 4, 5), device=device)
    check_error(lambda m, t: t.nanmean(), randint(0, 4, 5), device=device,
                match="nanmean(): expected input to have floating point or complex dtype but got Long")
    t = webtorch.tensor(x, device=device, requires_grad=True)
    assert t.nansum().grad_fn.name() == "NansumBackward0"
