"""linalg cholesky / solve_triangular on webgpu run linalg_cholesky(_small).wgsl and linalg_trsm.wgsl: values and
gradients match PyTorch for n from 1 to 64, batched, broadcast and strided, lower and upper, left and right,
unitriangular; a matrix that is not positive-definite gives PyTorch's info and error (the cpu device's, word for
word); MultivariateNormal runs on the device; nothing takes the host fallback."""
import numpy as np
import pytest

import webtorch
from webtorch.backends import webgpu as wg
from webtorch.backends.webgpu import wgsl_loader

from optest import RNG, check, check_same_error, rand
from webgpu_counts import counted
from lu_kernels import lu_kernel, no_fallback, on_device  # noqa: F401 (lu_kernel: both kernels per test)

DEV = "webgpu"
SIZES = (1, 2, 5, 17, 64)


def spd(*batch, n):
    x = RNG.standard_normal(batch + (n, n))
    return (x @ np.swapaxes(x, -1, -2) / n + np.eye(n)).astype(np.float32)


def tri(*shape):
    """Both triangles well-conditioned (diagonal near 1, off-diagonal small enough that substitution does not grow):
    reading the wrong triangle, or the diagonal when unitriangular, changes the result."""
    n = shape[-1]
    return (rand(*shape) / n + np.eye(n, dtype=np.float32) * RNG.uniform(1, 2, n)).astype(np.float32)


def not_pd():
    """Batch of 4 x 4 matrices: PD, leading minor 2 negative, leading minor 4 zero-ish negative, minor 1 NaN."""
    good = spd(n=4)
    m2 = good.copy()
    m2[1, 0] = m2[0, 1] = 5 * np.sqrt(m2[0, 0] * m2[1, 1])
    m4 = good.copy()
    m4[3, 3] = -1
    nan = good.copy()
    nan[0, 0] = np.nan
    return np.stack([good, m2, m4, nan])


def test_kernel_sources_compile():
    rt = wg.get_backend().rt
    rt.compile("linalg_cholesky_small", wgsl_loader.template("linalg_cholesky_small"))
    rt.compile("linalg_trsm", wgsl_loader.template("linalg_trsm"))
    for size in (64, 256):
        rt.compile("linalg_cholesky", wgsl_loader.specialize("linalg_cholesky", WG=f"{size}u"))


def test_cholesky_every_size():
    for n in SIZES + (100,):  # 100: the 256-wide workgroup
        a = spd(2, n=n)
        no_fallback(lambda: check(lambda m, A: (m.linalg.cholesky(A), m.linalg.cholesky(A, upper=True),
                                                m.linalg.cholesky_ex(A)), a, device=DEV, atol=1e-5, rtol=1e-4,
                                  grad_atol=1e-3, grad_rtol=1e-3))


def test_cholesky_reads_one_triangle_batched_and_strided():
    a = spd(2, 3, n=6)
    junk = np.triu(rand(2, 3, 6, 6), 1) * 10  # the side of A the factorization must not read
    low, up = a + junk, a + np.swapaxes(junk, -1, -2)
    no_fallback(lambda: check(lambda m, L, U: (m.linalg.cholesky(L), m.linalg.cholesky(U, upper=True),
                                               m.linalg.cholesky(U.mT), m.linalg.cholesky(L[:, 1:, :5, :5]),
                                               m.linalg.cholesky(U[0, :, ::2, ::2], upper=True)),
                              low, up, device=DEV, atol=1e-5, rtol=1e-4, grad=False))
    # more than four batch dims that do not coalesce: the kernel reads a contiguous copy
    x = spd(2, 3, 2, 3, 2, n=3).transpose(4, 2, 0, 3, 1, 5, 6)
    no_fallback(lambda: check(lambda m, A: m.linalg.cholesky(A), x, device=DEV, atol=1e-5, rtol=1e-4, grad=False))
    big = spd(70000, n=2)  # a 2-D grid for the invocation-per-matrix kernel, and past 65535 workgroups
    got = no_fallback(lambda: webtorch.linalg.cholesky(webtorch.tensor(big, device=DEV)).cpu().numpy())
    np.testing.assert_allclose(got @ np.swapaxes(got, -1, -2), big, rtol=1e-5, atol=1e-5)


