"""torch.linalg decompositions: cholesky(_ex), solve_triangular, cholesky_solve, slogdet/logdet, qr, eigh/eigvalsh,
svd/svdvals, pinv, matrix_rank, lstsq, matrix_power. The factorizations are backend-optional primitives (NumPy on
cpu; on webgpu cholesky and solve_triangular are WGSL kernels, the others counted host fallbacks); their gradients are PyTorch's formulas
(FunctionsManual.cpp) in Tensor ops, so double backward works. eigh/svd gradients assume distinct eigen/singular
values, as PyTorch's do."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from ..backends.base import _LinAlgError
from ._core.dispatch import broadcast_shapes, wrap
from .._dtype import scalar_type_name
from .linalg_extra import _backend_call, _square, inv
from ._core.out_arg import SAME, takes_out
from ._core.return_types import _make
from .where_clamp import where as _where

linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
slogdet_result = _make("slogdet", ("sign", "logabsdet"))
linalg_qr = _make("linalg_qr", ("Q", "R"))
linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
linalg_lstsq = _make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _mT(x):
    return x.transpose(-1, -2)


def _check_float(A, name):
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(A.dtype)}")


def _check_matrix(A, name, arg="A"):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")
    _check_float(A, name)


def _call(name, A, prim, *args):
    return _backend_call(f"torch.{name}", A, prim, *args)


# ---- cholesky ------------------------------------------------------------------------------------------------

def _batched(A, B, matrix):
    """The shape of a result with A's and B's batch dims broadcast and ``matrix`` as its last two dims."""
    return broadcast_shapes(A.shape[:-2], B.shape[:-2]) + tuple(matrix)


class LinalgCholeskyExBackward0(Node):
    _engine_materializes = False

    @staticmethod
    def forward(ctx, A, upper):
        L, info = _call("linalg.cholesky", A, "linalg_cholesky", A._data, upper)
        L, info = wrap(L, A, A.shape), wrap(info, A, A.shape[:-2])
        ctx.save_for_backward(L)
        ctx.upper = upper
        return L, info

    @staticmethod
    def backward(ctx, gL, ginfo):
        # Iain Murray (2016), arXiv 1602.07527, as PyTorch's cholesky_backward
        if gL is None:
            return None
        (L,) = ctx.saved_tensors
        if ctx.upper:
            L, gL = _mT(L), _mT(gL)
        gA = _mT(L).matmul(gL).tril()
        gA = 0.5 * (gA + _mT(gA.tril(-1)))
        gA = solve_triangular(_mT(L), gA, upper=True)
        return solve_triangular(L, gA, upper=False, left=False)


def _raise_info(info, name):
    """PyTorch's error for the first matrix whose info is nonzero (a leading minor not positive-definite)."""
    flat = info.reshape(-1)
    bad = flat.ne(0)
    if not bool(bad.any().item()):
        return
    i = int(bad.int().argmax().item())
    where = f"(Batch element {i}): " if info.dim() > 0 else ""
    raise _LinAlgError(f"{name}: {where}The factorization could not be completed because the input is not "
                       f"positive-definite (the leading minor of order {int(flat[i].item())} is not "
                       "positive-definite).")


@takes_out("linalg_cholesky_ex", None, (SAME, SAME))
def cholesky_ex(A, *, upper=False, check_errors=False):
    _square(A, "linalg.cholesky")
    L, info = apply_op(LinalgCholeskyExBackward0, A, bool(upper))
    if check_errors:
        _raise_info(info, "linalg.cholesky_ex")
    return linalg_cholesky_ex(L, info)


@takes_out("linalg_cholesky_ex", SAME)
def cholesky(A, *, upper=False):
    L, info = cholesky_ex(A, upper=upper)
    _raise_info(info, "linalg.cholesky")
    return L


# ---- triangular solves -------------------------------------------------------------------------------------------

