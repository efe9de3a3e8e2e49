"""torch.linalg decompositions: cholesky(_ex), solve_triangular, cholesky_solve, slogdet/logdet, qr, eigh/eigvalsh,
svd/svdvals, pinv, matrix_rank, lstsq, matrix_power -- values, dtypes, batches, empty inputs, gradients, node names
and errors against PyTorch. Eigen/singular vectors are fixed only up to sign: those compare gauge-invariant
quantities (reconstructions, |V|)."""
import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES
from optest import RNG, check, check_error, rand, randint, webgpu_dtype_error

F64 = np.float64


def spd(*batch, n, dtype=np.float32):
    x = RNG.standard_normal(batch + (n, n))
    return (x @ np.swapaxes(x, -1, -2) + n * np.eye(n)).astype(dtype)


def tri(*shape, dtype=np.float32):
    """A full matrix whose triangles are both well-conditioned triangular matrices (diagonal away from 0): the
    solver must read only the triangle it is told to, or its result differs from PyTorch's."""
    return rand(*shape, dtype=dtype) + np.eye(shape[-1], dtype=dtype) * 3


def distinct_sym(*batch, n, dtype=np.float32):
    """Symmetric with well-separated eigenvalues 1..n (eigh gradients need distinct ones)."""
    q, _ = np.linalg.qr(RNG.standard_normal(batch + (n, n)))
    w = np.arange(1, n + 1, dtype=np.float64) * 1.5
    return ((q * w[..., None, :]) @ np.swapaxes(q, -1, -2)).astype(dtype)


def full_rank(*shape, dtype=np.float32):
    """Singular values in [1, 2]: pinv and its gradient stay well-conditioned (a random square matrix can be near
    singular, and its pinv's gradient, ~1e5, then differs from PyTorch's beyond float32 tolerance)."""
    *batch, rows, cols = shape
    k = min(rows, cols)
    u, _ = np.linalg.qr(RNG.standard_normal((*batch, rows, k)))
    v, _ = np.linalg.qr(RNG.standard_normal((*batch, cols, k)))
    s = RNG.uniform(1, 2, (*batch, k))
    return ((u * s[..., None, :]) @ np.swapaxes(v, -1, -2)).astype(dtype)


def node_name(t):
    return t.grad_fn.name()


def grad_tensor(a, device):
    return webtorch.tensor(a, device=device, requires_grad=True)


# ---- cholesky --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(1,), (4,), (2, 3, 5), (0, 3)])
def test_cholesky(shape, device):
    *batch, n = shape
    a = spd(*batch, n=n)
    check(lambda m, A: (m.linalg.cholesky(A), m.linalg.cholesky(A, upper=True)), a, device=device,
          atol=1e-4, rtol=1e-4)
    check(lambda m, A: m.linalg.cholesky_ex(A), a, device=device, atol=1e-4, rtol=1e-4)


def test_cholesky_float64_and_lower_triangle_only(device):
    with webgpu_dtype_error(device):
        a = spd(2, n=4, dtype=F64)
        junk = np.triu(rand(2, 4, 4, dtype=F64), 1)  # cholesky reads the lower triangle only
        check(lambda m, A: (m.linalg.cholesky(A + m.tensor(junk)), m.linalg.cholesky(A + m.tensor(junk).mT, upper=True)),
              a, device=device, atol=1e-10, rtol=1e-8)
    assert node_name(webtorch.linalg.cholesky(grad_tensor(spd(n=3), device))) == "LinalgCholeskyExBackward0"


def test_cholesky_double_backward():
    a = torch.tensor(spd(n=3, dtype=F64), requires_grad=True)
    w = webtorch.tensor(a.detach().numpy(), requires_grad=True)
    (gt,) = torch.autograd.grad(torch.linalg.cholesky(a).pow(2).sum(), a, create_graph=True)
    (gw,) = webtorch.autograd.grad(webtorch.linalg.cholesky(w).pow(2).sum(), w, create_graph=True)
    (ggt,) = torch.autograd.grad(gt.sin().sum(), a)
    (ggw,) = webtorch.autograd.grad(gw.sin().sum(), w)
    np.testing.assert_allclose(ggw.numpy(), ggt.numpy(), rtol=1e-8, atol=1e-10)


