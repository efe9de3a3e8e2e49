"""More linear algebra: einsum (lowered to permute/reshape/bmm/sum), tril/triu, diag, diag_embed, trace,
baddbmm, addmv, addbmm, cross, kron, cdist; inv/det/solve where the backend has them (NumPy on cpu)."""
from .. import _dtype as D
from .._tensor import Tensor
from ..autograd.graph import Node, apply_op
from ._core.dispatch import broadcast_shapes, norm_dim, wrap
from ._core.inplace import not_implemented_for
from ._core.out_arg import CAST, SAME, Rule, same, takes_out
from .where_clamp import where as _where


def _arange(n, like):
    from .creation import arange
    return arange(n, device=like.device)


# ---- einsum --------------------------------------------------------------------------------------------------

def _parse_einsum(equation, operands):
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation"
                           if len(operands) > len(terms) else
                           "einsum(): fewer operands were provided than specified in the equation")
    used = set(c for c in eq if c.isalpha())
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    ell_n = 0
    for t, op in zip(terms, operands):
        if "..." in t:
            ell_n = max(ell_n, op.dim() - (len(t) - 3))
    ell = "".join(free[:ell_n])
    labels = []
    for t, op in zip(terms, operands):
        if "..." in t:
            n = op.dim() - (len(t) - 3)
            t = t.replace("...", ell[ell_n - n:])
        if len(t) != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(t)}) does not match the "
                               f"number of dimensions ({op.dim()}) for operand {len(labels)}"
                               + (" and no ellipsis was given" if "..." not in eq else ""))
        labels.append(t)
    if arrow:
        out = rhs.replace("...", ell)
    else:
        counts = {}
        for t in labels:
            for c in t:
                counts[c] = counts.get(c, 0) + 1
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1 and c not in ell))
    return labels, out


def _take_diagonals(x, lab):
    """Repeated labels inside one operand ('ii') become one dim (the diagonal)."""
    while True:
        dup = next((c for i, c in enumerate(lab) if c in lab[i + 1:]), None)
        if dup is None:
            return x, lab
        i = lab.index(dup)
        j = lab.index(dup, i + 1)
        x = x.diagonal(0, i, j)
        lab = lab[:i] + lab[i + 1:j] + lab[j + 1:] + dup


def _sum_out(x, lab, keep):
    dims = [i for i, c in enumerate(lab) if c not in keep]
    if not dims:
        return x, lab
    return x.sum(dim=dims), "".join(c for c in lab if c in keep)


def _contract(a, la, b, lb, keep, sizes):
    """a, b with labels la, lb -> their product summed over the shared labels not in ``keep``."""
    batch = [c for c in la if c in lb and c in keep]
    contracted = [c for c in la if c in lb and c not in keep]
    a_only = [c for c in la if c not in lb]
    b_only = [c for c in lb if c not in la]

    def arrange(x, lab, order):
        x = x.permute([lab.index(c) for c in order]) if list(lab) != order else x
        shape = [sizes[c] for c in order]
        return x.expand(shape) if list(x.shape) != shape else x

    def prod(cs):
        n = 1
        for c in cs:
            n *= sizes[c]
        return n

    a2 = arrange(a, la, batch + a_only + contracted).reshape(prod(batch), prod(a_only), prod(contracted))
    b2 = arrange(b, lb, batch + contracted + b_only).reshape(prod(batch), prod(contracted), prod(b_only))
    r = a2.bmm(b2) if batch else a2[0].mm(b2[0]).unsqueeze(0)
    return r.reshape([sizes[c] for c in batch + a_only + b_only]), "".join(batch + a_only + b_only)


def _sublist_label(n):
    """The equation letter of a label of einsum's sublist form: 0-25 'A'-'Z', 26-51 'a'-'z', Ellipsis '...'."""
    if n is Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def _from_sublists(args):
    """(equation, operands) of einsum's sublist form: op1, sublist1, op2, sublist2, ... [, output sublist]."""
    equation = ",".join("".join(map(_sublist_label, s)) for s in args[1::2])
    if len(args) % 2:
        return equation + "->" + "".join(map(_sublist_label, args[-1])), args[:-1:2]
    return equation, args[::2]


