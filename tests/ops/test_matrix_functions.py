"""matrix_exp, geqrf and linalg.householder_product (orgqr) against PyTorch: values, batches, dtypes, gradients
(composed from Tensor ops: the autograd of the composition) and errors, on every device."""
import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES
from optest import RNG, check, check_error, rand, webgpu_dtype_error


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("scale", [0.1, 1.0, 6.0])  # 6: ||A||_1 > 1, so scaling and squaring runs
def test_matrix_exp_values_and_grad(device, scale):
    check(lambda m, a: m.matrix_exp(a), rand(2, 4, 4) * scale, device=device, atol=2e-4 * scale ** 2,
          rtol=2e-4)
    check(lambda m, a: m.linalg.matrix_exp(a).sum(-1), rand(3, 3), device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_matrix_exp_float64_and_empty(device):
    with webgpu_dtype_error(device):
        check(lambda m, a: m.matrix_exp(a), rand(5, 5, dtype=np.float64) * 3, device=device, atol=1e-10,
              rtol=1e-10)
    check(lambda m, a: m.matrix_exp(a), rand(0, 0), device=device, grad=False)
    check(lambda m, a: m.matrix_exp(a), rand(3, 0, 0), device=device, grad=False)


@pytest.mark.parametrize("device", DEVICES)
def test_matrix_exp_errors(device):
    check_error(lambda m, a: m.matrix_exp(a), rand(3), device=device, match="at least 2 dimensions")
    check_error(lambda m, a: m.matrix_exp(a), rand(3, 2), device=device, match="square matrices")
    check_error(lambda m, a: m.matrix_exp(a), np.ones((3, 3), np.int32), device=device, match="Got Int")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(6, 4), (4, 4), (3, 5), (2, 5, 3)])
def test_geqrf_is_lapacks(device, shape):
    out = check(lambda m, a: m.geqrf(a), rand(*shape), device=device, grad=False)
    assert type(out).__name__ == "geqrf" and out.a.grad_fn is None


@pytest.mark.parametrize("device", DEVICES)
def test_geqrf_zero_column_skips_its_reflector(device):
    a = rand(4, 3)
    a[1:, 0] = 0  # x = 0 under the diagonal: tau 0, R keeps alpha (LAPACK's dlarfg)
    check(lambda m, a: m.geqrf(a), a, device=device, grad=False)
    check(lambda m, a: a.geqrf(), -np.abs(a), device=device, grad=False)


@pytest.mark.parametrize("device", DEVICES)
def test_geqrf_errors(device):
    check_error(lambda m, a: m.geqrf(a), rand(3), device=device, match="at least 2 dimensions")
    check_error(lambda m, a: m.geqrf(a), np.ones((3, 3), np.int32), device=device, match="not implemented for 'Int'")

    def backprop(m, a):
        m.geqrf(a.requires_grad_())[0].sum().backward()
    with pytest.raises(RuntimeError):  # torch: NotImplementedError (no derivative); webtorch: no grad_fn
        backprop(webtorch, webtorch.ones(3, 2, device=device))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,k", [((5, 3), 3), ((5, 3), 2), ((4, 4), 4), ((2, 6, 2), 1)])
def test_householder_product_values_and_grad(device, shape, k):
    tau = rand(*shape[:-2], k, low=0.2, high=1.5)
    check(lambda m, a, t: m.linalg.householder_product(a, t), rand(*shape), tau, device=device)
    check(lambda m, a, t: m.orgqr(a, t), rand(*shape), tau, device=device, grad=False)


@pytest.mark.parametrize("device", DEVICES)
def test_householder_product_inverts_geqrf(device):
    a = RNG.standard_normal((3, 6, 4)).astype(np.float32)
    check(lambda m, x: m.linalg.householder_product(*m.geqrf(x)), a, device=device, grad=False)


@pytest.mark.parametrize("device", DEVICES)
def test_householder_product_errors(device):
    hp = lambda m, a, t: m.linalg.householder_product(a, t)  # noqa: E731
    check_error(hp, rand(3), rand(3), device=device, match="at least 2 dimensions")
    check_error(hp, rand(2, 3), rand(2), device=device, match="input.shape[-2] must be greater")
    check_error(hp, rand(4, 3), rand(4), device=device, match="input.shape[-1] must be greater")
    check_error(hp, rand(2, 4, 3), rand(3, 2), device=device, match="batch dimensions of tau")
    if device == "cpu":
        check_error(hp, rand(4, 3), rand(2, dtype=np.float64), device=device, match="tau dtype Double")
