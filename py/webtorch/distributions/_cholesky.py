"""Cholesky factorization and lower-triangular solves for MultivariateNormal, written with Tensor ops.

webtorch.linalg has no cholesky / solve_triangular yet; these run one step per matrix row or column, each
step vectorized over the batch, so they work on every device and autograd differentiates them (the
matrices of a distribution are small: the loop is over the event size, never over elements).
"""
from ..backends.base import _LinAlgError


def _unit_rows(n, like):
    import webtorch
    return webtorch.eye(n, dtype=like.dtype, device=like.device)


def cholesky_pivots(A):
    """(L, pivots): L lower-triangular with L @ L.mT == A, and the squared diagonal before each square
    root, shape (..., n). A pivot <= 0 (or NaN) means A is not positive-definite; L is then NaN from
    that column on."""
    import webtorch
    n = A.shape[-1]
    eye = _unit_rows(n, A)
    L = webtorch.zeros_like(A)
    on_or_below = eye.cumsum(0)  # [i, j] = 1 where i >= j
    pivots = []
    for j in range(n):
        # column j of A minus what the first j columns of L already explain (columns >= j of L are zero)
        v = A[..., :, j] - (L * L[..., j:j + 1, :]).sum(-1)
        pivot = v[..., j]
        pivots.append(pivot)
        d = pivot.sqrt().unsqueeze(-1)
        col = (v / d) * on_or_below[:, j]  # rows i >= j; row j is v_j / d = d
        L = L + col.unsqueeze(-1) * eye[j]
    return L, webtorch.stack(pivots, -1)


def cholesky_info(A):
    """torch.linalg.cholesky_ex(A).info: 0 where A is positive-definite, else the order (1-based) of the
    first leading minor that is not."""
    import webtorch
    with webtorch.no_grad():
        _, pivots = cholesky_pivots(A)
        bad = (pivots > 0).logical_not()
        n = pivots.shape[-1]
        order = webtorch.arange(1, n + 1, device=A.device)
        # the first bad pivot's order: the smallest order among bad pivots, 0 when none is bad
        first = webtorch.where(bad, order, n + 1).amin(-1)
        return webtorch.where(first > n, 0, first).to(webtorch.int32)


def cholesky(A):
    """torch.linalg.cholesky(A): raises LinAlgError naming the first leading minor that is not
    positive-definite."""
    L, pivots = cholesky_pivots(A)
    bad = (pivots.detach() > 0).logical_not()
    if bool(bad.any().item()):
        rows = bad.reshape(-1, bad.shape[-1])
        batch = int(rows.any(-1).int().argmax().item())
        order = int(rows[batch].int().argmax().item()) + 1
        where = f"(Batch element {batch}): " if A.dim() > 2 else ""
        raise _LinAlgError(f"linalg.cholesky: {where}The factorization could not be completed because the input is "
                           f"not positive-definite (the leading minor of order {order} is not positive-definite).")
    return L


def solve_lower(L, B):
    """torch.linalg.solve_triangular(L, B, upper=False): X with L @ X == B, by forward substitution;
    batch dimensions broadcast."""
    import webtorch
    n = L.shape[-1]
    eye = _unit_rows(n, L)
    shape = tuple(webtorch.broadcast_shapes(tuple(L.shape[:-2]), tuple(B.shape[:-2]))) + tuple(B.shape[-2:])
    X = webtorch.zeros(shape, dtype=B.dtype, device=B.device)  # rows not solved yet stay zero
    for i in range(n):
        row = L[..., i, :].unsqueeze(-1)  # (..., n, 1): row i of L against every column of X
        x_i = (B[..., i, :] - (row * X).sum(-2)) / L[..., i, i].unsqueeze(-1)
        X = X + eye[i].unsqueeze(-1) * x_i.unsqueeze(-2)
    return X
