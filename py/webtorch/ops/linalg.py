"""Matrix products: matmul, mm, bmm, addmm, mv, dot, outer (einsum beside them)."""
from .._broadcast import broadcast_shapes
from ..autograd.graph import Node, apply_op
from ._core.dispatch import wrap, check_same_device
from ._core.elementwise import write_out
from ._core.out_arg import SAME, Rule, same
from .._dtype import cpp_type_name, scalar_type_name


def _check_dtypes(a, b, name):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(a.dtype)} != "
                           f"{cpp_type_name(b.dtype)}")


def _mv_size_error(rows, cols, n):
    return RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{cols}), vec ({n})")


def _check_mv_dtypes(mat, vec):
    # PyTorch's mv is addmv into a result of vec's dtype: the message lists result, mat, vec
    if mat.dtype is not vec.dtype:
        r, m = scalar_type_name(vec.dtype), scalar_type_name(mat.dtype)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {r}, {m}, and {r}")


def _check_bmm_dtypes(a, b):
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(a.dtype)} but found {scalar_type_name(b.dtype)}")


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


def product_shape(sa, sb):
    """The shape of the matmul primitive's result for operands of shapes sa and sb (a 1-D operand is a row /
    column vector whose dim is dropped, batch dims broadcast)."""
    if len(sa) == 2 == len(sb):
        return sa[0], sb[1]
    a = sa if len(sa) > 1 else (1,) + tuple(sa)
    b = sb if len(sb) > 1 else tuple(sb) + (1,)
    out = broadcast_shapes(a[:-2], b[:-2]) + (a[-2], b[-1])
    if len(sa) == 1:
        out = out[:-2] + out[-1:]
    return out[:-1] if len(sb) == 1 else out


class _SavedProduct(Node):
    """Forward of the product nodes that keep both operands for backward: one backend matmul."""
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return wrap(a._be.matmul(a._data, b._data), a, product_shape(a.shape, b.shape))


class MmBackward0(Node):
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        _save_mm(ctx, a, b, 0, 1)
        return wrap(a._be.matmul(a._data, b._data), a, (a.shape[0], b.shape[1]))

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
    return write_out(apply_op(MmBackward0, input, mat2), out, (), "mm", SAME)


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
        shape = (a.shape[0], b.shape[1])
        if beta == 0:
            return wrap(prod, a, shape)
        bias_h = bias._data if beta == 1 else be.elementwise("mul", (bias._data, beta), a.dtype)
        return wrap(be.elementwise("add", (prod, bias_h), a.dtype), a, broadcast_shapes(shape, bias.shape))

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
    return write_out(apply_op(AddmmBackward0, input, mat1, mat2, beta, alpha), out, (), "addmm", SAME)


def linear(input, weight, bias=None):
    """y = input @ weight.T + bias over the last dim of input (one addmm, as PyTorch): F.linear."""
    if input.dim() == 0 or weight.dim() == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.dim()}D and "
                           f"{weight.dim()}D")
    if input.dim() == 2 and bias is not None:
        return addmm(bias, input, weight.t())
    if weight.dim() == 1:   # PyTorch's matmul semantics: a vector weight contracts the last dim away
        out = matmul(input, weight)
        return out if bias is None else out + bias
    if input.dim() == 2:
        return input.mm(weight.t())
    lead = tuple(input.shape[:-1])
    flat = input.reshape(-1, input.shape[-1])
    out = flat.mm(weight.t()) if bias is None else addmm(bias, flat, weight.t())
    return out.view(*lead, weight.shape[0])


def matmul(input, other, *, out=None):
    """torch.matmul: 1-D/2-D/batched with broadcasting, PyTorch's error messages."""
    return write_out(_matmul(input, other), out, (), "matmul", SAME)


def _matmul(input, other):
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
    if da > 2 or db > 2:
        _check_batched_operands(input, other)
    if da == 1:
        return _matmul(input.unsqueeze(0), other).squeeze(-2)
    if db == 1:
        return _matmul(input, other.unsqueeze(-1)).squeeze(-1)
    if db == 2 and da > 2:  # fold batch into rows: one GEMM (PyTorch does the same)
        lead = tuple(input.shape[:-1])
        return mm(input.reshape(-1, input.shape[-1]), other).reshape(lead + (other.shape[-1],))
    return apply_op(BmmBackward0 if da == db == 3 else MatmulBackward0, input, other)