def test_cholesky_errors(device):
    not_pd = np.array([[1., 2., 0.], [2., 1., 0.], [0., 0., 1.]], np.float32)
    err = check_error(lambda m, A: m.linalg.cholesky(A), not_pd, device=device,
                      match="linalg.cholesky: The factorization could not be completed because the input is not "
                            "positive-definite (the leading minor of order 2 is not positive-definite).")
    assert isinstance(err, webtorch.linalg.LinAlgError)
    batch = np.stack([np.eye(3, dtype=np.float32), np.eye(3, dtype=np.float32), not_pd])
    check_error(lambda m, A: m.linalg.cholesky(A), batch, device=device,
                match="linalg.cholesky: (Batch element 2): The factorization could not be completed because the input "
                      "is not positive-definite (the leading minor of order 2 is not positive-definite).")
    check_error(lambda m, A: m.linalg.cholesky_ex(A, check_errors=True), not_pd, device=device,
                match="linalg.cholesky_ex: The factorization")
    check(lambda m, A: m.linalg.cholesky_ex(A).info, batch, device=device)
    check_error(lambda m, A: m.linalg.cholesky(A), rand(2, 3), device=device,
                match="linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices")
    check_error(lambda m, A: m.linalg.cholesky(A), randint(0, 3, 3, 3), device=device,
                match="linalg.cholesky: Expected a floating point or complex tensor as input. Got Long")


# ---- triangular solves ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(upper, left, unit, device):
    a = tri(2, 4, 4)
    b = rand(2, 4, 3) if left else rand(2, 3, 4)
    check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unit), a, b,
          device=device, atol=1e-4, rtol=1e-4)


def test_solve_triangular_broadcast_float64_empty(device):
    check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True), tri(4, 4), rand(3, 4, 2), device=device,
          atol=1e-4, rtol=1e-4)
    check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=False), tri(2, 1, 3, 3), rand(5, 3, 0),
          device=device)
    with webgpu_dtype_error(device):
        check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=False, left=False), tri(3, 3, dtype=F64),
              rand(2, 5, 3, dtype=F64), device=device, atol=1e-10, rtol=1e-8)
    A = grad_tensor(tri(3, 3), device)
    assert node_name(webtorch.linalg.solve_triangular(A, A, upper=True)) == "LinalgSolveTriangularBackward0"


def test_solve_triangular_zero_diagonal_and_errors(device):
    check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True), np.zeros((2, 2), np.float32),
          np.ones((2, 2), np.float32), device=device, grad=False)
    check_error(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True), rand(2, 3), rand(2, 2), device=device,
                match="linalg.solve_triangular: A must be batches of square matrices, but they are 2 by 3 matrices")
    check_error(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True), rand(3, 3), rand(2, 2), device=device,
                match="linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x2)")
    check_error(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True, left=False), rand(3, 3), rand(3, 2),
                device=device, match="for the equation XA = B (3x3 and 3x2)")
    check_error(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True), rand(3, 3), rand(3), device=device,
                match="linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_solve(upper, device):
    L = np.linalg.cholesky(spd(2, n=4).astype(F64)).astype(np.float32)
    if upper:
        L = np.ascontiguousarray(np.swapaxes(L, -1, -2))
    check(lambda m, B, L: (m.cholesky_solve(B, L, upper), B.cholesky_solve(L, upper=upper)), rand(2, 4, 3), L,
          device=device, atol=1e-4, rtol=1e-4)
    check(lambda m, B, L: m.cholesky_solve(B, L, upper=upper), rand(3, 1, 4, 2), L[0], device=device,
          atol=1e-4, rtol=1e-4)
    B = grad_tensor(rand(4, 2), device)
    assert node_name(webtorch.cholesky_solve(B, webtorch.tensor(L[0], device=device))) == "CholeskySolveBackward0"
    check_error(lambda m, B, L: m.cholesky_solve(B, L), rand(3, 2), rand(2, 2), device=device,
                match="Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b matrix is "
                      "3 by 2")


# ---- determinants ----------------------------------------------------------------------------------------------------

def test_slogdet_logdet(device):
    a = rand(2, 3, 4, 4) + 2 * np.eye(4, dtype=np.float32)
    a[0, 0] *= -1  # some negative determinants: logdet is nan there
    check(lambda m, A: (m.linalg.slogdet(A), m.slogdet(A), A.slogdet(), m.logdet(A), A.logdet()), a, device=device,
          atol=1e-4, rtol=1e-4)
    check(lambda m, A: m.linalg.slogdet(A), np.zeros((2, 2), np.float32), device=device, grad=False)
    check(lambda m, A: m.linalg.slogdet(A), np.zeros((3, 0, 0), np.float32), device=device)
    with webgpu_dtype_error(device):
        check(lambda m, A: (m.linalg.slogdet(A), m.logdet(A)), spd(n=5, dtype=F64), device=device,
              atol=1e-10, rtol=1e-8)
    out = webtorch.linalg.slogdet(grad_tensor(spd(n=3), device))
    assert node_name(out.logabsdet) == "LinalgSlogdetBackward0" and node_name(out.sign) == "LinalgSlogdetBackward0"
    check_error(lambda m, A: m.linalg.slogdet(A), rand(2, 3), device=device,
                match="linalg.slogdet: A must be batches of square matrices, but they are 2 by 3 matrices")
    check_error(lambda m, A: m.logdet(A), rand(2, 3), device=device, match="logdet: A must be batches of square")