def einsum(equation, *operands):
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    labels, out = _parse_einsum(equation, operands)
    sizes = {}
    for op, lab in zip(operands, labels):
        for c, s in zip(lab, op.shape):
            if sizes.get(c, 1) != 1 and s != 1 and sizes[c] != s:
                raise RuntimeError(f"einsum(): operands do not broadcast with remapped shapes (original->remapped): "
                                   f"subscript '{c}' has size {s} for an operand that does not match the previously "
                                   f"seen size {sizes[c]}")
            sizes[c] = s if sizes.get(c, 1) == 1 else sizes[c]   # a size-1 dim broadcasts, a size-0 one does not
    ops = []
    for i, (op, lab) in enumerate(zip(operands, labels)):
        op, lab = _take_diagonals(op, lab)
        later = set(out).union(*labels[:i], *labels[i + 1:])
        ops.append(_sum_out(op, lab, later))
    x, lx = ops[0]
    for i in range(1, len(ops)):
        y, ly = ops[i]
        keep = set(out).union(*(l for _, l in ops[i + 1:]))
        x, lx = _contract(x, lx, y, ly, keep, sizes)
    x, lx = _sum_out(x, lx, set(out))
    if lx != out:
        x = x.permute([lx.index(c) for c in out])
    shape = [sizes[c] for c in out]
    return x.expand(shape) if list(x.shape) != shape else x


# ---- triangles and diagonals ----------------------------------------------------------------------------------

def _tri_mask(x, diagonal, lower):
    n, m = x.shape[-2], x.shape[-1]
    offset = _arange(m, x).unsqueeze(0) - _arange(n, x).unsqueeze(1)  # column - row
    return offset <= diagonal if lower else offset >= diagonal


def _make_tri(node_name, lower):
    def forward(ctx, x, diagonal):
        if x.dim() < 2:
            raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
        mask = _tri_mask(x, diagonal, lower)
        ctx.mask = mask
        return _where(mask, x, x.new_zeros(()))

    def backward(ctx, g):
        return _where(ctx.mask, g, g.new_zeros(()))

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


TrilBackward0 = _make_tri("TrilBackward0", True)
TriuBackward0 = _make_tri("TriuBackward0", False)


@takes_out("tril", SAME)
def tril(input, diagonal=0):
    return apply_op(TrilBackward0, input, int(diagonal))


@takes_out("triu", SAME)
def triu(input, diagonal=0):
    return apply_op(TriuBackward0, input, int(diagonal))


class DiagEmbedBackward0(Node):
    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        n = x.shape[-1] + abs(offset)
        nd = x.dim() + 1
        d1, d2 = norm_dim(dim1, nd), norm_dim(dim2, nd)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        lead = list(x.shape[:-1])
        shape = []
        it = iter(lead)
        for i in range(nd):
            shape.append(n if i in (d1, d2) else next(it))
        shape = tuple(shape)
        out = wrap(x._be.full(shape, 0, x.dtype), x, shape)
        x._be.copy_(x._be.diagonal(out._data, offset, d1, d2), x._data)
        ctx.meta = (offset, d1, d2)
        return out

    @staticmethod
    def backward(ctx, g):
        return g.diagonal(*ctx.meta)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    return apply_op(DiagEmbedBackward0, input, int(offset), dim1, dim2)


# PyTorch writes it through diagonal_copy/diag_embed, not differentiated: only out's requires_grad is refused
@takes_out("aten::diagonal_copy", SAME, check_inputs=False)
def diag(input, diagonal=0):
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return input.diagonal(diagonal).clone()
    raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")


class TraceBackward0(Node):
    @staticmethod
    def forward(ctx, x):
        if x.dim() != 2:
            raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.dim()}")
        ctx.meta = (tuple(x.shape), x.dtype, x.device)
        from .reduction import sum_dtype
        d = x._be.diagonal(x._data, 0, 0, 1)
        return wrap(x._be.reduce("sum", d, (0,), False, sum_dtype(x.dtype)), x, ())

    @staticmethod
    def backward(ctx, g):
        from .creation import eye
        (n, m), dt, dev = ctx.meta
        return eye(n, m, dtype=dt, device=dev) * g


def trace(input):
    if input.dtype is D.bool_:
        raise not_implemented_for("trace", input.dtype)
    return apply_op(TraceBackward0, input)


# ---- fused multiply-adds ----------------------------------------------------------------------------------------

def _scaled_sum(input, prod, beta, alpha):
    prod = prod * alpha if alpha != 1 else prod
    if beta == 0:  # PyTorch ignores input entirely (NaN/inf in it do not propagate)
        return prod
    return (input * beta if beta != 1 else input) + prod


@takes_out("baddbmm", SAME)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    from .linalg import bmm
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha)