class LinalgSolveTriangularBackward0(Node):
    @staticmethod
    def forward(ctx, A, B, upper, left, unitriangular):
        X = wrap(_call("linalg.solve_triangular", A, "linalg_solve_triangular", A._data, B._data, upper, left,
                       unitriangular), A, _batched(A, B, B.shape[-2:]))
        ctx.save_for_backward(A, X)
        ctx.flags = (upper, left, unitriangular)
        return X

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        upper, left, unit = ctx.flags
        gB = solve_triangular(_mT(A), g, upper=not upper, left=left, unitriangular=unit)
        gA = None
        if ctx.needs_input_grad[0]:
            gA = -(gB.matmul(_mT(X)) if left else _mT(X).matmul(gB))
            gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
        return gA, gB if ctx.needs_input_grad[1] else None


@takes_out("linalg_solve_triangular", SAME)
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    name = "linalg.solve_triangular"
    _check_matrix(A, name)
    _square(A, name)
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if B.dtype is not A.dtype:  # PyTorch's result takes A's dtype
        B = B.to(A.dtype)
    return apply_op(LinalgSolveTriangularBackward0, A, B, bool(upper), bool(left), bool(unitriangular))


class CholeskySolveBackward0(Node):
    @staticmethod
    def forward(ctx, B, L, upper):
        # A = L L^T = U^T U: a lower-triangular solve by L (U^T), then an upper one by L^T (U)
        low, up = (_mT(L), L) if upper else (L, _mT(L))
        Y = _call("cholesky_solve", L, "linalg_solve_triangular", low._data, B._data, False, True, False)
        X = wrap(_call("cholesky_solve", L, "linalg_solve_triangular", up._data, Y, True, True, False), L,
                 _batched(L, B, B.shape[-2:]))
        ctx.save_for_backward(L, X)
        ctx.upper = upper
        return X

    @staticmethod
    def backward(ctx, g):
        L, X = ctx.saved_tensors
        gB = cholesky_solve(g, L, upper=ctx.upper)
        gL = None
        if ctx.needs_input_grad[1]:
            common = gB.matmul(_mT(X))
            common = common + _mT(common)
            gL = -(L.matmul(common) if ctx.upper else common.matmul(L))
        return gB, gL


@takes_out("cholesky_solve", SAME)
def cholesky_solve(input, input2, upper=False):
    B, L = input, input2
    if B.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.dim()} dimensions instead")
    if L.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.dim()} dimensions instead")
    if L.shape[-1] != L.shape[-2] or L.shape[-1] != B.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {L.shape[-2]} by "
                           f"{L.shape[-1]} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    if B.dtype is not L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{scalar_type_name(B.dtype)} and A of type {scalar_type_name(L.dtype)} instead.")
    _check_float(L, "cholesky_solve")
    return apply_op(CholeskySolveBackward0, B, L, bool(upper))


# ---- determinants ------------------------------------------------------------------------------------------------

class LinalgSlogdetBackward0(Node):
    _engine_materializes = False

    @staticmethod
    def forward(ctx, A):
        sign, logabs = _call("linalg.slogdet", A, "linalg_slogdet", A._data)
        sign, logabs = wrap(sign, A, A.shape[:-2]), wrap(logabs, A, A.shape[:-2])
        ctx.save_for_backward(A)  # sign records history as in PyTorch, with a zero gradient for real input
        return sign, logabs

    @staticmethod
    def backward(ctx, gsign, glogabs):
        if glogabs is None:
            return None
        (A,) = ctx.saved_tensors
        return glogabs.unsqueeze(-1).unsqueeze(-1) * _mT(inv(A))


def _slogdet(A, name):
    _square(A, name)
    return apply_op(LinalgSlogdetBackward0, A)


@takes_out("linalg_slogdet", None, (SAME, SAME))
def slogdet(A):
    return linalg_slogdet(*_slogdet(A, "linalg.slogdet"))


def torch_slogdet(input):
    return slogdet_result(*_slogdet(input, "linalg.slogdet"))


def logdet(input):
    sign, logabs = _slogdet(input, "logdet")
    return _where(sign == -1, float("nan"), logabs)