# ---- QR ----------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 4)])
def test_qr(shape, device):
    a = rand(*shape)
    check(lambda m, A: m.linalg.qr(A), a, device=device, atol=1e-4, rtol=1e-4)
    check(lambda m, A: m.linalg.qr(A, mode="r"), a, device=device, atol=1e-4, rtol=1e-4, grad=False)
    complete_grad = shape[-2] <= shape[-1]  # PyTorch refuses the gradient of a complete QR of a tall matrix
    check(lambda m, A: m.linalg.qr(A, mode="complete"), a, device=device, atol=1e-4, rtol=1e-4, grad=complete_grad)


def test_qr_float64_gradients_of_one_factor(device):
    with webgpu_dtype_error(device):
        for shape in ((5, 3), (3, 5)):
            a = rand(*shape, dtype=F64)
            check(lambda m, A: m.linalg.qr(A).Q, a, device=device, atol=1e-10, rtol=1e-8)
            check(lambda m, A: m.linalg.qr(A).R, a, device=device, atol=1e-10, rtol=1e-8)


def test_qr_empty_errors_and_names(device):
    check(lambda m, A: m.linalg.qr(A), np.zeros((2, 0, 3), np.float32), device=device, grad=False)
    check(lambda m, A: m.linalg.qr(A, mode="complete"), np.zeros((3, 0), np.float32), device=device, grad=False)
    A = grad_tensor(rand(4, 3), device)
    Q, R = webtorch.linalg.qr(A)
    assert node_name(Q) == "LinalgQrBackward0"
    Q, R = webtorch.linalg.qr(A, mode="r")
    with pytest.raises(RuntimeError, match="The derivative of linalg.qr depends on Q, which is not computed when "
                                           "mode='r'"):
        R.sum().backward()
    Q, R = webtorch.linalg.qr(A, mode="complete")
    with pytest.raises(RuntimeError, match="The QR decomposition is not differentiable when mode='complete' and "
                                           "nrows > ncols."):
        Q.sum().backward()
    check_error(lambda m, A: m.linalg.qr(A, mode="x"), rand(3, 3), device=device,
                match="qr received unrecognized mode 'x' but expected one of 'reduced' (default), 'r', or 'complete'")
    check_error(lambda m, A: m.linalg.qr(A), rand(3), device=device,
                match="linalg.qr: The input tensor A must have at least 2 dimensions.")
    check_error(lambda m, A: m.linalg.qr(A), randint(0, 3, 3, 3, dtype=np.int32), device=device,
                match="linalg.qr: Expected a floating point or complex tensor as input. Got Int")


# ---- eigh ----------------------------------------------------------------------------------------------------------------

def _eigh_invariants(m, A, uplo="L"):
    L, V = m.linalg.eigh(A, UPLO=uplo)
    return L, (V * L.unsqueeze(-2)) @ V.mT, V.abs()


@pytest.mark.parametrize("shape", [(1,), (4,), (2, 3, 5)])
def test_eigh(shape, device):
    *batch, n = shape
    a = distinct_sym(*batch, n=n)
    check(_eigh_invariants, a, device=device, atol=1e-4, rtol=1e-3)
    check(lambda m, A: _eigh_invariants(m, A, "U"), a, device=device, atol=1e-4, rtol=1e-3)
    check(lambda m, A: (m.linalg.eigvalsh(A), m.linalg.eigvalsh(A, UPLO="U")), a, device=device,
          atol=1e-4, rtol=1e-4)


def test_eigh_reads_one_triangle_float64_empty(device):
    with webgpu_dtype_error(device):
        a = distinct_sym(2, n=4, dtype=F64)
        junk = np.triu(rand(4, 4, dtype=F64), 1)
        check(lambda m, A: _eigh_invariants(m, A + m.tensor(junk)), a, device=device, atol=1e-9, rtol=1e-7)
        check(lambda m, A: _eigh_invariants(m, A + m.tensor(junk).mT, "U"), a, device=device, atol=1e-9, rtol=1e-7)
    check(lambda m, A: m.linalg.eigh(A), np.zeros((2, 0, 0), np.float32), device=device, grad=False)
    A = grad_tensor(distinct_sym(n=3), device)
    assert node_name(webtorch.linalg.eigh(A).eigenvalues) == "LinalgEighBackward0"
    assert node_name(webtorch.linalg.eigvalsh(A)) == "LinalgEighBackward0"
    check_error(lambda m, A: m.linalg.eigh(A), rand(2, 3), device=device,
                match="linalg.eigh: A must be batches of square matrices, but they are 2 by 3 matrices")
    check_error(lambda m, A: m.linalg.eigh(A, UPLO="X"), rand(3, 3), device=device,
                match="Expected UPLO argument to be 'L' or 'U', but got X")