@takes_out("addmv", SAME)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    from .linalg import mv
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


@takes_out("addbmm", Rule(same, "self and mat2 must have the same dtype, but got {o} and {r}"))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.dim() != 3 else "batch2 must be a 3D tensor")
    b, n, k = batch1.shape
    # sum over the batch of b1[i] @ b2[i] is one GEMM over the stacked inner dims
    prod = batch1.permute(1, 0, 2).reshape(n, b * k).mm(batch2.reshape(b * k, batch2.shape[2]))
    return _scaled_sum(input, prod, beta, alpha)


# ---- cross, kron, cdist --------------------------------------------------------------------------------------

class LinalgCrossBackward0(Node):
    @staticmethod
    def forward(ctx, a, b, dim):
        ctx.save_for_backward(a, b)
        ctx.dim = dim
        return a.roll(-1, dim) * b.roll(-2, dim) - a.roll(-2, dim) * b.roll(-1, dim)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        d = ctx.dim
        return (apply_op(LinalgCrossBackward0, b, g, d) if ctx.needs_input_grad[0] else None,
                apply_op(LinalgCrossBackward0, g, a, d) if ctx.needs_input_grad[1] else None)


@takes_out("linalg_cross", SAME)
def linalg_cross(input, other, *, dim=-1):
    from ._core.dispatch import broadcast_shapes
    shape = broadcast_shapes(tuple(input.shape), tuple(other.shape))
    d = norm_dim(dim, len(shape))
    if input.shape[norm_dim(dim, input.dim())] != 3 or other.shape[norm_dim(dim, other.dim())] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[norm_dim(dim, input.dim())]} and {other.shape[norm_dim(dim, other.dim())]}")
    if input.dtype is not other.dtype:
        raise RuntimeError("linalg.cross: expected input and other to have the same dtype, but got "
                           f"{input.dtype} and {other.dtype}")
    return apply_op(LinalgCrossBackward0, input.expand(shape), other.expand(shape), d)


def cross(input, other, dim=None, *, out=None):
    if D.bool_ in (input.dtype, other.dtype):
        raise not_implemented_for("cross", D.bool_)
    if dim is None:  # PyTorch's deprecated default: the first dim of size 3
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if input.dim() != other.dim():
        raise RuntimeError(f"inconsistent tensors dimensions input: {input.dim()} other: {other.dim()}")
    return linalg_cross(input, other, dim=dim, out=out)


@takes_out("mul", CAST)  # PyTorch's kron writes out= through mul
def kron(input, other):
    nd = max(input.dim(), other.dim())
    a = input.reshape((1,) * (nd - input.dim()) + tuple(input.shape))
    b = other.reshape((1,) * (nd - other.dim()) + tuple(other.shape))
    a_shape, b_shape = [], []
    for sa, sb in zip(a.shape, b.shape):
        a_shape += [sa, 1]
        b_shape += [1, sb]
    prod = a.reshape(a_shape) * b.reshape(b_shape)
    return prod.reshape([sa * sb for sa, sb in zip(a.shape, b.shape)])


class CdistBackward0(Node):
    """p=2 distances; the gradient is 0 where two points coincide (as PyTorch)."""
    @staticmethod
    def forward(ctx, x1, x2, use_mm):
        if use_mm:
            sq1 = (x1 * x1).sum(-1, keepdim=True)
            sq2 = (x2 * x2).sum(-1, keepdim=True).transpose(-1, -2)
            d = (sq1 + sq2 - 2 * x1.matmul(x2.transpose(-1, -2))).clamp_min(0).sqrt()
        else:
            diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
            d = (diff * diff).sum(-1).sqrt()
        ctx.save_for_backward(x1, x2, d)
        return d

    @staticmethod
    def backward(ctx, g):
        x1, x2, d = ctx.saved_tensors
        w = _where(d == 0, d.new_zeros(()), g / d)
        g1 = w.sum(-1, keepdim=True) * x1 - w.matmul(x2)
        g2 = w.sum(-2).unsqueeze(-1) * x2 - w.transpose(-1, -2).matmul(x1)
        return g1, g2


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not x1.dtype.is_floating_point:
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {x1.dtype.name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if p == 2:
        big = x1.shape[-2] > 25 or x2.shape[-2] > 25
        use_mm = compute_mode == "use_mm_for_euclid_dist" or (
            compute_mode == "use_mm_for_euclid_dist_if_necessary" and big)
        return apply_op(CdistBackward0, x1, x2, use_mm)
    from .norms import vector_norm
    return vector_norm(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, dim=-1)


_VECDOT_OUT = Rule(same, "linalg.vecdot: Expected out of dtype{r} but found {o}")  # PyTorch's text, sic


@takes_out("sum", _VECDOT_OUT)
def vecdot(x, y, *, dim=-1):
    return (x * y).sum(dim)


# ---- dense solvers (backend-optional: NumPy on cpu) ---------------------------------------------------------------

def _square(A, name):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2] if A.dim() > 1 else 1} "
                           f"by {A.shape[-1]} matrices")
    if not A.dtype.is_floating_point:
        from .._dtype import scalar_type_name
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{scalar_type_name(A.dtype)}")


