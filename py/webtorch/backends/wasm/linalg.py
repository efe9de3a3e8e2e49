"""The dense linear algebra primitives on the wasm backend (wasm-kernels/linalg.c): linalg_inv, linalg_det,
linalg_solve and the decompositions (cholesky, solve_triangular, slogdet, qr, eigh, svd, lstsq). The kernels compute
in float64 (a float32 input runs on a float64 copy and rounds once at the end); results keep the input's dtype.
Broadcast batch dims are expanded into contiguous copies first."""
from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from ... import _geometry as G
from ..._geometry import numel
from ..base import _LinAlgError
from .copies import contiguous
from .creation import eye, full
from .operands import address, dense, result
from .views import View

F64 = D.float64


def _batched(ctx, h, batch):
    """h as contiguous float64 matrices with the batch dims ``batch`` (broadcast when h has fewer)."""
    shape = tuple(batch) + tuple(h.shape[-2:])
    if tuple(h.shape) != shape:
        h = _expand(h, shape)
    return dense(ctx, h, F64)


def _expand(h, shape):
    """A stride-0 broadcast view of h to shape."""
    return View(h.st, *G.expand(h.shape, h.strides, h.offset, shape))


def _mT(ctx, h):
    """A contiguous copy of h with its last two dims swapped."""
    nd = len(h.shape)
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return contiguous(ctx, View(h.st, tuple(h.shape[i] for i in perm), tuple(h.strides[i] for i in perm), h.offset))


def _work(ctx, ndoubles):
    return ctx.new((max(1, ndoubles),), F64)


def linalg_inv(ctx, a):
    n = a.shape[-1]
    x = dense(ctx, a, F64)
    out = ctx.new(tuple(a.shape), F64)
    if ctx.call("linalg_inv", x.addr, out.addr, numel(a.shape[:-2]), n, _work(ctx, n * n + n).addr):
        raise _LinAlgError("linalg.inv: The diagonal element is zero, the inversion could not be completed "
                           "because the input matrix is singular.")
    return result(ctx, out, a.dtype)


def linalg_det(ctx, a):
    n = a.shape[-1]
    x = dense(ctx, a, F64)
    out = ctx.new(tuple(a.shape[:-2]), F64)
    ctx.call("linalg_det", x.addr, out.addr, 0, numel(a.shape[:-2]), n, _work(ctx, n * n + n).addr)
    return result(ctx, out, a.dtype)


def linalg_slogdet(ctx, a):
    n = a.shape[-1]
    x = dense(ctx, a, F64)
    sign, logabs = ctx.new(tuple(a.shape[:-2]), F64), ctx.new(tuple(a.shape[:-2]), F64)
    ctx.call("linalg_det", x.addr, sign.addr, logabs.addr, numel(a.shape[:-2]), n, _work(ctx, n * n + n).addr)
    return result(ctx, sign, a.dtype), result(ctx, logabs, a.dtype)


def linalg_solve(ctx, a, b):
    n, k = a.shape[-1], b.shape[-1]
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    x, y = _batched(ctx, a, batch), _batched(ctx, b, batch)
    out = ctx.new(tuple(batch) + (n, k), F64)
    if ctx.call("linalg_solve", x.addr, y.addr, out.addr, numel(batch), n, k, _work(ctx, n * n + n).addr):
        raise _LinAlgError("torch.linalg.solve: The solver failed because the input matrix is singular.")
    return result(ctx, out, a.dtype)


def linalg_cholesky(ctx, a, upper):
    n = a.shape[-1]
    x = _mT(ctx, dense(ctx, a, F64)) if upper else dense(ctx, a, F64)
    low = ctx.new(tuple(a.shape), F64)
    info = ctx.new(tuple(a.shape[:-2]), D.int32)
    ctx.call("linalg_cholesky", x.addr, low.addr, info.addr, numel(a.shape[:-2]), n)
    return result(ctx, _mT(ctx, low) if upper else low, a.dtype), info


def linalg_solve_triangular(ctx, a, b, upper, left, unitriangular):
    if not left:  # X A = B  <=>  A^T X^T = B^T
        xt = linalg_solve_triangular(ctx, _mT(ctx, a), _mT(ctx, b), not upper, True, unitriangular)
        return _mT(ctx, xt)
    n, k = a.shape[-1], b.shape[-1]
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    out_shape = tuple(batch) + tuple(b.shape[-2:])
    if 0 in (n, k) or 0 in batch:
        return full(ctx, out_shape, 0, a.dtype)
    x, y = _batched(ctx, a, batch), _batched(ctx, b, batch)
    out = ctx.new(out_shape, F64)
    ctx.call("linalg_solve_triangular", x.addr, y.addr, out.addr, numel(batch), n, k, int(upper), int(unitriangular))
    return result(ctx, out, a.dtype)