# ---- SVD -----------------------------------------------------------------------------------------------------------------

def _svd_invariants(m, A, full=False):
    U, S, Vh = m.linalg.svd(A, full_matrices=full)
    k = S.shape[-1]
    return S, (U[..., :k] * S.unsqueeze(-2)) @ Vh[..., :k, :], U[..., :k].abs(), Vh[..., :k, :].abs()


@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 4)])
def test_svd(shape, device):
    a = rand(*shape)
    check(_svd_invariants, a, device=device, atol=1e-4, rtol=1e-3, grad_atol=2e-3, grad_rtol=2e-3)
    check(lambda m, A: _svd_invariants(m, A, True), a, device=device, atol=1e-4, rtol=1e-3, grad_atol=2e-3,
          grad_rtol=2e-3)
    check(lambda m, A: [t.shape for t in m.linalg.svd(A)], a, device=device, grad=False)
    check(lambda m, A: m.linalg.svdvals(A), a, device=device, atol=1e-4, rtol=1e-4)


def test_svd_float64_empty_names(device):
    with webgpu_dtype_error(device):
        for shape in ((6, 4), (4, 6)):
            check(_svd_invariants, rand(*shape, dtype=F64), device=device, atol=1e-10, rtol=1e-8)
    check(lambda m, A: m.linalg.svd(A), np.zeros((0, 3), np.float32), device=device, grad=False)
    check(lambda m, A: m.linalg.svd(A, full_matrices=False), np.zeros((2, 0, 3), np.float32), device=device,
          grad=False)
    A = grad_tensor(rand(4, 3), device)
    assert node_name(webtorch.linalg.svd(A).S) == "LinalgSvdBackward0"
    assert node_name(webtorch.linalg.svdvals(A)) == "LinalgSvdBackward0"
    check_error(lambda m, A: m.linalg.svd(A), rand(3), device=device,
                match="linalg.svd: The input tensor A must have at least 2 dimensions.")
    check_error(lambda m, A: m.linalg.svdvals(A), randint(0, 3, 3, 3), device=device,
                match="linalg.svd: Expected a floating point or complex tensor as input. Got Long")


# ---- pinv, matrix_rank, lstsq, matrix_power ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (2, 3, 5)])
def test_pinv(shape, device):
    check(lambda m, A: m.linalg.pinv(A), full_rank(*shape), device=device, atol=1e-4, rtol=1e-3, grad_atol=1e-3,
          grad_rtol=1e-3)


def test_pinv_tolerances_hermitian_rank_deficient(device):
    low_rank = (rand(4, 2) @ rand(2, 5)).astype(np.float32)  # rank 2: the default rtol drops the rest
    check(lambda m, A: m.linalg.pinv(A), low_rank, device=device, atol=1e-4, rtol=1e-3, grad=False)
    check(lambda m, A: (m.linalg.pinv(A, atol=0.5), m.linalg.pinv(A, rtol=0.3), m.linalg.pinv(A, atol=0.1, rtol=0.6),
                        m.linalg.pinv(A, hermitian=True)), distinct_sym(n=4), device=device, atol=1e-4, rtol=1e-3,
          grad_atol=1e-3, grad_rtol=1e-3)
    check(lambda m, A: m.linalg.pinv(A), np.zeros((2, 0, 3), np.float32), device=device)
    A = grad_tensor(rand(3, 2), device)
    assert node_name(webtorch.linalg.pinv(A)) == "LinalgPinvBackward0"
    check_error(lambda m, A: m.linalg.pinv(A), randint(0, 3, 3), device=device,
                match="linalg.pinv(Long{[3]}): expected a tensor with 2 or more dimensions of float, double, cfloat or "
                      "cdouble types")