def _check_batched_operands(a, b):
    """PyTorch's error for matmul operands (one of them at least 3-D) that do not fit. Its wording follows the path
    PyTorch's _matmul_impl takes: the larger operand folded into a matrix for one mm/mv (_should_fold), else the
    batch dims broadcast for bmm."""
    sa, sb = tuple(a.shape), tuple(b.shape)
    da, db = len(sa), len(sb)
    if _should_fold(a, b):
        if db > da:  # PyTorch folds other.mT and multiplies by input.t() (or the vector input)
            t1, t2 = sb[:-2] + (sb[-1], sb[-2]), (sa[1], sa[0]) if da == 2 else sa
        else:
            t1, t2 = sa, sb
        rows = 1
        for n in t1[:-1]:
            rows *= n
        k = t1[-1]
        if k != t2[0]:
            raise (_mv_size_error(rows, k, t2[0]) if len(t2) == 1 else
                   RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {t2[0]}x{t2[1]})"))
        if len(t2) == 1:
            _check_mv_dtypes(a if da > db else b, b if da > db else a)
        else:
            _check_dtypes(b if db > da else a, a if db > da else b, "matmul")
        return
    batch = 1
    for n in broadcast_shapes(sa[:-2], sb[:-2]):
        batch *= n
    m1, m2 = sa[-1], sb[-2] if db > 1 else sb[0]
    if m1 != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {m1}] but got: "
                           f"[{batch}, {m2}].")
    _check_bmm_dtypes(a, b)


def _should_fold(a, b):
    """PyTorch's should_fold: whether matmul multiplies the larger operand (>= 3-D) folded into a matrix by the
    other (<= 2-D) with one mm/mv instead of a bmm -- always when the smaller one requires grad, else when the
    fold is a view."""
    a_larger = a.dim() >= b.dim()
    t1 = a if a_larger else b
    small = b if a_larger else a
    if t1.dim() < 3 or small.dim() > 2:
        return False
    if small.requires_grad:
        return True
    if a.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    shape, strides = tuple(t1.shape), t1.stride()
    if not a_larger:  # other.mT
        shape = shape[:-2] + (shape[-1], shape[-2])
        strides = strides[:-2] + (strides[-1], strides[-2])
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


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
    _check_bmm_dtypes(input, mat2)
    return write_out(apply_op(BmmBackward0, input, mat2), out, (), "bmm", SAME)


class DotBackward0(_SavedProduct):
    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


def dot(input, tensor, *, out=None):
    if input.dim() != 1 or tensor.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {tensor.dim()}D tensors")
    if input.dtype is not tensor.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{scalar_type_name(input.dtype)} and {scalar_type_name(tensor.dtype)}")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src "
                           f"[{tensor.shape[0]}] to have the same number of elements, but got {input.shape[0]} "
                           f"and {tensor.shape[0]} elements respectively")
    return write_out(apply_op(DotBackward0, input, tensor), out, (), "dot",
                     Rule(same, "result dtype {o} does not match input dtype {r}"))


class MvBackward0(_SavedProduct):
    @staticmethod
    def backward(ctx, g):
        a, v = ctx.saved_tensors
        return g.unsqueeze(1) * v.unsqueeze(0), a.t().mv(g)


def mv(input, vec, *, out=None):
    if input.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {vec.dim()}")
    if input.shape[1] != vec.shape[0]:
        raise _mv_size_error(input.shape[0], input.shape[1], vec.shape[0])
    _check_mv_dtypes(input, vec)
    return write_out(apply_op(MvBackward0, input, vec), out, (), "mv", SAME)


def outer(input, vec2, *, out=None):
    return write_out(input.unsqueeze(1) * vec2.unsqueeze(0), out, (), "mul")


FUNCTIONS = {"mm": mm, "addmm": addmm, "matmul": matmul, "bmm": bmm, "dot": dot, "mv": mv, "outer": outer,
             "ger": outer}
METHODS = dict(FUNCTIONS)
DUNDERS = {"__matmul__": matmul, "__rmatmul__": lambda self, other: matmul(other, self)}