def _eye_batch(ctx, batch, m, k, dtype):
    """(batch..., m, k) copies of the m x k identity's leading columns."""
    e = eye(ctx, m, k, dtype)
    return contiguous(ctx, _expand(e, tuple(batch) + (m, k)))


def linalg_qr(ctx, a, mode):
    m, n = a.shape[-2:]
    batch = tuple(a.shape[:-2])
    k = min(m, n)
    empty_q = ctx.new((0,), a.dtype)
    if m == 0 or n == 0:
        kq = m if mode == "complete" else k
        r = full(ctx, batch + (kq, n), 0, a.dtype)
        return (empty_q if mode == "r" else _eye_batch(ctx, batch, m, kq, a.dtype)), r
    qcols = m if mode == "complete" else k
    rrows = m if mode == "complete" else k
    x = dense(ctx, a, F64)
    r = ctx.new(batch + (rrows, n), F64)
    q = None if mode == "r" else ctx.new(batch + (m, qcols), F64)
    ctx.call("linalg_qr", x.addr, address(q), r.addr, numel(batch), m, n, qcols, rrows,
             _work(ctx, m * n + k).addr)
    return (empty_q if q is None else result(ctx, q, a.dtype)), result(ctx, r, a.dtype)


def linalg_eigh(ctx, a, upper, compute_v):
    n = a.shape[-1]
    batch = tuple(a.shape[:-2])
    if n == 0:
        return full(ctx, batch + (0,), 0, a.dtype), (full(ctx, tuple(a.shape), 0, a.dtype) if compute_v else None)
    x = dense(ctx, a, F64)
    w = ctx.new(batch + (n,), F64)
    v = ctx.new(tuple(a.shape), F64) if compute_v else None
    ctx.call("linalg_eigh", x.addr, w.addr, address(v), numel(batch), n, int(upper),
             _work(ctx, 2 * n * n).addr)
    return result(ctx, w, a.dtype), (None if v is None else result(ctx, v, a.dtype))


def _svd_work(m, n):
    k, big = min(m, n), max(m, n)
    return big * k + 2 * k * k + big * big


def linalg_svd(ctx, a, full_matrices, compute_uv):
    m, n = a.shape[-2:]
    batch = tuple(a.shape[:-2])
    k = min(m, n)
    if k == 0:
        s = full(ctx, batch + (0,), 0, a.dtype)
        if not compute_uv:
            return None, s, None
        ku, kv = (m, n) if full_matrices else (0, 0)
        return _eye_batch(ctx, batch, m, ku, a.dtype), s, _eye_batch(ctx, batch, kv, n, a.dtype)
    ucols, vrows = (m, n) if full_matrices else (k, k)
    x = dense(ctx, a, F64)
    s = ctx.new(batch + (k,), F64)
    u = ctx.new(batch + (m, ucols), F64) if compute_uv else None
    vh = ctx.new(batch + (vrows, n), F64) if compute_uv else None
    ctx.call("linalg_svd", x.addr, address(u), s.addr, address(vh), numel(batch),
             m, n, ucols, vrows, _work(ctx, _svd_work(m, n)).addr)
    if not compute_uv:
        return None, result(ctx, s, a.dtype), None
    return result(ctx, u, a.dtype), result(ctx, s, a.dtype), result(ctx, vh, a.dtype)


def _lstsq_call(ctx, x, y, out, rank, batch, m, n, k, rcond):
    mn = min(m, n)
    work = _work(ctx, m * mn + mn + mn * n + mn * k + _svd_work(m, n))
    ctx.call("linalg_lstsq", x.addr, y.addr, out.addr, rank.addr, batch, m, n, k, float(rcond), work.addr)


def linalg_lstsq(ctx, a, b, rcond):
    m, n = a.shape[-2:]
    k = b.shape[-1]
    batch = broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    rank = ctx.new(tuple(a.shape[:-2]), D.int64)
    if 0 in (m, n):
        return full(ctx, tuple(batch) + (n, k), 0, a.dtype), full(ctx, tuple(a.shape[:-2]), 0, D.int64)
    x, y = _batched(ctx, a, batch), _batched(ctx, b, batch)
    out = ctx.new(tuple(batch) + (n, k), F64)
    own = tuple(batch) == tuple(a.shape[:-2])
    ranks = rank if own else ctx.new(tuple(batch), D.int64)
    _lstsq_call(ctx, x, y, out, ranks, numel(batch), m, n, k, rcond)
    if not own:  # the rank of each of a's own matrices (a was broadcast against b)
        xa = dense(ctx, a, F64)
        _lstsq_call(ctx, xa, xa, ctx.new((max(1, numel(a.shape[:-2]) * n),), F64), rank, numel(a.shape[:-2]), m,
                    n, 0, rcond)
    return result(ctx, out, a.dtype), rank