# ---- QR ------------------------------------------------------------------------------------------------------------

_QR_MODES = ("reduced", "complete", "r")


def _copyltu(M):
    """The symmetric matrix whose lower triangle (diagonal included) is M's."""
    return M.tril() + _mT(M.tril(-1))


def _qr_backward_tall(Q, R, gQ, gR):
    """gA for A = QR with m >= n (R square): (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q (Liao et al. 2019,
    the formula PyTorch's linalg_qr_backward uses)."""
    M = None
    if gR is not None:
        M = R.matmul(_mT(gR))
    if gQ is not None:
        M = -_mT(gQ).matmul(Q) if M is None else M - _mT(gQ).matmul(Q)
    gA = Q.matmul(_copyltu(M))
    if gQ is not None:
        gA = gA + gQ
    return solve_triangular(_mT(R), gA, upper=False, left=False)


class LinalgQrBackward0(Node):
    _engine_materializes = False

    @staticmethod
    def forward(ctx, A, mode):
        Q, R = _call("linalg.qr", A, "linalg_qr", A._data, mode)
        batch, (m, n) = A.shape[:-2], A.shape[-2:]
        k = m if mode == "complete" else min(m, n)
        Q, R = wrap(Q, A, (0,) if mode == "r" else batch + (m, k)), wrap(R, A, batch + (k, n))
        ctx.save_for_backward(Q, R)
        ctx.mode = mode
        return Q, R

    @staticmethod
    def backward(ctx, gQ, gR):
        Q, R = ctx.saved_tensors
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                               "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                               "linalg.qr.")
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
        if gQ is None and gR is None:
            return None
        if m >= n:
            return _qr_backward_tall(Q, R, gQ, gR)
        # A = [X | Y] with X = Q U square, Y = Q V (R = [U | V]): X's gradient takes Y's share through Q
        U, V = R[..., :, :m], R[..., :, m:]
        gU = gR[..., :, :m] if gR is not None else None
        gV = gR[..., :, m:] if gR is not None else None
        gQx = gQ
        if gV is not None:
            extra = Q.matmul(V).matmul(_mT(gV))
            gQx = extra if gQx is None else gQx + extra
        gX = _qr_backward_tall(Q, U, gQx, gU)
        gY = Q.matmul(gV) if gV is not None else Q.new_zeros(tuple(Q.shape[:-2]) + (m, n - m))
        from .shape import cat
        return cat([gX, gY], -1)


def qr(A, mode="reduced", *, out=None):
    if mode not in _QR_MODES:
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    _check_matrix(A, "linalg.qr")
    return _qr_out(A, mode, out=out)


@takes_out("linalg_qr", None, (SAME, SAME))
def _qr_out(A, mode):
    return linalg_qr(*apply_op(LinalgQrBackward0, A, mode))


# ---- symmetric eigendecomposition -------------------------------------------------------------------------------

class LinalgEighBackward0(Node):
    _engine_materializes = False

    @staticmethod
    def forward(ctx, A, upper, compute_v):
        w, V = _call("linalg.eigh", A, "linalg_eigh", A._data, upper, compute_v)
        w = wrap(w, A, A.shape[:-1])
        V = wrap(V, A, A.shape) if V is not None else None
        ctx.save_for_backward(w, V)
        return w, V

    @staticmethod
    def backward(ctx, gL, gV):
        # PyTorch's linalg_eig_backward (hermitian): gA = V (diag(gL) + skew(V^T gV) / E) V^T, E_ij = L_j - L_i
        L, V = ctx.saved_tensors
        if gV is None:
            if gL is None:
                return None
            return (V * gL.unsqueeze(-2)).matmul(_mT(V))
        VhgV = _mT(V).matmul(gV)
        VhgV = 0.5 * (VhgV - _mT(VhgV))
        E = L.unsqueeze(-2) - L.unsqueeze(-1)
        n = L.shape[-1]
        from .creation import eye
        I = eye(n, dtype=L.dtype, device=L.device)
        gA = VhgV / (E + I)  # the diagonal of VhgV is 0: dividing it by 1 keeps it 0
        if gL is not None:
            gA = gA + gL.diag_embed()
        return V.matmul(gA.matmul(_mT(V)))


