"""linalg inv / det / solve on webgpu run linalg_lu.wgsl (batched LU with partial pivoting): values and gradients
match PyTorch for small to large n, batched and broadcast, through pivoting-heavy and singular matrices, with
PyTorch's errors, and never take the host fallback."""
import numpy as np

import webtorch
from webtorch.backends import webgpu as wg
from webtorch.backends.webgpu import wgsl_loader

from optest import RNG, check, check_error, check_same_error, rand
from webgpu_counts import counted
from lu_kernels import lu_kernel, no_fallback, on_device  # noqa: F401 (lu_kernel: both kernels per test)

DEV = "webgpu"
SIZES = (1, 2, 3, 7, 33, 100)


def well_conditioned(*batch, n):
    """Rows of I + small noise, shuffled: condition number near 1, and every column needs a row swap."""
    a = np.eye(n, dtype=np.float32) + rand(*batch, n, n) / (3 * np.sqrt(n))
    return np.ascontiguousarray(a[..., RNG.permutation(n), :], dtype=np.float32)


def test_lu_specializations_compile():
    rt = wg.get_backend().rt
    for mode in (0, 1, 2):
        rt.compile("linalg_lu_small", wgsl_loader.specialize("linalg_lu_small", MODE=f"{mode}u"))
        for size in (64, 256):
            rt.compile("linalg_lu", wgsl_loader.specialize("linalg_lu", MODE=f"{mode}u", WG=f"{size}u"))


def test_inv_det_solve_every_size():
    for n in SIZES:
        a, b = well_conditioned(n=n), rand(n, 3)
        no_fallback(lambda: check(lambda m, A, B: (m.linalg.inv(A), m.linalg.det(A), m.linalg.solve(A, B),
                                                   m.linalg.solve(A, B[:, 0])), a, b, device=DEV,
                                  atol=1e-5, rtol=1e-4, grad_atol=1e-4, grad_rtol=1e-3))


def _well_conditioned(gen, n):
    while True:
        m = gen.uniform(-1, 1, (n, n))
        if np.linalg.cond(m) < 100:
            return m


def test_general_matrices_small_n():
    # plain random matrices: pivots chosen by magnitude, no structure to lean on
    # drawn here, not from optest's shared stream: the matrices must not depend on which tests ran before, and a
    # nearly singular draw would amplify float32 rounding past any fixed tolerance (condition number kept < 100)
    gen = np.random.default_rng(11)
    for n in (2, 3, 7):
        a = np.stack([_well_conditioned(gen, n) for _ in range(4)]).astype(np.float32)
        b = gen.uniform(-1, 1, (4, n, 2)).astype(np.float32)
        no_fallback(lambda: check(lambda m, A, B: (m.linalg.inv(A), m.linalg.det(A), m.linalg.solve(A, B)),
                                  a, b, device=DEV, atol=1e-4, rtol=1e-3, grad_atol=1e-3, grad_rtol=1e-3))


def test_batched_and_aliases():
    a = well_conditioned(2, 3, n=5)
    no_fallback(lambda: check(lambda m, A: (m.linalg.inv(A), m.linalg.det(A), m.inverse(A), m.det(A), A.inverse(),
                                            A.det(), m.linalg.inv_ex(A)), a, device=DEV, atol=1e-5, rtol=1e-4))


def test_solve_broadcasts_batch_dims():
    cases = [((2, 1, 4, 4), (3, 4, 2)), ((4, 4), (5, 4, 1)), ((3, 4, 4), (4,)), ((3, 4, 4), (3, 4)),
             ((2, 3, 4, 4), (1, 4, 6)), ((1, 4, 4), (2, 2, 4, 3))]
    for sa, sb in cases:
        a, b = well_conditioned(*sa[:-2], n=sa[-1]), rand(*sb)
        no_fallback(lambda: check(lambda m, A, B: m.linalg.solve(A, B), a, b, device=DEV, atol=1e-5, rtol=1e-4))


def test_strided_operands_and_left_false():
    a, b = well_conditioned(2, n=6), rand(2, 4, 6)
    no_fallback(lambda: check(lambda m, A, B: (m.linalg.solve(A.mT, B.mT), m.linalg.solve(A, B, left=False),
                                               m.linalg.inv(A[:, 1:, :5]), m.linalg.det(A[:, ::2, ::2])),
                              a, b, device=DEV, atol=1e-4, rtol=1e-4))
    # more than four batch dims that do not coalesce: the kernel reads a contiguous copy
    x = well_conditioned(2, 3, 2, 3, 2, n=3).transpose(4, 2, 0, 3, 1, 5, 6)
    y = rand(2, 1, 2, 3, 1, 3, 2)
    no_fallback(lambda: check(lambda m, A, B: (m.linalg.solve(A, B), m.linalg.det(A)), x, y, device=DEV,
                              atol=1e-5, rtol=1e-4, grad=False))