def test_not_positive_definite_info_and_errors():
    a = not_pd()
    info = no_fallback(lambda: check(lambda m, A: m.linalg.cholesky_ex(A).info, a, device=DEV, grad=False))
    assert info.cpu().tolist() == [0, 2, 4, 1]
    ok = no_fallback(lambda: webtorch.linalg.cholesky_ex(webtorch.tensor(a, device=DEV)).L.cpu().numpy())
    np.testing.assert_allclose(ok[0], np.linalg.cholesky(a[0]), rtol=1e-5, atol=1e-5)
    for bad in (a[1], a[2], a[3], a, a[1:].reshape(3, 1, 4, 4), a[:2, :3, :3], np.zeros((2, 2), np.float32),
                -np.eye(3, dtype=np.float32)):
        for fn in (lambda m, A: m.linalg.cholesky(A), lambda m, A: m.linalg.cholesky(A, upper=True),
                   lambda m, A: m.linalg.cholesky_ex(A, check_errors=True)):
            no_fallback(lambda: check_same_error(lambda m: fn(m, on_device(m, bad))))
            caught = []
            for device in ("cpu", DEV):
                with pytest.raises(webtorch.linalg.LinAlgError) as e:
                    fn(webtorch, webtorch.tensor(bad, device=device))
                caught.append(e.value)
            assert type(caught[1]) is type(caught[0]) and str(caught[1]) == str(caught[0])


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_every_size(upper, left, unit):
    for n in SIZES:
        a = tri(2, n, n)
        b = rand(2, n, 3) if left else rand(2, 3, n)
        no_fallback(lambda: check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=upper, left=left,
                                                                            unitriangular=unit),
                                  a, b, device=DEV, atol=1e-5, rtol=1e-4, grad_atol=1e-4, grad_rtol=1e-3))


def test_solve_triangular_broadcast_strided_empty():
    cases = [((2, 1, 4, 4), (3, 4, 2)), ((4, 4), (5, 4, 1)), ((3, 4, 4), (4, 4)), ((1, 4, 4), (2, 2, 4, 3))]
    for left in (True, False):
        for sa, sb in cases:
            a, b = tri(*sa), rand(*sb)
            b = b if left else np.ascontiguousarray(np.swapaxes(b, -1, -2))
            no_fallback(lambda: check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=True, left=left), a, b,
                                      device=DEV, atol=1e-5, rtol=1e-4))
    a, b = tri(2, 6, 6), rand(2, 4, 6)
    no_fallback(lambda: check(lambda m, A, B: (m.linalg.solve_triangular(A.mT, B.mT, upper=True),
                                               m.linalg.solve_triangular(A[:, ::2, ::2], B[:, :, ::2], upper=False,
                                                                         left=False),
                                               m.linalg.solve_triangular(A[0], A, upper=False, unitriangular=True)),
                              a, b, device=DEV, atol=1e-5, rtol=1e-4))
    for sa, sb in (((0, 3, 3), (0, 3, 2)), ((2, 0, 0), (2, 0, 4)), ((3, 3), (2, 3, 0))):
        no_fallback(lambda: check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=False), np.zeros(sa, np.float32),
                                  np.zeros(sb, np.float32), device=DEV, grad=False))
    zero_diag = np.array([[1, 0], [2, 0]], np.float32)  # inf/nan as LAPACK's trsm, no error
    no_fallback(lambda: check(lambda m, A, B: m.linalg.solve_triangular(A, B, upper=False), zero_diag,
                              np.ones((2, 2), np.float32), device=DEV, grad=False))


def test_cholesky_solve_and_empty_cholesky():
    L = np.linalg.cholesky(spd(2, n=5).astype(np.float64)).astype(np.float32)
    for upper in (False, True):
        f = np.ascontiguousarray(np.swapaxes(L, -1, -2)) if upper else L
        no_fallback(lambda: check(lambda m, B, F: m.cholesky_solve(B, F, upper), rand(2, 5, 3), f, device=DEV,
                                  atol=1e-4, rtol=1e-4, grad_atol=1e-3, grad_rtol=1e-3))
    for shape in ((0, 0), (3, 0, 0), (0, 3, 3)):
        no_fallback(lambda: check(lambda m, A: m.linalg.cholesky_ex(A), np.zeros(shape, np.float32), device=DEV,
                                  grad=False))