def _eigh_checks(A, UPLO, name):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _square(A, name)


@takes_out("linalg_eigh", None, (SAME, SAME))
def eigh(A, UPLO="L"):
    _eigh_checks(A, UPLO, "linalg.eigh")
    return linalg_eigh(*apply_op(LinalgEighBackward0, A, UPLO in "Uu", True))


@takes_out("linalg_eigvalsh", SAME)
def eigvalsh(A, UPLO="L"):
    _eigh_checks(A, UPLO, "linalg.eigvalsh")
    from ..autograd.graph import state
    need_v = state.enabled and A.requires_grad  # eigenvectors only for backward, as PyTorch
    return apply_op(LinalgEighBackward0, A, UPLO in "Uu", need_v)[0]


# ---- SVD -----------------------------------------------------------------------------------------------------------

def _svd_backward(gU, gS, gVh, U, S, Vh):
    """PyTorch's svd_backward for real input with distinct singular values (reduced U, Vh)."""
    m, n = U.shape[-2], Vh.shape[-1]
    if gU is None and gVh is None:
        if gS is None:
            return None
        return U.matmul(gS.unsqueeze(-1) * Vh) if m >= n else (U * gS.unsqueeze(-2)).matmul(Vh)
    UhgU = (lambda X: X - _mT(X))(_mT(U).matmul(gU)) if gU is not None else None
    VhgV = (lambda X: X - _mT(X))(Vh.matmul(_mT(gVh))) if gVh is not None else None
    S2 = S * S
    from .creation import eye
    k = S.shape[-1]
    E = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye(k, dtype=S.dtype, device=S.device)  # diagonal: 1
    if gU is not None and gVh is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif gU is not None:
        gA = UhgU * (S.unsqueeze(-2) / E)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if m > n and gU is not None:
        gA = U.matmul(gA)
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U.matmul(_mT(U).matmul(gUSinv))
        return gA.matmul(Vh)
    if m < n and gVh is not None:
        gA = gA.matmul(Vh)
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - SinvgVh.matmul(_mT(Vh)).matmul(Vh)
        return U.matmul(gA)
    return U.matmul(gA.matmul(Vh)) if m >= n else U.matmul(gA).matmul(Vh)


class LinalgSvdBackward0(Node):
    _engine_materializes = False

    @staticmethod
    def forward(ctx, A, full_matrices, compute_uv):
        U, S, Vh = _call("linalg.svd", A, "linalg_svd", A._data, full_matrices, compute_uv)
        batch, (m, n) = A.shape[:-2], A.shape[-2:]
        k = min(m, n)
        S = wrap(S, A, batch + (k,))
        U = wrap(U, A, batch + (m, m if full_matrices else k)) if U is not None else None
        Vh = wrap(Vh, A, batch + (n if full_matrices else k, n)) if Vh is not None else None
        ctx.save_for_backward(U, S, Vh)
        ctx.full = full_matrices
        return U, S, Vh

    @staticmethod
    def backward(ctx, gU, gS, gVh):
        U, S, Vh = ctx.saved_tensors
        if ctx.full:  # only the leading k = min(m, n) singular vectors are determined by A
            k = S.shape[-1]
            U, Vh = U[..., :, :k], Vh[..., :k, :]
            gU = gU[..., :, :k] if gU is not None else None
            gVh = gVh[..., :k, :] if gVh is not None else None
        return _svd_backward(gU, gS, gVh, U, S, Vh)


def svd(A, full_matrices=True, *, driver=None, out=None):
    _check_matrix(A, "linalg.svd")
    return _svd_out(A, bool(full_matrices), out=out)


