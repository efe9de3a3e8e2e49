"""Norms: torch.norm, linalg.vector_norm, linalg.matrix_norm, linalg.norm (one backward node for vectors,
LinalgVectorNormBackward0, as PyTorch)."""
import math

from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .._geometry import reduced
from ._core.dispatch import norm_dims, norm_dim, wrap
from .where_clamp import where as _where
from .reduction import restore_dims
from ._core.out_arg import COPIED, SAME, Rule, same, takes_out


class LinalgVectorNormBackward0(Node):
    @staticmethod
    def forward(ctx, x, ord, dims, keepdim):
        be, dt = x._be, x.dtype
        a = be.elementwise("abs", (x._data,), dt)
        if ord == 2:
            r = be.elementwise("sqrt", (be.reduce("sum", be.elementwise("mul", (a, a), dt), dims, keepdim, dt),), dt)
        elif ord == 1:
            r = be.reduce("sum", a, dims, keepdim, dt)
        elif ord == math.inf:
            r = be.reduce("amax", a, dims, keepdim, dt)
        elif ord == -math.inf:
            r = be.reduce("amin", a, dims, keepdim, dt)
        elif ord == 0:
            r = be.reduce("sum", be.elementwise("ne", (x._data, 0), dt), dims, keepdim, dt)
        else:
            s = be.reduce("sum", be.elementwise("pow", (a, float(ord)), dt), dims, keepdim, dt)
            r = be.elementwise("pow", (s, 1.0 / ord), dt)
        out = wrap(r, x, reduced(x.shape, dims, keepdim))
        ctx.save_for_backward(x, out)
        ctx.meta = (ord, dims, keepdim)
        return out

    @staticmethod
    def backward(ctx, g):
        x, out = ctx.saved_tensors
        ord, dims, keepdim = ctx.meta
        shape = tuple(x.shape)
        g_k = restore_dims(g, shape, dims, keepdim)
        out_k = restore_dims(out, shape, dims, keepdim)
        z = x.new_zeros(())
        if ord == 0:
            return x * 0
        if ord == 1:
            return g_k * x.sign()
        if ord == 2:
            return _where(out_k == 0, z, g_k * x / out_k)
        if ord in (math.inf, -math.inf):
            # the gradient is shared among the elements that reach the extreme |x|
            from .extrema import ties_mask
            mask = ties_mask(x.abs(), out_k)
            share = g_k * x.sign() / mask.sum(dim=dims, keepdim=True)
            return _where(mask, share, z)
        a = x.abs()
        d = x * a.pow(ord - 2) * g_k / out_k.pow(ord - 1)
        return _where(out_k == 0, z, d) if ord > 1 else d


@takes_out("linalg_vector_norm", SAME)
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if not x.dtype.is_floating_point:
        from .._dtype import scalar_type_name
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(x.dtype)}")
    if dtype is not None:
        x = x.to(D.to_dtype(dtype))
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got '{ord}'")
    if ord < 0 and ord != -math.inf and x.numel() == 0:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty tensor because the "
                           "operation does not have an identity")
    if dim is None:
        dims = tuple(range(x.dim()))
    else:
        dims = norm_dims(dim, x.dim()) if not (isinstance(dim, (tuple, list)) and len(dim) == 0) \
            else tuple(range(x.dim()))
    return apply_op(LinalgVectorNormBackward0, x, float(ord) if ord not in (1, 2, 0) else ord, dims, keepdim)


# composite in PyTorch: out is written by copy_, and only out's requires_grad is refused
@takes_out(COPIED, Rule(same, "linalg.matrix_norm expected out tensor dtype {r} but got: {o}"), check_inputs=False)
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    r, c = (norm_dim(d, A.dim()) for d in dim)
    if r == c:
        raise RuntimeError("linalg.matrix_norm: dims must be different. Got (%d, %d)" % (r, c))
    if dtype is not None:
        A = A.to(D.to_dtype(dtype))
    if ord == "fro":
        return vector_norm(A, 2, (r, c), keepdim)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"linalg.matrix_norm: ord={ord!r} needs singular values, which webtorch does not "
                                  "compute; use ord='fro', 1, -1, inf or -inf")
    if ord in (1, -1):
        col_sums = A.abs().sum(dim=r, keepdim=True)
        red = col_sums.amax(dim=c, keepdim=True) if ord == 1 else col_sums.amin(dim=c, keepdim=True)
    elif ord in (math.inf, -math.inf):
        row_sums = A.abs().sum(dim=c, keepdim=True)
        red = row_sums.amax(dim=r, keepdim=True) if ord > 0 else row_sums.amin(dim=r, keepdim=True)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return red if keepdim else red.squeeze(max(r, c)).squeeze(min(r, c))


@takes_out(COPIED, Rule(same, "linalg.norm expected out tensor dtype {r} but got: {o}"), check_inputs=False)
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if isinstance(dim, int):
        dim = (dim,)
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A, 2, dim, keepdim, dtype=dtype)
    if dim is None:
        if A.dim() == 1:
            return vector_norm(A, ord, None, keepdim, dtype=dtype)
        if A.dim() == 2:
            return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    if len(dim) == 2:
        return matrix_norm(A, ord, dim, keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.norm: 'fro' and numbers are vector norms over ``dim`` (every dim when None)."""
    if p == "fro" or p is None:
        p = 2
    elif p == "nuc":
        return matrix_norm(input, "nuc", dim or (-2, -1), keepdim, dtype=dtype, out=out)
    if isinstance(dim, int):
        dim = (dim,)
    return vector_norm(input, p, dim, keepdim, dtype=dtype, out=out)


def dist(input, other, p=2):
    """torch.dist: the p-norm of input - other (broadcast)."""
    return vector_norm(input - other, p)


FUNCTIONS = {"norm": norm, "dist": dist}
METHODS = {"norm": norm, "dist": dist}
