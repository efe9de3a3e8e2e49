"""NumPy implementations of matmul and the dense linear algebra primitives (linalg_inv, linalg_det, linalg_solve and
the decompositions linalg_cholesky, linalg_solve_triangular, linalg_slogdet, linalg_qr, linalg_eigh, linalg_svd,
linalg_lstsq) -- documented in backends/contract.py. Every result keeps the input's float dtype (LAPACK runs in
float32 for float32); batch dimensions are handled by NumPy's stacked linalg."""
import numpy as np

from ..base import _LinAlgError
from .arrays import as_ndarray


def _mT(x):
    return np.swapaxes(x, -1, -2)


def _first_bad_minor(a):
    """1-based order of the first leading minor of the (lower-read) symmetric matrix ``a`` that is not
    positive-definite, or 0. Failure is monotone in the order, so a binary search over orders finds it."""
    try:
        np.linalg.cholesky(a)
        return 0
    except np.linalg.LinAlgError:
        pass
    lo, hi = 1, a.shape[-1]  # minor ``hi`` fails; find the smallest failing order
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            np.linalg.cholesky(a[:mid, :mid])
            lo = mid + 1
        except np.linalg.LinAlgError:
            hi = mid
    return lo


def _substitute(t, b, lower):
    """Row-by-row substitution for a triangular ``t`` with a zero on its diagonal (np.linalg.solve refuses it):
    inf/nan come out as LAPACK's trsm gives them."""
    n = t.shape[-1]
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=b.dtype)
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            acc = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, :], x)
            x[..., i, :] = acc / t[..., i, i:i + 1]
    return x


def matmul(a, b):
    return as_ndarray(np.matmul(a, b))


def linalg_inv(a):
    try:
        return np.linalg.inv(a).astype(a.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _LinAlgError("linalg.inv: The diagonal element is zero, the inversion could not be completed "
                           "because the input matrix is singular.") from None


def linalg_det(a):
    return np.asarray(np.linalg.det(a)).astype(a.dtype, copy=False)


def linalg_solve(a, b):
    try:
        return np.linalg.solve(a, b).astype(a.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise _LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.") \
            from None


def linalg_cholesky(a, upper):
    x = _mT(a) if upper else a  # upper reads A's upper triangle: the lower one of A^T
    info = np.zeros(a.shape[:-2], dtype=np.int32)
    try:
        low = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        flat = x.reshape((-1,) + x.shape[-2:])
        low = np.zeros_like(flat)
        flat_info = info.reshape(-1)
        for i, m in enumerate(flat):  # only on failure: find which matrices fail and where
            k = _first_bad_minor(m)
            flat_info[i] = k
            good = m.shape[-1] if k == 0 else k - 1
            low[i, :good, :good] = np.linalg.cholesky(m[:good, :good])
        low = low.reshape(x.shape)
    # LAPACK's potrf fails on a NaN pivot (torch reports it); NumPy's factor just carries the NaN
    diag_nan = np.isnan(np.diagonal(low, axis1=-2, axis2=-1))
    if diag_nan.any():
        info = np.where((info == 0) & diag_nan.any(-1), diag_nan.argmax(-1) + 1, info).astype(np.int32)
    low = low.astype(a.dtype, copy=False)
    return (np.ascontiguousarray(_mT(low)) if upper else low), info


def linalg_solve_triangular(a, b, upper, left, unitriangular):
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return np.ascontiguousarray(_mT(linalg_solve_triangular(_mT(a), _mT(b), not upper, True,
                                                                     unitriangular)))
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t.copy()
        idx = np.arange(t.shape[-1])
        t[..., idx, idx] = 1
    b = b.astype(a.dtype, copy=False)
    shape = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    if 0 in t.shape[-2:] or 0 in b.shape[-1:] or 0 in shape:
        return np.zeros(shape + b.shape[-2:], dtype=a.dtype)
    try:
        x = np.linalg.solve(t, b)
    except np.linalg.LinAlgError:
        x = _substitute(t, b, not upper)
    return x.astype(a.dtype, copy=False)


def linalg_slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return np.asarray(sign, dtype=a.dtype), np.asarray(logabs, dtype=a.dtype)


def linalg_qr(a, mode):
    m, n = a.shape[-2:]
    if m == 0 or n == 0:  # LAPACK needs no call: Q is the identity's leading columns, R is zeros
        k = m if mode == "complete" else min(m, n)
        q = np.broadcast_to(np.eye(m, k, dtype=a.dtype), a.shape[:-2] + (m, k)).copy()
        r = np.zeros(a.shape[:-2] + (k, n), dtype=a.dtype)
        return (np.zeros((0,), dtype=a.dtype) if mode == "r" else q), r
    if mode == "r":
        return np.zeros((0,), dtype=a.dtype), np.linalg.qr(a, mode="r").astype(a.dtype, copy=False)
    q, r = np.linalg.qr(a, mode=mode)
    return q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)


def linalg_eigh(a, upper, compute_v):
    uplo = "U" if upper else "L"
    if a.shape[-1] == 0:
        w = np.zeros(a.shape[:-1], dtype=a.dtype)
        return w, (np.zeros(a.shape, dtype=a.dtype) if compute_v else None)
    if not compute_v:
        return np.linalg.eigvalsh(a, UPLO=uplo).astype(a.dtype, copy=False), None
    w, v = np.linalg.eigh(a, UPLO=uplo)
    return w.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)


def linalg_svd(a, full_matrices, compute_uv):
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    k = min(m, n)
    if k == 0:
        s = np.zeros(batch + (0,), dtype=a.dtype)
        if not compute_uv:
            return None, s, None
        ku, kv = (m, n) if full_matrices else (0, 0)
        u = np.broadcast_to(np.eye(m, ku, dtype=a.dtype), batch + (m, ku)).copy()
        vh = np.broadcast_to(np.eye(kv, n, dtype=a.dtype), batch + (kv, n)).copy()
        return u, s, vh
    if not compute_uv:
        return None, np.linalg.svd(a, compute_uv=False).astype(a.dtype, copy=False), None
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return u.astype(a.dtype, copy=False), s.astype(a.dtype, copy=False), vh.astype(a.dtype, copy=False)


def linalg_lstsq(a, b, rcond):
    m, n = a.shape[-2:]
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    if 0 in (m, n):
        return (np.zeros(shape + (n, b.shape[-1]), dtype=a.dtype),
                np.zeros(a.shape[:-2], dtype=np.int64))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    keep = s > rcond * s[..., :1]
    with np.errstate(divide="ignore"):
        s_inv = np.where(keep, 1 / np.where(keep, s, 1), 0).astype(a.dtype)
    x = _mT(vh) @ (s_inv[..., :, None] * (_mT(u) @ b))
    return x.astype(a.dtype, copy=False), keep.sum(-1).astype(np.int64)