def test_one_dispatch_each_and_no_readback():
    a = webtorch.tensor(spd(4, n=6), device=DEV)
    b = webtorch.tensor(rand(4, 6, 2), device=DEV)
    for fn in (lambda: webtorch.linalg.cholesky_ex(a), lambda: webtorch.linalg.solve_triangular(a, b, upper=True),
               lambda: webtorch.linalg.solve_triangular(a, b.mT, upper=False, left=False)):
        _, n = counted(fn, ("dispatches", "host_fallbacks", "readbacks"))
        assert n == {"dispatches": 1, "host_fallbacks": 0, "readbacks": 0}, n


def test_float16_computes_in_float32():
    be = wg.get_backend()
    if "shader-f16" not in be.rt.features:  # the adapter cannot hold float16: nothing to compute
        return
    a = spd(3, n=5)
    b = rand(3, 5, 2)
    ha, hb = be.from_numpy(a.astype(np.float16), True), be.from_numpy(b.astype(np.float16), True)
    ref = np.linalg.cholesky(a.astype(np.float16).astype(np.float64))
    low, info = no_fallback(lambda: [be.to_numpy(h) for h in be.linalg_cholesky(ha, False)])
    x = no_fallback(lambda: be.to_numpy(be.linalg_solve_triangular(ha, hb, False, True, False)))
    assert low.dtype == np.float16 and info.dtype == np.int32 and x.dtype == np.float16
    np.testing.assert_allclose(low, ref, rtol=2e-3, atol=2e-3)
    assert not info.any()
    t = np.tril(a.astype(np.float16).astype(np.float64))
    np.testing.assert_allclose(x, np.linalg.solve(t, b.astype(np.float16).astype(np.float64)), rtol=3e-3, atol=3e-3)


def test_multivariate_normal_on_device():
    def fn(m, loc, raw, x):
        cov = raw.matmul(raw.mT) + m.eye(3, device=raw.device)
        d = m.distributions.MultivariateNormal(loc, covariance_matrix=cov)
        p = m.distributions.MultivariateNormal(loc, precision_matrix=cov)
        return d.log_prob(x), d.entropy(), p.log_prob(x), p.scale_tril, d.precision_matrix
    _, n = counted(lambda: check(fn, rand(2, 3), rand(2, 3, 3), rand(4, 2, 3), device=DEV, atol=1e-4, rtol=1e-3,
                                 grad_atol=1e-3, grad_rtol=1e-3), ("host_fallbacks", "ops"))
    assert n == {"host_fallbacks": 0, "ops": {}}, n
    loc = webtorch.tensor(rand(2, 3), device=DEV, requires_grad=True)
    cov = webtorch.tensor(spd(2, n=3), device=DEV)
    webtorch.manual_seed(0)

    def draw():
        d = webtorch.distributions.MultivariateNormal(loc, covariance_matrix=cov)
        s = d.rsample((20000,))
        d.log_prob(s).sum().backward()
        return s
    s, n = counted(draw, ("host_fallbacks", "ops"))
    assert n == {"host_fallbacks": 0, "ops": {}}, n
    assert s.device.type == DEV and s.shape == (20000, 2, 3)
    s = s.detach().cpu().numpy().astype(np.float64)
    np.testing.assert_allclose(s.mean(0), loc.detach().cpu().numpy(), atol=0.08)
    emp = np.einsum("sbi,sbj->bij", s - s.mean(0), s - s.mean(0)) / len(s)
    c = cov.cpu().numpy().astype(np.float64)
    sd = np.sqrt((c * c + np.einsum("bii,bjj->bij", c, c)) / len(s))  # the standard error of each entry
    assert (np.abs(emp - c) < 5 * sd).all(), (emp, c)
    assert loc.grad is not None and loc.grad.device.type == DEV