def test_pivoting_heavy_matrices():
    zero_lead = np.array([[0, 2, 1], [1, 0, 3], [4, 1, 0]], np.float32)
    tiny_lead = np.array([[1e-6, 1], [1, 1]], np.float32)  # without pivoting this loses every digit
    ties = np.array([[1, 2, 3], [-1, 5, 1], [1, 0, 4]], np.float32)  # |pivot| ties: the first row wins
    for a in (zero_lead, tiny_lead, ties):
        no_fallback(lambda: check(lambda m, A: (m.linalg.inv(A), m.linalg.det(A), m.linalg.solve(A, A[:, :1] + 1)),
                                  a, device=DEV, atol=1e-5, rtol=1e-4))
    for n in (2, 7, 33, 100):
        p = np.eye(n, dtype=np.float32)[RNG.permutation(n)]
        out = no_fallback(lambda: check(lambda m, A: (m.linalg.det(A), m.linalg.inv(A), m.linalg.solve(A, A)),
                                        p, device=DEV, atol=0, rtol=0, grad_atol=1e-5, grad_rtol=1e-5))
        assert abs(out[0].item()) == 1.0


def test_large_batch_uses_2d_grid():
    a = rand(70000, 2, 2) + 2 * np.eye(2, dtype=np.float32)
    det = no_fallback(lambda: webtorch.linalg.det(webtorch.tensor(a, device=DEV)).cpu().numpy())
    np.testing.assert_allclose(det, a[:, 0, 0] * a[:, 1, 1] - a[:, 0, 1] * a[:, 1, 0], rtol=1e-5, atol=1e-6)
    x = no_fallback(lambda: webtorch.linalg.solve(webtorch.tensor(a, device=DEV),
                                                  webtorch.ones(70000, 2, device=DEV)).cpu().numpy())
    np.testing.assert_allclose(np.einsum("bij,bj->bi", a, x), 1, rtol=1e-4, atol=1e-4)


def test_singular_matrices_raise_pytorchs_errors():
    s2 = np.array([[1, 2], [2, 4]], np.float32)
    mid = np.array([[1, 1, 2], [1, 1, 4], [0, 0, 6]], np.float32)  # U[1, 1] is exactly zero
    shift = np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]], np.float32)  # a zero first column
    eye2 = np.eye(2, dtype=np.float32)
    for a in (s2, mid, shift, np.zeros((3, 3), np.float32), np.stack([eye2, s2, s2]),
              np.stack([eye2, s2]).reshape(2, 1, 2, 2), s2[None]):
        no_fallback(lambda: check_same_error(lambda m: m.linalg.inv(on_device(m, a))))
        no_fallback(lambda: check_same_error(lambda m: m.inverse(on_device(m, a))))
        cpu = check_error(lambda m, A: m.linalg.inv(A), a, device="cpu")
        gpu = check_error(lambda m, A: m.linalg.inv(A), a, device=DEV)
        assert type(gpu) is type(cpu)
        b = np.ones(a.shape[:-1], np.float32)
        no_fallback(lambda: check_same_error(lambda m: m.linalg.solve(on_device(m, a), on_device(m, b))))
    # broadcast solve: the failing batch element is counted in A's own batch dims, as PyTorch's
    a = np.stack([eye2, s2]).reshape(2, 1, 2, 2)
    for b in (np.ones((3, 2, 1), np.float32), np.ones((2, 3, 2, 4), np.float32)):
        no_fallback(lambda: check_same_error(lambda m: m.linalg.solve(on_device(m, a), on_device(m, b))))
    no_fallback(lambda: check_same_error(lambda m: m.linalg.solve(on_device(m, s2), on_device(m, np.ones((3, 2, 1),
                                                                                                      np.float32)))))


def test_det_of_singular_is_zero():
    s = np.array([[[1, 2], [2, 4]], [[1, 0], [0, 3]], [[0, 0], [5, 1]]], np.float32)
    no_fallback(lambda: check(lambda m, A: m.linalg.det(A), s, device=DEV, grad=False))
    z = np.zeros((4, 4), np.float32)
    assert no_fallback(lambda: webtorch.linalg.det(webtorch.tensor(z, device=DEV)).item()) == 0.0