def _backend_call(name, t, prim, *handles):
    try:
        return getattr(t._be, prim)(*handles)
    except NotImplementedError:
        raise RuntimeError(f"{name} is not available on device '{t.device}' in webtorch (it runs on 'cpu'); "
                           "move the tensor with .cpu() first") from None


class LinalgInvExBackward0(Node):
    @staticmethod
    def forward(ctx, A):
        inv_ = wrap(_backend_call("torch.linalg.inv", A, "linalg_inv", A._data), A, A.shape)
        ctx.save_for_backward(inv_)
        return inv_

    @staticmethod
    def backward(ctx, g):
        (inv_,) = ctx.saved_tensors
        it = inv_.transpose(-1, -2)
        return -it.matmul(g).matmul(it)


@takes_out("linalg_inv_ex", SAME)
def inv(A):
    _square(A, "linalg.inv")
    return apply_op(LinalgInvExBackward0, A)


@takes_out("linalg_inv_ex", None, (SAME, SAME))
def inv_ex(A, *, check_errors=False):
    from .creation import zeros
    return inv(A), zeros(tuple(A.shape[:-2]), dtype=D.int32, device=A.device)


class LinalgDetBackward0(Node):
    @staticmethod
    def forward(ctx, A):
        det_ = wrap(_backend_call("torch.linalg.det", A, "linalg_det", A._data), A, A.shape[:-2])
        ctx.save_for_backward(A, det_)
        return det_

    @staticmethod
    def backward(ctx, g):
        A, det_ = ctx.saved_tensors
        return (g * det_).unsqueeze(-1).unsqueeze(-1) * inv(A).transpose(-1, -2)


@takes_out("_linalg_det", SAME)
def det(A):
    _square(A, "linalg.det")
    return apply_op(LinalgDetBackward0, A)


class LinalgSolveExBackward0(Node):
    @staticmethod
    def forward(ctx, A, B, vector):
        b = B.unsqueeze(-1) if vector else B
        X = wrap(_backend_call("torch.linalg.solve", A, "linalg_solve", A._data, b._data), A,
                 broadcast_shapes(A.shape[:-2], b.shape[:-2]) + b.shape[-2:])
        ctx.save_for_backward(A, X)
        ctx.vector = vector
        return X.squeeze(-1) if vector else X

    @staticmethod
    def backward(ctx, g):
        A, X = ctx.saved_tensors
        gb = solve(A.transpose(-1, -2), g)
        gb_m = gb.unsqueeze(-1) if ctx.vector else gb
        return -gb_m.matmul(X.transpose(-1, -2)), gb


@takes_out("_linalg_solve_ex", SAME)
def solve(A, B, *, left=True):
    _square(A, "linalg.solve")
    if not left:
        return solve(A.transpose(-1, -2), B.transpose(-1, -2)).transpose(-1, -2)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.name.capitalize()} and B of type {B.dtype.name.capitalize()} instead")
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    return apply_op(LinalgSolveExBackward0, A, B, vector)


FUNCTIONS = {"einsum": einsum, "tril": tril, "triu": triu, "diag": diag, "diag_embed": diag_embed, "trace": trace,
             "baddbmm": baddbmm, "addmv": addmv, "addbmm": addbmm, "cross": cross, "kron": kron, "cdist": cdist,
             "inverse": inv, "det": det}
METHODS = {k: v for k, v in FUNCTIONS.items() if k not in ("einsum", "cdist")}


def _tri_inplace(fn):
    def method(self, diagonal=0):
        from ._core.inplace import commit
        return commit(self, fn(self, diagonal))
    return method


METHODS.update({"tril_": _tri_inplace(tril), "triu_": _tri_inplace(triu)})
