"""Matrix functions composed from Tensor ops, so they run on every device and differentiate through autograd:
matrix_exp (scaling and squaring of a Taylor polynomial), linalg.householder_product (orgqr) and geqrf (LAPACK's
Householder QR convention: R on and above the diagonal, the reflectors' tails below, tau beside)."""
from .. import _dtype as D
from ..autograd.grad_mode import no_grad
from ._core.return_types import _make
from .creation import arange, eye
from .linalg_decomp import _check_float
from .linalg_extra import _square
from . import publish

geqrf_result = _make("geqrf", ("a", "tau"))

_TAYLOR_DEGREE = 18  # with ||X||_1 <= 1 the remainder is below 1/19! (under float64's eps)


def matrix_exp(A):
    """exp(A) of a square matrix or a batch of them: X = A / 2^s with ||X||_1 <= 1, the degree-18 Taylor
    polynomial of exp(X) by Horner's rule, then s squarings. The norm is read back once to choose s (PyTorch
    also reads it on an accelerator)."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    _square(A, "linalg.matrix_exp")
    n = A.shape[-1]
    if A.numel() == 0:
        return A.clone()
    norm = float(A.detach().abs().sum(-2).amax())
    squarings = 0
    while norm > 1.0 and squarings < 1100:  # a non-finite norm stays unscaled: its NaNs propagate as PyTorch's
        norm /= 2.0
        squarings += 1
    X = A / float(2 ** squarings) if squarings else A
    ident = eye(n, dtype=A.dtype, device=A.device)
    P = ident + X / float(_TAYLOR_DEGREE)
    for k in range(_TAYLOR_DEGREE - 1, 0, -1):
        P = ident + X.matmul(P) / float(k)
    for _ in range(squarings):
        P = P.matmul(P)
    return P


def householder_product(A, tau):
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0, ..., 0, 1, A[i+1:, i])."""
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() < 1 or n < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    _check_float(A, name)
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{name}: tau dtype {D.scalar_type_name(tau.dtype)} does not match input dtype "
                           f"{D.scalar_type_name(A.dtype)}")
    rows = arange(m, device=A.device)
    Q = eye(m, n, dtype=A.dtype, device=A.device).expand(*A.shape[:-2], m, n)
    for i in range(tau.shape[-1] - 1, -1, -1):
        v = (A[..., :, i] * (rows > i).to(A.dtype) + (rows == i).to(A.dtype)).unsqueeze(-1)
        Q = Q - (tau[..., i, None, None] * v).matmul(v.mT.matmul(Q))
    return Q


def geqrf(input):
    """QR as LAPACK's geqrf stores it (no gradient, as PyTorch): per column j the reflector that maps
    (alpha, x) to (beta, 0) with beta = -sign(alpha) * ||(alpha, x)||, tau = (beta - alpha) / beta and the tail
    x / (alpha - beta) kept below the diagonal; a column with x = 0 gets tau = 0."""
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{D.scalar_type_name(input.dtype)}\'')
    if input.requires_grad:
        input = input.detach()  # the result has no grad_fn; backpropagating raises as PyTorch does
    m, n = input.shape[-2], input.shape[-1]
    k = min(m, n)
    with no_grad():
        R = input.clone()
        tau = input.new_zeros((*input.shape[:-2], k))
        for j in range(k):
            alpha = R[..., j, j].clone()
            tail = R[..., j + 1:, j]
            xnorm = tail.square().sum(-1).sqrt()
            reflect = xnorm != 0
            beta = -(alpha.square() + xnorm.square()).sqrt() * ((alpha >= 0).to(R.dtype) * 2 - 1)
            safe_beta = beta.where(reflect, beta.new_ones(()))
            t = ((beta - alpha) / safe_beta).where(reflect, tau.new_zeros(()))
            scale = (1 / (alpha - safe_beta)).where(reflect, tau.new_zeros(()))
            tail.mul_(scale.unsqueeze(-1))
            R[..., j, j] = alpha.where(~reflect, beta)
            tau[..., j] = t
            if j + 1 < n:  # apply H = I - tau v v^T to the columns on the right
                v = R[..., j:, j].clone()
                v[..., 0] = 1
                rest = R[..., j:, j + 1:]
                w = v.unsqueeze(-2).matmul(rest)
                rest.sub_(t[..., None, None] * v.unsqueeze(-1) * w)
    return geqrf_result(R, tau)


FUNCTIONS = {"matrix_exp": matrix_exp, "geqrf": geqrf, "orgqr": householder_product}
METHODS = dict(FUNCTIONS)

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its methods and tables now
