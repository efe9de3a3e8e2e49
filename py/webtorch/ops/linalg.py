"""Matrix products: matmul, mm, bmm, addmm, mv, dot, outer (einsum beside them)."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .dispatch import wrap, check_same_device


def _check_dtypes(a, b, name):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a.dtype.name.replace('float32', 'float')} "
                           f"!= {b.dtype.name.replace('float32', 'float')}")


def _shapes_error(a, b):
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[-2]}x{a.shape[-1]} and "
                        f"{b.shape[-2]}x{b.shape[-1]})")


def _save_mm(ctx, a, b, ia, ib):
    """Save what the gradients of ``a @ b`` need: a and b are inputs ia and ib of the node."""
    need_a, need_b = ctx.needs_input_grad[ia], ctx.needs_input_grad[ib]
    ctx.save_for_backward(a if need_b else None, b if need_a else None)
    ctx.layout = (need_a and _transposed(a), need_b and _transposed(b))


def _mm_grads(ctx, g):
    """Gradients of ``a @ b`` (2-D) saved by _save_mm; None for one not needed. Each comes in its operand's
    layout when that is a transposed matrix (``weight.t()`` in linear), as PyTorch's mm_mat1/mat2_backward:
    transposed back through TBackward0 it is contiguous, and AccumulateGrad keeps it without a copy."""
    a, b = ctx.saved_tensors
    a_t, b_t = ctx.layout
    ga = gb = None
    if b is not None:
        ga = b.mm(g.t()).t() if a_t else g.mm(b.t())
    if a is not None:
        gb = g.t().mm(a).t() if b_t else a.t().mm(g)
    return ga, gb


def _transposed(x):
    """x (2-D) is the transpose of a contiguous matrix."""
    return x.stride() == (1, x.shape[0]) and x.shape[0] != 1 and x.shape[1] != 1


class _SavedProduct(Node):
    """Forward of the product nodes that keep both operands for backward: one backend matmul."""
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return wrap(a._be.matmul(a._data, b._data), a)


class MmBackward0(Node):
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        _save_mm(ctx, a, b, 0, 1)
        return wrap(a._be.matmul(a._data, b._data), a)

    @staticmethod
    def backward(ctx, g):
        return _mm_grads(ctx, g)


def mm(input, mat2, *, out=None):
    check_same_device(input, mat2)
    if input.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"{'self' if input.dim() != 2 else 'mat2'} must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        raise _shapes_error(input, mat2)
    _check_dtypes(input, mat2, "mm")
    return apply_op(MmBackward0, input, mat2)


class AddmmBackward0(Node):
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, bias, a, b, beta, alpha):
        _save_mm(ctx, a, b, 1, 2)
        ctx.ab = (beta, alpha)
        be = a._be
        prod = be.matmul(a._data, b._data)
        if alpha != 1:
            prod = be.elementwise("mul", (prod, alpha), a.dtype)
        if beta == 0:
            return wrap(prod, a)
        bias_h = bias._data if beta == 1 else be.elementwise("mul", (bias._data, beta), a.dtype)
        return wrap(be.elementwise("add", (prod, bias_h), a.dtype), a)

    @staticmethod
    def backward(ctx, g):
        beta, alpha = ctx.ab
        gbias = g * beta if beta != 1 else g
        ga, gb = _mm_grads(ctx, g)
        if alpha != 1:
            ga = ga * alpha if ga is not None else None
            gb = gb * alpha if gb is not None else None
        return gbias, ga, gb


def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    check_same_device(input, mat1, mat2)
    if mat1.dim() != 2 or mat2.dim() != 2:
        raise RuntimeError(f"{'mat1' if mat1.dim() != 2 else 'mat2'} must be a matrix, got {mat1.dim() if mat1.dim() != 2 else mat2.dim()}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise _shapes_error(mat1, mat2)
    _check_dtypes(mat1, mat2, "addmm")
    return apply_op(AddmmBackward0, input, mat1, mat2, beta, alpha)


def matmul(input, other, *, out=None):
    """torch.matmul: 1-D/2-D/batched with broadcasting, PyTorch's error messages."""
    check_same_device(input, other)
    da, db = input.dim(), other.dim()
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1:
        return matmul(input.unsqueeze(0), other).squeeze(-2)
    if db == 1:
        if input.shape[-1] != other.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({input.shape[-2]}x{input.shape[-1]}), vec ({other.shape[0]})")
        return matmul(input, other.unsqueeze(-1)).squeeze(-1)
    if input.shape[-1] != other.shape[-2]:
        if da == 3 and db == 3:
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{other.shape[0]}, {input.shape[-1]}] but got: [{other.shape[0]}, {other.shape[-2]}].")
        raise _shapes_error(input, other)
    _check_dtypes(input, other, "matmul")
    if db == 2 and da > 2:  # fold batch into rows: one GEMM (PyTorch does the same)
        lead = tuple(input.shape[:-1])
        return mm(input.reshape(-1, input.shape[-1]), other).reshape(lead + (other.shape[-1],))
    return apply_op(BmmBackward0 if da == db == 3 else MatmulBackward0, input, other)


class MatmulBackward0(_SavedProduct):
    """Batched matmul with broadcast batch dims (the engine reduces broadcast gradients)."""
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g.matmul(b.transpose(-1, -2)) if ctx.needs_input_grad[0] else None
        gb = a.transpose(-1, -2).matmul(g) if ctx.needs_input_grad[1] else None
        return ga, gb


class BmmBackward0(MatmulBackward0):
    pass


def bmm(input, mat2, *, out=None):
    if input.dim() != 3 or mat2.dim() != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if input.dim() != 3 else "batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{input.shape[0]}, "
                           f"{input.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    _check_dtypes(input, mat2, "bmm")
    return apply_op(BmmBackward0, input, mat2)


class DotBackward0(_SavedProduct):
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


def dot(input, tensor, *, out=None):
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{tensor.shape[0]}] to have the same number of elements, but got {input.shape[0]} "
                           f"and {tensor.shape[0]} elements respectively")
    if input.dtype is not tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {input.dtype.name.capitalize()} "
                           f"and {tensor.dtype.name.capitalize()}")
    return apply_op(DotBackward0, input, tensor)


class MvBackward0(_SavedProduct):
    @staticmethod
    def backward(ctx, g):
        a, v = ctx.saved_tensors
        return g.unsqueeze(1) * v.unsqueeze(0), a.t().mv(g)


def mv(input, vec, *, out=None):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {vec.dim()}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    return apply_op(MvBackward0, input, vec)


def outer(input, vec2, *, out=None):
    return input.unsqueeze(1) * vec2.unsqueeze(0)


FUNCTIONS = {"mm": mm, "addmm": addmm, "matmul": matmul, "bmm": bmm, "dot": dot, "mv": mv, "outer": outer,
             "ger": outer}
METHODS = dict(FUNCTIONS)
DUNDERS = {"__matmul__": matmul, "__rmatmul__": lambda self, other: matmul(other, self)}