@takes_out("linalg_svd", None, (SAME, SAME, SAME))
def _svd_out(A, full_matrices):
    return linalg_svd(*apply_op(LinalgSvdBackward0, A, full_matrices, True))


@takes_out("linalg_svdvals", SAME)
def svdvals(A, *, driver=None):
    _check_matrix(A, "linalg.svd")
    from ..autograd.graph import state
    need_uv = state.enabled and A.requires_grad  # singular vectors only for backward, as PyTorch
    return apply_op(LinalgSvdBackward0, A, False, need_uv)[1]


# ---- pseudoinverse, rank, least squares ------------------------------------------------------------------------------

def _tolerance(A, largest, atol, rtol):
    """max(atol, rtol * largest) with PyTorch's defaults: rtol = eps * max(m, n) unless a positive atol is given."""
    from .. import _tensor
    Tensor = _tensor.Tensor
    if rtol is None:
        default = D.finfo(A.dtype).eps * max(A.shape[-1], A.shape[-2])
        if atol is None:
            rtol = default
        elif isinstance(atol, Tensor):
            rtol = _where(atol > 0, 0.0, default).unsqueeze(-1)
        else:
            rtol = 0.0 if atol > 0 else default
    elif isinstance(rtol, Tensor):
        rtol = rtol.unsqueeze(-1)
    tol = largest * rtol
    if atol is None:
        return tol
    if isinstance(atol, Tensor):
        a = atol.unsqueeze(-1).to(tol.dtype)
        return _where(tol > a, tol, a)
    return tol.clamp_min(atol)


def _pinv_backward(g, P, A):
    """PyTorch's pinv_backward: the gradient of pinv(A) = P (smallest intermediate products for m <= n / m > n)."""
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = _mT(P), _mT(g)
    if m <= n:
        K = gh.matmul(P)
        KPh = K.matmul(Ph)
        return -_mT(P.matmul(K)) + KPh - A.matmul(P).matmul(KPh) + Ph.matmul(P).matmul(gh - K.matmul(A))
    K = P.matmul(gh)
    PhK = Ph.matmul(K)
    return -_mT(K.matmul(P)) + (gh - A.matmul(K)).matmul(P).matmul(Ph) + PhK - PhK.matmul(P).matmul(A)


def _pinv_value(A, atol, rtol, hermitian):
    if A.numel() == 0:
        return A.new_zeros(tuple(A.shape[:-2]) + (A.shape[-1], A.shape[-2]))
    if hermitian:
        S, U = eigh(A)
        S_abs = S.abs()
        tol = _tolerance(A, S_abs.amax(-1, keepdim=True), atol, rtol)
        S_inv = _where(S_abs > tol, S.reciprocal(), 0.0).to(A.dtype)
        return (U * S_inv.unsqueeze(-2)).matmul(_mT(U))
    U, S, Vh = svd(A, full_matrices=False)
    tol = _tolerance(A, S[..., :1], atol, rtol)
    S_inv = _where(S > tol, S.reciprocal(), 0.0).to(A.dtype)
    return (_mT(Vh) * S_inv.unsqueeze(-2)).matmul(_mT(U))


class LinalgPinvBackward0(Node):
    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        P = _pinv_value(A, atol, rtol, hermitian)
        ctx.save_for_backward(A, P)
        return P

    @staticmethod
    def backward(ctx, g):
        A, P = ctx.saved_tensors
        return _pinv_backward(g, P, A)