def test_empty_shapes():
    for shape in ((0, 0), (3, 0, 0), (0, 3, 3)):
        a = np.zeros(shape, np.float32)
        no_fallback(lambda: check(lambda m, A: (m.linalg.inv(A), m.linalg.det(A)), a, device=DEV, grad=False))
    no_fallback(lambda: check(lambda m, A, B: m.linalg.solve(A, B), np.zeros((2, 0, 0), np.float32),
                              np.zeros((2, 0, 3), np.float32), device=DEV, grad=False))
    check_same_error(lambda m: m.linalg.solve(on_device(m, np.eye(3, dtype=np.float32)),
                                              on_device(m, np.ones((5, 3), np.float32))))


def test_one_dispatch_each():
    a = webtorch.tensor(well_conditioned(4, n=6), device=DEV)
    b = webtorch.tensor(rand(4, 6, 2), device=DEV)
    for fn in (lambda: webtorch.linalg.det(a), lambda: webtorch.linalg.inv(a), lambda: webtorch.linalg.solve(a, b)):
        _, n = counted(fn)
        assert n == {"dispatches": 1, "submits": 1, "host_fallbacks": 0}, n


def test_float16_computes_in_float32():
    be = wg.get_backend()
    if "shader-f16" not in be.rt.features:  # the adapter cannot hold float16: nothing to compute
        return
    a = well_conditioned(3, n=5).astype(np.float16)
    b = rand(3, 5, 2).astype(np.float16)
    ha, hb = be.from_numpy(a, True), be.from_numpy(b, True)
    ref_a, ref_b = a.astype(np.float64), b.astype(np.float64)
    out = no_fallback(lambda: (be.to_numpy(be.linalg_inv(ha)), be.to_numpy(be.linalg_det(ha)),
                               be.to_numpy(be.linalg_solve(ha, hb))))
    assert all(o.dtype == np.float16 for o in out)
    np.testing.assert_allclose(out[0], np.linalg.inv(ref_a), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(out[1], np.linalg.det(ref_a), rtol=2e-3, atol=2e-3)
    np.testing.assert_allclose(out[2], np.linalg.solve(ref_a, ref_b), rtol=2e-3, atol=2e-3)


def getf2_has_zero_pivot(a, last_on_ties=False):
    """LAPACK's unblocked getf2 in float32 (the kernel's order of operations): True when some pivot is exactly
    zero. ``last_on_ties`` picks the last of equal |pivots| instead of the first (isamax's rule)."""
    a = a.astype(np.float32).copy()
    for k in range(len(a)):
        col = np.abs(a[k:, k])
        rows = np.nonzero(col == col.max())[0]
        p = k + (rows[-1] if last_on_ties else rows[0])
        a[[k, p]] = a[[p, k]]
        if a[k, k] == 0:
            return True
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= a[k + 1:, k:k + 1] * a[k, k + 1:]
    return False


def tie_matrices():
    """Singular in exact arithmetic, |A[0, 0]| = |A[1, 0]| the column's largest: whether float32 rounding leaves
    an exact zero pivot depends on which of the tied rows is the pivot."""
    rows = [[[.6, -.5, -.7, -.4], [.6, .6, -.1, -.8], [-.3, .2, .6, .4]],
            [[-.6, .3, -.4, .1], [.6, -.7, .5, -.1], [.3, .3, .8, -.1]],
            [[.1, .4, .4, -.7], [.1, -.8, .9, -.6], [-.1, .7, 0, .3]],
            [[-.6, -.7, -.8, -.9], [.6, .6, -.2, -.8], [-.4, -.1, .1, 0]]]
    out = []
    for r in rows:
        a = np.array(r, np.float32)
        out.append(np.vstack([a, np.float32(.3) * a[0] + np.float32(.7) * a[2]]))
    return out


def test_ties_pick_the_first_row_as_isamax():
    # PyTorch's blocked LAPACK rounds differently, so the reference is getf2 itself: det is exactly 0 where its
    # float32 elimination with first-row ties meets a zero pivot. The tied rows sit in different invocations
    # (n = 4), in one invocation (n = 260, rows 0 and 256: a workgroup has 256), and in two invocations whose
    # order is not the rows' order (rows 1 and 256: invocation 0 holds row 256). n = 260 always runs linalg_lu.
    n = 260
    for a in tie_matrices():
        zero = getf2_has_zero_pivot(a)
        assert zero != getf2_has_zero_pivot(a, last_on_ties=True)
        mats = [a]
        for at in ((0, 256, 257, 258), (1, 256, 257, 258)):
            big = np.zeros((n, n), np.float32)
            big[list(at), :4] = a
            big[[i for i in range(n) if i not in at], range(4, n)] = 1
            mats.append(big)
        dets = no_fallback(lambda: [webtorch.linalg.det(webtorch.tensor(m, device=DEV)).item() for m in mats])
        assert [d == 0 for d in dets] == [zero] * 3, (dets, zero)