def test_matrix_rank(device):
    low_rank = np.stack([(rand(4, 2) @ rand(2, 5)), rand(4, 5), np.zeros((4, 5))]).astype(np.float32)
    check(lambda m, A: (m.linalg.matrix_rank(A), m.linalg.matrix_rank(A, atol=0.5), m.linalg.matrix_rank(A, 1.0),
                        m.linalg.matrix_rank(A, rtol=0.4)), low_rank, device=device)
    sym = distinct_sym(n=4) - 4.5 * np.eye(4, dtype=np.float32)  # eigenvalues +-: hermitian uses |lambda|
    check(lambda m, A: (m.linalg.matrix_rank(A, hermitian=True), m.linalg.matrix_rank(A, atol=1.0, hermitian=True)),
          sym, device=device)
    check(lambda m, A: m.linalg.matrix_rank(A), np.zeros((2, 0, 3), np.float32), device=device)
    check_error(lambda m, A: m.linalg.matrix_rank(A), rand(3), device=device,
                match="torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")


def test_lstsq(device):
    a, b = rand(2, 6, 3), rand(2, 6, 2)
    check(lambda m, A, B: m.linalg.lstsq(A, B), a, b, device=device, atol=1e-4, rtol=1e-3, grad_atol=1e-3,
          grad_rtol=1e-3)
    check(lambda m, A, B: m.linalg.lstsq(A, B), a, b[..., 0], device=device, atol=1e-4, rtol=1e-3,
          grad_atol=1e-3, grad_rtol=1e-3)
    check(lambda m, A, B: m.linalg.lstsq(A, B).solution, rand(3, 5), rand(3, 2), device=device, atol=1e-4,
          rtol=1e-3, grad_atol=1e-3, grad_rtol=1e-3)
    low_rank = (rand(5, 2) @ rand(2, 3)).astype(np.float32)
    check(lambda m, A, B: m.linalg.lstsq(A, B), low_rank, rand(5, 2), device=device, atol=1e-4, rtol=1e-3, grad=False)
    for driver in ("gelsd", "gelss", "gels"):
        check(lambda m, A, B: m.linalg.lstsq(A, B, driver=driver), a[0], b[0], device=device, atol=1e-4, rtol=1e-3,
              grad=False)
    A = grad_tensor(a, device)
    assert node_name(webtorch.linalg.lstsq(A, A).solution) == "LinalgLstsqBackward0"
    check_error(lambda m, A, B: m.linalg.lstsq(A, B), rand(3, 2), rand(4, 2), device=device,
                match="torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    if device == "cpu":  # webgpu has no float64 tensor to mismatch with
        check_error(lambda m, A, B: m.linalg.lstsq(A, B), rand(3, 2), rand(3, 2, dtype=F64), device=device,
                    match="torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
                          "Float and other's dtype Double")


def test_matrix_power(device):
    a = rand(2, 3, 3) + np.eye(3, dtype=np.float32)
    check(lambda m, A: (m.linalg.matrix_power(A, 0), m.linalg.matrix_power(A, 1), m.linalg.matrix_power(A, 5),
                        m.matrix_power(A, 2), A.matrix_power(3), m.linalg.matrix_power(A, -2)), a, device=device,
          atol=1e-4, rtol=1e-4)
    check(lambda m, A: (m.linalg.matrix_power(A, 3), m.linalg.matrix_power(A, 0)), randint(-2, 3, 3, 3, dtype=np.int32),
          device=device)
    check_error(lambda m, A: m.linalg.matrix_power(A, 2), rand(2, 3), device=device,
                match="linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices")
    check_error(lambda m, A: m.linalg.matrix_power(A, -1), randint(0, 3, 3, 3, dtype=np.int32), device=device,
                match="linalg.inv: Expected a floating point or complex tensor as input. Got Int")


# ---- webgpu: the decompositions run as counted host fallbacks ----------------------------------------------------------

@pytest.mark.parametrize("device", [d for d in DEVICES if d != "cpu"])
def test_webgpu_counts_host_fallbacks(device):
    from webgpu_counts import counted
    A = webtorch.tensor(spd(n=4), device=device)
    # (cholesky and solve_triangular have WGSL kernels: tests/backends/webgpu/test_cholesky.py)
    calls = {"linalg_slogdet": lambda: webtorch.linalg.slogdet(A),
             "linalg_qr": lambda: webtorch.linalg.qr(A),
             "linalg_eigh": lambda: webtorch.linalg.eigh(A),
             "linalg_svd": lambda: webtorch.linalg.svd(A),
             "linalg_lstsq": lambda: webtorch.linalg.lstsq(A, A)}
    for prim, fn in calls.items():
        out, n = counted(fn, ("host_fallbacks", "ops"))
        assert n["ops"].get(prim, 0) >= 1, (prim, n)
        assert all(t.device.type == "webgpu" for t in (out if isinstance(out, tuple) else (out,)))
