"""Linear algebra beyond matmul: einsum, triangles, diagonals, trace, fused multiply-adds, cross, kron, cdist,
and the torch.linalg namespace."""
import numpy as np
import pytest

import webtorch
from optest import check, check_error, rand, randint, webgpu_dtype_error

F64 = np.float64


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("bij,bjk", [(2, 3, 4), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]), ("ij->", [(3, 4)]), ("ii->i", [(4, 4)]), ("ii", [(4, 4)]), ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]), ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("b...i,b...i->b...", [(2, 3, 4), (2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("iij->j", [(3, 3, 2)]), ("ij,ij->ij", [(3, 4), (3, 4)]), ("i j , j k -> i k", [(2, 3), (3, 2)]),
    ("...,...->...", [(2, 3), (3,)]), ("ab,cd->abcd", [(2, 1), (1, 3)]),
])
def test_einsum(eq, shapes, device):
    check(lambda m, *xs: m.einsum(eq, *xs), *[rand(*s) for s in shapes], device=device)


def test_einsum_list_operands_and_errors(device):
    check(lambda m, a, b: m.einsum("ij,jk", [a, b]), rand(2, 3), rand(3, 4), device=device)
    check_error(lambda m, a, b: m.einsum("ij,jk->ik", a, b), rand(2, 3), rand(4, 4), device=device)
    check_error(lambda m, a: m.einsum("ijk->i", a), rand(2, 3), device=device)


def test_einsum_float64_grads(device):
    with webgpu_dtype_error(device):
        check(lambda m, a, b: m.einsum("bij,bkj->bik", a, b), rand(2, 3, 4, dtype=F64), rand(2, 5, 4, dtype=F64),
              device=device, atol=1e-12, rtol=1e-10)


def test_tril_triu(device):
    check(lambda m, x: (x.tril(), m.triu(x), x.tril(1), m.triu(x, -1), x.tril(-2), x.triu(2)), rand(2, 4, 5),
          device=device)
    check(lambda m, x: (x.clone().tril_(), x.clone().triu_(1)), rand(4, 4), device=device)
    check(lambda m, x: x.tril(), randint(0, 5, 3, 3), device=device)
    x = webtorch.rand(3, 3, device=device, requires_grad=True)
    assert x.tril().grad_fn.name() == "TrilBackward0" and x.triu().grad_fn.name() == "TriuBackward0"
    check_error(lambda m, x: x.tril(), rand(3), device=device)


def test_diag_diag_embed_trace(device):
    check(lambda m, v: (m.diag(v), m.diag(v, 1), v.diag(-2)), rand(4), device=device)
    check(lambda m, a: (m.diag(a), a.diag(1), m.diag(a, -1), m.trace(a), a.trace()), rand(4, 5), device=device)
    check(lambda m, v: (m.diag_embed(v), m.diag_embed(v, 1), m.diag_embed(v, -1, 0, 2)), rand(2, 3), device=device)
    check(lambda m, a: a.trace(), randint(0, 5, 3, 3), device=device)
    x = webtorch.rand(3, device=device, requires_grad=True)
    assert webtorch.diag_embed(x).grad_fn.name() == "DiagEmbedBackward0"
    assert webtorch.diag(x).diag().sum().grad_fn is not None
    assert x.diag().trace().grad_fn.name() == "TraceBackward0"


def test_fused_multiply_adds(device):
    check(lambda m, i, a, b: (m.baddbmm(i, a, b), m.baddbmm(i, a, b, beta=0.5, alpha=2), i.baddbmm(a, b, beta=0)),
          rand(2, 3, 5), rand(2, 3, 4), rand(2, 4, 5), device=device)
    check(lambda m, i, a, v: (m.addmv(i, a, v), m.addmv(i, a, v, beta=2, alpha=-1)), rand(3), rand(3, 4), rand(4),
          device=device)
    check(lambda m, i, a, b: (m.addbmm(i, a, b), m.addbmm(i, a, b, beta=0.5, alpha=0.25), i.addbmm(a, b)),
          rand(3, 5), rand(4, 3, 2), rand(4, 2, 5), device=device)
    check(lambda m, i, a, b: m.baddbmm(i, a, b), rand(5), rand(2, 3, 4), rand(2, 4, 5), device=device)


def test_beta_zero_ignores_nan(device):
    i = np.full((3,), np.nan, dtype=np.float32)
    check(lambda m, i, a, v: m.addmv(i, a, v, beta=0), i, rand(3, 4), rand(4), device=device, grad=False)


def test_cross(device):
    check(lambda m, a, b: (m.cross(a, b, dim=1), m.linalg.cross(a, b), m.cross(a, b, dim=-1)), rand(4, 3),
          rand(4, 3), device=device)
    check(lambda m, a, b: m.linalg.cross(a, b, dim=0), rand(3, 2), rand(3, 1), device=device)
    check(lambda m, a, b: m.cross(a, b), rand(2, 3, 4), rand(2, 3, 4), device=device)
    check_error(lambda m, a, b: m.linalg.cross(a, b), rand(4, 2), rand(4, 2), device=device,
                match="linalg.cross: inputs dimension -1 must have length 3")
    a = webtorch.rand(3, device=device, requires_grad=True)
    assert webtorch.linalg.cross(a, a).grad_fn.name() == "LinalgCrossBackward0"


def test_kron(device):
    check(lambda m, a, b: m.kron(a, b), rand(2, 3), rand(4, 2), device=device)
    check(lambda m, a, b: m.kron(a, b), rand(3), rand(2, 2), device=device)
    check(lambda m, a, b: m.kron(a, b), randint(0, 4, 2, 2), randint(0, 4, 2), device=device)


def test_cdist(device):
    check(lambda m, a, b: (m.cdist(a, b), m.cdist(a, b, p=1), m.cdist(a, b, p=3)), rand(5, 3), rand(4, 3),
          device=device)
    check(lambda m, a, b: m.cdist(a, b), rand(2, 30, 3), rand(2, 27, 3), device=device, atol=1e-4, rtol=1e-3)
    same = rand(3, 2)
    check(lambda m, a, b: m.cdist(a, b), same, same.copy(), device=device)
    x = webtorch.rand(3, 2, device=device, requires_grad=True)
    assert webtorch.cdist(x, x).grad_fn.name() == "CdistBackward0"


def test_cdist_float64(device):
    with webgpu_dtype_error(device):
        check(lambda m, a, b: m.cdist(a, b), rand(6, 3, dtype=F64), rand(40, 3, dtype=F64), device=device,
              atol=1e-10, rtol=1e-8)


def test_linalg_namespace(device):
    check(lambda m, a, b: (m.linalg.matmul(a, b), m.linalg.vecdot(a, b.transpose(0, 1)[:3])), rand(3, 4),
          rand(4, 3), device=device)


def test_inv_det_solve(device):
    with webgpu_dtype_error(device):
        a = rand(3, 3, dtype=F64) + 3 * np.eye(3)
        b = rand(3, 2, dtype=F64)
        check(lambda m, A, B: (m.linalg.inv(A), m.linalg.det(A), m.linalg.solve(A, B), m.linalg.solve(A, B[:, 0]),
                               m.inverse(A), m.det(A)), a, b, device=device, atol=1e-10, rtol=1e-8)
        check(lambda m, A: (m.linalg.inv(A), m.linalg.det(A)), rand(2, 3, 3) + 3 * np.eye(3, dtype=np.float32),
              device=device, atol=1e-4, rtol=1e-4)
        check_error(lambda m, A: m.linalg.inv(A), np.zeros((2, 2), np.float32), device=device)
        check_error(lambda m, A: m.linalg.inv(A), rand(2, 3), device=device,
                    match="linalg.inv: A must be batches of square matrices")


def test_einsum_sublist_form_and_zero_size(device):
    # torch.einsum(op, sublist, ..., [output]): labels 0-51, a tensor of labels too
    check(lambda m, a, b: m.einsum(a, [0, 1], b, [1, 2], [0, 2]), rand(2, 3), rand(3, 4), device=device)
    check(lambda m, a: m.einsum(a, m.tensor([1, 0])), rand(2, 3), device=device)
    check(lambda m, a, b: m.einsum("ij,jk->ik", a, b), rand(0, 3), rand(3, 4), device=device)
    check_error(lambda m, a: m.einsum(a, [0, 52]), rand(2, 3), device=device, match="valid range [0, 52)")