@takes_out("linalg_pinv", SAME)
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    if A.dim() < 2 or not A.dtype.is_floating_point:
        raise RuntimeError(f"linalg.pinv({scalar_type_name(A.dtype)}{{{list(A.shape)}}}): expected a tensor with 2 "
                           "or more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:  # the deprecated spelling of rtol
        rtol = rcond
    return apply_op(LinalgPinvBackward0, A, atol, rtol, bool(hermitian))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    _check_float(A, "torch.linalg.matrix_rank")
    if tol is not None:  # the deprecated spelling: an absolute tolerance
        atol, rtol = tol, 0.0
    return _rank_out(A, atol, rtol, bool(hermitian), out=out)


@takes_out("linalg_matrix_rank", SAME)
def _rank_out(A, atol, rtol, hermitian):
    from ..autograd.grad_mode import no_grad
    with no_grad():
        if min(A.shape[-1], A.shape[-2]) == 0:
            return A.new_zeros(tuple(A.shape[:-2]), dtype=D.int64)
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        tol = _tolerance(A, S.amax(-1, keepdim=True), atol, rtol)
        return (S > tol).sum(-1)


_LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _is_vector_rhs(A, B):
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


class LinalgLstsqBackward0(Node):
    @staticmethod
    def forward(ctx, A, B, rcond, residuals):
        X, rank = _call("linalg.lstsq", A, "linalg_lstsq", A._data, B._data, rcond)
        X, rank = wrap(X, A, _batched(A, B, (A.shape[-1], B.shape[-1]))), wrap(rank, A, A.shape[:-2])
        ctx.save_for_backward(A, B)
        n = A.shape[-1]
        if residuals and A.shape[-2] > n and bool((rank == n).all().item()):
            res = (A.matmul(X) - B).pow(2).sum(-2)
        else:
            res = A.new_zeros((0,))
        return X, res, rank

    @staticmethod
    def backward(ctx, gX, gres, grank):  # PyTorch differentiates the solution only
        A, B = ctx.saved_tensors
        P = pinv(A)
        gA = _pinv_backward(gX.matmul(_mT(B)), P, A) if ctx.needs_input_grad[0] else None
        gB = _mT(P).matmul(gX) if ctx.needs_input_grad[1] else None
        return gA, gB


def lstsq(A, B, rcond=None, *, driver=None):
    """cpu semantics of PyTorch's default driver 'gelsy': the minimum-norm solution and the rank; residuals are
    computed only by 'gelsd'/'gelss'/'gels' (m > n, full rank), singular values only by 'gelsd'/'gelss'. The rank
    is decided on the singular values (LAPACK's gelsy estimates it from a pivoted QR: equal for matrices whose
    rank is not borderline at rcond)."""
    name = "torch.linalg.lstsq"
    if driver is not None and driver not in _LSTSQ_DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    _check_float(A, name)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{scalar_type_name(A.dtype)} and other's dtype {scalar_type_name(B.dtype)}")
    vector = _is_vector_rhs(A, B)
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.dim() < 2:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    driver = driver or "gelsy"
    m, n = A.shape[-2], A.shape[-1]
    if rcond is None:
        rcond = D.finfo(A.dtype).eps * max(m, n)
    X, residuals, rank = apply_op(LinalgLstsqBackward0, A, Bm, float(rcond), driver != "gelsy")
    singular = A.new_zeros((0,))
    if driver in ("gelsd", "gelss"):
        singular = svdvals(A.detach())
    if driver == "gels":
        rank = A.new_zeros((0,), dtype=D.int64)
    if vector:
        X = X.squeeze(-1)
    return linalg_lstsq(X, residuals, rank, singular)


# ---- matrix_power ------------------------------------------------------------------------------------------------------

@takes_out("linalg_matrix_power", SAME)
def matrix_power(A, n):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() > 1 else 1} by {A.shape[-1]} matrices")
    n = int(n)
    if n == 0:
        from .creation import eye
        # PyTorch copies the identity into a clone of A: the result records history (CopyBackwards, zero grad)
        return A.clone().copy_(eye(A.shape[-1], dtype=A.dtype, device=A.device))
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    result, base = None, A
    while n:  # repeated squaring: O(log n) products, as PyTorch
        if n & 1:
            result = base if result is None else result.matmul(base)
        n >>= 1
        if n:
            base = base.matmul(base)
    return result


FUNCTIONS = {"cholesky_solve": cholesky_solve, "logdet": logdet, "slogdet": torch_slogdet,
             "matrix_power": matrix_power}
METHODS = dict(FUNCTIONS)
