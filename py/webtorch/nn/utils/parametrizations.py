"""torch.nn.utils.parametrizations: orthogonal, weight_norm and spectral_norm as parametrizations (see
parametrize.py)."""
from ..._dtype import finfo
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.creation import eye, randn, zeros_like
from ...ops.linalg import dot, mv
from ...ops.linalg_extra import solve
from ...ops.matrix_functions import geqrf, householder_product, matrix_exp
from ...ops.shape import cat
from ...ops.normalization import normalize
from ..modules.module import Module
from . import parametrize
from .spectral_norm import _default_dim
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Weight normalization as a parametrization: ``module.<name>`` becomes ``g * v / ||v||`` with
    ``parametrizations.<name>.original0`` = g (norms over every dim but ``dim``; ``dim=None``: of the whole
    tensor) and ``original1`` = v. State dicts of the older ``nn.utils.weight_norm`` (``<name>_g``,
    ``<name>_v``) load too.

    Example::

        >>> m = weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.parametrizations.weight.original0.size()
        torch.Size([40, 1])
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs):
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # a 1-D weight is normalized exactly (see forward): no vectors to keep
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", normalize(v, dim=0, eps=self.eps))
            # start from reasonable singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place: they are the module's buffers (forward clones them before use)
        with no_grad():
            for _ in range(n_power_iterations):
                self._u = normalize(mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = normalize(mv(weight_mat.t(), self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # clones: a graph built in this forward must survive the next forward's in-place update
        u = self._u.clone()
        v = self._v.clone()
        sigma = dot(u, mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization as a parametrization: ``module.<name>`` becomes ``W / sigma(W)``, sigma the
    largest singular value of W seen as a matrix with rows along ``dim`` (default 0; 1 for transposed
    convolutions), estimated by ``n_power_iterations`` of power iteration per forward in training mode.
    The vectors are the buffers ``parametrizations.<name>.0._u`` and ``._v``.

    Example::

        >>> snm = spectral_norm(nn.Linear(20, 40))
        >>> snm.parametrizations.weight[0]._u.size()
        torch.Size([40])
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, _default_dim(module, dim), eps))
    return module


_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with diag(R) >= 0."""
    X, tau = geqrf(A)
    return householder_product(X, tau) * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    eps = 10.0 * n * finfo(Q.dtype).eps
    return Q.mT.matmul(Q).allclose(eye(k, dtype=Q.dtype, device=Q.device), atol=eps)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()  # n*k - k(k-1)/2 free parameters, embedded in a square skew-symmetric A
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = matrix_exp(A)
            else:  # the Cayley retraction (I + A/2)(I - A/2)^-1
                ident = eye(n, dtype=A.dtype, device=A.device)
                Q = solve(ident.add(A, alpha=-0.5), ident.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            # X's diagonal holds the signs (+-1): not differentiated, not updated
            Q = householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base.matmul(Q)
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map != "householder":
                    raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                              "or the Cayley parametrizations when use_trivialization=False.")
                # reflectors of Q's QR with diag(R) > 0 (a reflector LAPACK skipped, tau = 0, flips the sign)
                A, tau = geqrf(Q)
                diag = A.diagonal(dim1=-2, dim2=-1)
                diag.copy_(diag.sign() * (1 - 2 * (tau == 0).to(A.dtype)))
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:  # complete Q to an n x n orthogonal matrix
                N = randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
                Q = _make_orthogonal(cat([Q, N], dim=-1))
            self.base = Q
            # -Id: householder(zeros) == eye, and the diagonal carries the signs
            neg_id = zeros_like(Q_init)
            neg_id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Make ``module.<name>`` (a matrix or a batch of matrices, m x n) orthogonal: orthonormal columns when
    m >= n, rows otherwise. ``orthogonal_map``: ``"matrix_exp"`` or ``"cayley"`` of a skew-symmetric matrix
    built from the original's lower triangle, or ``"householder"`` (a product of reflectors); default
    ``"matrix_exp"`` for square matrices, ``"householder"`` otherwise. ``use_trivialization=True`` keeps the
    base point in ``parametrizations.<name>[0].base`` (dynamic trivialization); the initial value is the tensor
    itself when orthogonal, else the Q of its QR decomposition.

    Example::

        >>> orth_linear = orthogonal(nn.Linear(20, 40))
        >>> Q = orth_linear.weight
        >>> torch.dist(Q.T @ Q, torch.eye(20)) < 1e-5
        tensor(True)
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrize.register_parametrization(module, name,
                                         _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
