"""Broadcasting elementwise ops: arithmetic, comparisons, unary math; forward and backward side by side.

A binary node declares ``_operands`` (see autograd.graph.Node): a Python-number operand keeps its slot, with
the edge (None, 0), as PyTorch's nodes do, and backward returns one gradient per slot.
"""
import math

from .. import _dtype as D
from ..autograd.graph import Node, apply_op, attach, recording
from ..autograd.grad_mode import state as _grad_state
from .._tensor import Tensor, _wrap
from .dispatch import operands, wrap, float_result
from .inplace import commit, check_castable, scalar_type_name

_NUMBERS = (bool, int, float)
_NUMBER_TYPES = frozenset(_NUMBERS)


def _ew(op, args, dtype):
    ref, hs = operands(args)
    return wrap(ref._be.elementwise(op, hs, dtype), ref)


def _ew2(op, a, b, dtype):
    """_ew for two operands; tensors of one backend, or a tensor and a Python number, go straight through."""
    if isinstance(a, Tensor):
        be = a._be
        if isinstance(b, Tensor):
            if b._be is be:
                return _wrap(be.elementwise(op, (a._data, b._data), dtype), be, a._device)
        elif type(b) in _NUMBER_TYPES:
            return _wrap(be.elementwise(op, (a._data, b), dtype), be, a._device)
    return _ew(op, (a, b), dtype)


def _rtype(a, b):
    """result_type of two operands, with the same-dtype pair answered inline."""
    if isinstance(b, Tensor) and isinstance(a, Tensor) and a.dtype is b.dtype:
        return a.dtype
    return D.result_type(a, b)


def _not_for_bool(kernel, dt):
    if dt is D.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _is_bool(x):
    return isinstance(x, bool) or (isinstance(x, Tensor) and x.dtype is D.bool_)


class _NotImplementedNode(Node):
    """PyTorch's autograd fallback node for an op that has no derivative: backward raises."""
    op = None

    def name(self):
        return "torch::autograd::NotImplemented"

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


_NotImplementedNode.__name__ = _NotImplementedNode.__qualname__ = "NotImplemented"  # PyTorch's class name


def _not_differentiable(op, result, *inputs):
    """Give result a NotImplemented grad_fn (edges: the inputs that require grad, as PyTorch's fallback)."""
    if _grad_state.enabled and result.dtype.is_floating_point:
        req = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
        if req:
            node = _NotImplementedNode()
            node.op = op
            attach(node, req, result)
    return result


# ---- binary arithmetic -----------------------------------------------------------------------------

class AddBackward0(Node):
    _operands = (0, 1)
    alpha = 1

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        dt = _rtype(a, b)
        if alpha != 1:
            ctx.alpha = alpha
            b = _ew2("mul", b, alpha, dt) if isinstance(b, Tensor) else b * alpha
        return _ew2("add", a, b, dt)

    @staticmethod
    def backward(ctx, g):
        alpha = ctx.alpha
        return g, ((g * alpha if alpha != 1 else g) if ctx.needs_input_grad[1] else None)


def _check_sub(a, b):
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _sub(a, b, dt, alpha):
    if alpha != 1:
        b = _ew2("mul", b, alpha, dt) if isinstance(b, Tensor) else b * alpha
    return _ew2("sub", a, b, dt)


class SubBackward0(Node):
    _operands = (0, 1)
    alpha = 1

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        if _is_bool(a) or _is_bool(b):
            _check_sub(a, b)
        if alpha != 1:
            ctx.alpha = alpha
        return _sub(a, b, _rtype(a, b), alpha)

    @staticmethod
    def backward(ctx, g):
        alpha = ctx.alpha
        return g, ((-g * alpha if alpha != 1 else -g) if ctx.needs_input_grad[1] else None)


class RsubBackward0(Node):
    """rsub(input, other) = other - alpha * input, other a Tensor."""
    _operands = (0, 1)
    alpha = 1

    @staticmethod
    def forward(ctx, x, other, alpha=1):
        _check_sub(other, x)
        if alpha != 1:
            ctx.alpha = alpha
        return _sub(other, x, _rtype(other, x), alpha)

    @staticmethod
    def backward(ctx, g):
        alpha = ctx.alpha
        gx = (-g * alpha if alpha != 1 else -g) if ctx.needs_input_grad[0] else None
        return (gx, g) if len(ctx.needs_input_grad) == 2 else (gx,)


class RsubBackward1(RsubBackward0):
    """rsub(input, number) (also ``number - tensor``): one edge."""
    _operands = (0,)


class MulBackward0(Node):
    _operands = (0, 1)
    other = None  # the Python-number operand, where there is one

    @staticmethod
    def forward(ctx, a, b):
        if recording(ctx):
            nig = ctx.needs_input_grad
            if isinstance(a, Tensor) and isinstance(b, Tensor):
                ctx.save_for_backward(b if nig[0] else None, a if nig[1] else None)
            else:
                ctx.save_for_backward()  # nothing, but a second backward still raises as PyTorch's does
                ctx.other = b if nig[0] else a
        return _ew2("mul", a, b, _rtype(a, b))

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors
        if not saved:
            return (g * ctx.other, None) if ctx.needs_input_grad[0] else (None, g * ctx.other)
        b, a = saved
        return (g * b if b is not None else None, g * a if a is not None else None)


class DivBackward0(Node):
    _operands = (0, 1)
    scalars = (None, None)  # the Python-number operands, where there are any

    @staticmethod
    def forward(ctx, a, b):
        dt = float_result(_rtype(a, b))
        if recording(ctx):
            ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if isinstance(b, Tensor) else None)
            if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
                ctx.scalars = (a, b)
        return _ew2("div", a, b, dt)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        nig = ctx.needs_input_grad
        if b is None:
            b = ctx.scalars[1]
        ga = g / b if nig[0] else None
        gb = None
        if nig[1]:
            gb = -g * (a if a is not None else ctx.scalars[0]) / (b * b)
        return ga, gb


def _rounded_div(a, b, rounding_mode):
    dt = _rtype(a, b)
    if rounding_mode == "trunc":
        _not_for_bool("div_trunc_cpu", dt)
        if dt.is_floating_point:
            return _ew("trunc", (_ew2("div", a, b, dt),), dt)
        # exact for integers of any size: a - fmod(a, b) is a multiple of b
        return _ew2("floor_divide", _ew2("sub", a, _ew2("fmod", a, b, dt), dt), b, dt)
    if rounding_mode == "floor":
        _not_for_bool("div_floor_cpu", dt)
        return _ew2("floor_divide", a, b, dt)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                       f"'{rounding_mode}'")


class DivBackward2(Node):
    """div with a rounding mode: piecewise constant, so zero gradients (PyTorch's ``grad * 0``)."""
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, a, b, rounding_mode):
        return _rounded_div(a, b, rounding_mode)

    @staticmethod
    def backward(ctx, g):
        return tuple([g * 0 if n else None for n in ctx.needs_input_grad])


class PowBackward0(Node):
    """tensor ** scalar"""
    _operands = (0,)

    @staticmethod
    def forward(ctx, a, e):
        ctx.save_for_backward(a)
        ctx.e = e
        dt = D.result_type(a, e)
        if not isinstance(e, bool):  # PyTorch allows bool ** True/False
            _not_for_bool("pow", dt)
        if not dt.is_floating_point and isinstance(e, int) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _ew("pow", (a, e), dt)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        e = ctx.e
        if e == 0:
            return (g * 0,)
        return (g * e * a.pow(e - 1),)


class PowBackward1(Node):
    """tensor ** tensor"""
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        dt = D.result_type(a, b)
        _not_for_bool("pow", dt)
        out = _ew("pow", (a, b), dt)
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        ga = g * b * a.pow(b - 1) if ctx.needs_input_grad[0] else None
        gb = g * out * where(a > 0, a, ones_like_(a)).log() if ctx.needs_input_grad[1] else None
        return ga, gb


class PowBackward2(Node):
    """scalar ** tensor"""
    _operands = (1,)

    @staticmethod
    def forward(ctx, s, b):
        dt = D.result_type(s, b) if not isinstance(s, float) else float_result(b.dtype)
        _not_for_bool("pow", dt)
        out = _ew("pow", (s, b), dt)
        ctx.save_for_backward(out)
        ctx.s = s
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return (g * out * math.log(ctx.s) if ctx.s > 0 else g * 0,)


def ones_like_(a):
    from .creation import ones_like
    return ones_like(a)


def add(input, other, *, alpha=1, out=None):
    r = apply_op(AddBackward0, input, other, alpha)
    return r if out is None else _out(r, out)


def sub(input, other, *, alpha=1, out=None):
    r = apply_op(SubBackward0, input, other, alpha)
    return r if out is None else _out(r, out)


def rsub(input, other, alpha=1):
    return apply_op(RsubBackward0 if isinstance(other, Tensor) else RsubBackward1, input, other, alpha)


def mul(input, other, *, out=None):
    r = apply_op(MulBackward0, input, other)
    return r if out is None else _out(r, out)


def div(input, other, *, rounding_mode=None, out=None):
    if rounding_mode is None:
        r = apply_op(DivBackward0, input, other)
    else:
        r = apply_op(DivBackward2, input, other, rounding_mode)
    return r if out is None else _out(r, out)


def true_divide(input, other):
    return div(input, other)


def floor_divide(input, other):
    return _not_differentiable("floor_divide", _rounded_div(input, other, "floor"), input, other)


def pow(input, exponent, *, out=None):
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        if exponent.dim() == 0 and exponent._device.type == "cpu" and input._device.type != "cpu":
            return apply_op(PowBackward0, input, exponent.item())
        return _out(apply_op(PowBackward1, input, exponent), out)
    if isinstance(input, Tensor):
        return _out(apply_op(PowBackward0, input, exponent), out)
    return _out(apply_op(PowBackward2, input, exponent), out)


def _out(r, out):
    if out is None:
        return r
    if tuple(out.shape) != tuple(r.shape):
        out.resize_(r.shape) if hasattr(out, "resize_") else None
    out._be.copy_(out._data, r._data)
    out._version[0] += 1
    return out


# ---- comparisons and logic (no gradient) ------------------------------------------------------------

def _cmp(op):
    def fn(input, other, *, out=None):
        dt = D.result_type(input, other)
        return _out(_ew(op, (input, other), dt), out)
    fn.__name__ = op
    return fn


eq, ne, lt, le, gt, ge = (_cmp(n) for n in ("eq", "ne", "lt", "le", "gt", "ge"))


def _logical(op):
    cmp = _cmp(op)

    def fn(input, other, *, out=None):
        if not isinstance(other, Tensor):
            raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
        return cmp(input, other, out=out)
    fn.__name__ = op
    return fn


logical_and, logical_or, logical_xor = (_logical(n) for n in ("logical_and", "logical_or", "logical_xor"))


def _bitwise(op):
    def fn(input, other):
        dt = D.result_type(input, other)
        if dt.is_floating_point:
            raise NotImplementedError(f"\"{op}_cpu\" not implemented for '{scalar_type_name(dt)}'")
        return _ew(op, (input, other), dt)
    fn.__name__ = op
    return fn


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(n) for n in ("bitwise_and", "bitwise_or", "bitwise_xor"))


def logical_not(input):
    return _ew("logical_not", (input,), input.dtype)


def bitwise_not(input):
    if input.dtype.is_floating_point:
        raise TypeError("~ (bitwise_not) is only supported for integer and boolean tensors")
    return _ew("bitwise_not", (input,), input.dtype)


def isnan(input):
    return _ew("isnan", (input,), input.dtype)


def isinf(input):
    return _ew("isinf", (input,), input.dtype)


def isfinite(input):
    return _ew("isfinite", (input,), input.dtype)


def signbit(input):
    return _ew("signbit", (input,), input.dtype)


def equal(input, other):
    return tuple(input.shape) == tuple(other.shape) and bool(eq(input, other).all().item())


# ---- where / clamp -----------------------------------------------------------------------------------

class WhereBackward0(Node):
    _operands = (1, 2)  # the condition gets no edge

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        if isinstance(cond, Tensor) and cond.dtype is not D.bool_:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{cond.dtype.name.capitalize()}")
        return _ew("where", (cond, a, b), D.result_type(a, b))

    @staticmethod
    def backward(ctx, g):
        z = g.new_zeros(())
        nig = ctx.needs_input_grad
        return (where(ctx.cond, g, z) if nig[0] else None, where(ctx.cond, z, g) if nig[1] else None)


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return apply_op(WhereBackward0, condition, input, other)


class ClampBackward1(Node):
    _operands = (0,)

    @staticmethod
    def forward(ctx, x, lo, hi):
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(x)
        ctx.bounds = (lo, hi)
        dt = D.result_type(x, *(b for b in (lo, hi) if b is not None))
        return _ew("clamp", (x, lo, hi), dt)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        mask = None
        if lo is not None:
            mask = x >= lo
        if hi is not None:
            m2 = x <= hi
            mask = m2 if mask is None else mask.logical_and(m2)
        return (g * mask,)


class ClampBackward0(Node):
    """clamp with Tensor bounds: gradients flow to the bound that was chosen."""
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, lo, hi):
        out = x
        if lo is not None:
            out = maximum(out, lo)
        if hi is not None:
            out = minimum(out, hi)
        ctx.save_for_backward(x)
        ctx.bounds = (lo, hi)
        return out if out is not x else x.clone()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        lo, hi = ctx.bounds
        gx, glo, ghi = g, None, None
        z = g.new_zeros(())
        if lo is not None:
            below = x < lo
            glo = where(below, g, z) if isinstance(lo, Tensor) else None
            gx = where(below, z, gx)
        if hi is not None:
            above = x > hi
            ghi = where(above, g, z) if isinstance(hi, Tensor) else None
            gx = where(above, z, gx)
        return gx, glo, ghi


def clamp(input, min=None, max=None, *, out=None):
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _out(apply_op(ClampBackward0, input, min, max), out)
    return _out(apply_op(ClampBackward1, input, min, max), out)


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def _make_extremum(op, node_name, pick):
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _ew(op, (a, b), D.result_type(a, b))

    def backward(ctx, g):
        a, b = ctx.saved_tensors
        shared = where(a == b, g / 2, g)
        z = g.new_zeros(())
        return where(pick(b, a), z, shared), where(pick(a, b), z, shared)

    node = type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": (0, 1)})

    def fn(input, other, *, out=None):
        return _out(apply_op(node, input, other), out)
    fn.__name__ = op
    return fn


maximum = _make_extremum("maximum", "MaximumBackward0", lambda a, b: a > b)
minimum = _make_extremum("minimum", "MinimumBackward0", lambda a, b: a < b)


# ---- unary math ---------------------------------------------------------------------------------------
# name -> (PyTorch node name, result kind, backward(g, x, y)); kind "float": ints become default float,
# "same": keeps dtype, "nograd": output needs no gradient (piecewise constant).

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_UNARY = {
    "neg": ("NegBackward0", "same", lambda g, x, y: -g),
    "abs": ("AbsBackward0", "same", lambda g, x, y: g * x.sign()),
    "exp": ("ExpBackward0", "float", lambda g, x, y: g * y),
    "exp2": ("Exp2Backward0", "float", lambda g, x, y: g * y * _LN2),
    "expm1": ("Expm1Backward0", "float", lambda g, x, y: g * (y + 1)),
    "log": ("LogBackward0", "float", lambda g, x, y: g / x),
    "log2": ("Log2Backward0", "float", lambda g, x, y: g / (x * _LN2)),
    "log10": ("Log10Backward0", "float", lambda g, x, y: g / (x * _LN10)),
    "log1p": ("Log1PBackward0", "float", lambda g, x, y: g / (x + 1)),
    "sqrt": ("SqrtBackward0", "float", lambda g, x, y: g / (2 * y)),
    "rsqrt": ("RsqrtBackward0", "float", lambda g, x, y: -0.5 * g * y * y * y),
    "sin": ("SinBackward0", "float", lambda g, x, y: g * x.cos()),
    "cos": ("CosBackward0", "float", lambda g, x, y: -g * x.sin()),
    "tan": ("TanBackward0", "float", lambda g, x, y: g * (1 + y * y)),
    "asin": ("AsinBackward0", "float", lambda g, x, y: g * (1 - x * x).rsqrt()),
    "acos": ("AcosBackward0", "float", lambda g, x, y: -g * (1 - x * x).rsqrt()),
    "atan": ("AtanBackward0", "float", lambda g, x, y: g / (1 + x * x)),
    "sinh": ("SinhBackward0", "float", lambda g, x, y: g * x.cosh()),
    "cosh": ("CoshBackward0", "float", lambda g, x, y: g * x.sinh()),
    "tanh": ("TanhBackward0", "float", lambda g, x, y: g * (1 - y * y)),
    "asinh": ("AsinhBackward0", "float", lambda g, x, y: g * (x * x + 1).rsqrt()),
    "acosh": ("AcoshBackward0", "float", lambda g, x, y: g * (x * x - 1).rsqrt()),
    "atanh": ("AtanhBackward0", "float", lambda g, x, y: g / (1 - x * x)),
    "sigmoid": ("SigmoidBackward0", "float", lambda g, x, y: g * y * (1 - y)),
    "relu": ("ReluBackward0", "same", lambda g, x, y: g * (y > 0)),
    "erf": ("ErfBackward0", "float", lambda g, x, y: g * (2 / math.sqrt(math.pi)) * (-x * x).exp()),
    "erfc": ("ErfcBackward0", "float", lambda g, x, y: g * (-2 / math.sqrt(math.pi)) * (-x * x).exp()),
    "erfinv": ("ErfinvBackward0", "float", lambda g, x, y: g * (math.sqrt(math.pi) / 2) * (y * y).exp()),
    "reciprocal": ("ReciprocalBackward0", "float", lambda g, x, y: -g * y * y),
    "square": ("PowBackward0", "same", lambda g, x, y: g * 2 * x),
    "frac": ("FracBackward0", "same", lambda g, x, y: g),
    "sign": ("SignBackward0", "nograd", None),
    "floor": ("FloorBackward0", "nograd", None),
    "ceil": ("CeilBackward0", "nograd", None),
    "round": ("RoundBackward0", "nograd", None),
    "trunc": ("TruncBackward0", "nograd", None),
}


def _make_unary(op, node_name, kind, bwd):
    to_float = kind == "float"
    rounding = op in ("floor", "ceil", "round", "trunc")

    def forward(ctx, x):
        dt = float_result(x.dtype) if to_float else x.dtype
        be = x._be
        y = _wrap(be.elementwise(op, (x._data,), dt), be, x._device)
        if recording(ctx):
            ctx.save_for_backward(x, y)
        return y

    def backward(ctx, g):
        x, y = ctx.saved_tensors
        if bwd is None:
            return g * 0
        return bwd(g, x, y)

    node = type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": (0,)})

    def fn(input, *, out=None):
        if rounding and not input.dtype.is_floating_point:
            return input.clone()
        r = apply_op(node, input)
        return r if out is None else _out(r, out)

    fn.__name__ = op
    return fn


UNARY = {op: _make_unary(op, *spec) for op, spec in _UNARY.items()}
globals().update(UNARY)


def round_(input, *, decimals=0):
    if decimals == 0:
        return UNARY["round"](input)
    s = 10.0 ** decimals
    return UNARY["round"](input * s) / s


def negative(input):
    return UNARY["neg"](input)


def positive(input):
    return input


# ---- more binary / ternary math --------------------------------------------------------------------

_FMAX = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}
_DTYPE_WORD = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
               "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def _float_only(name, dt):
    if not dt.is_floating_point:
        from .inplace import scalar_type_name
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{scalar_type_name(dt)}'")


def _make_binary(node_name, make_fwd, grads, operands=(0, 1)):
    """A Node for f(a, b) with Tensor/scalar operands; grads(g, a, b, out) -> (ga, gb) (None when unused).
    operands: (0, 1) for PyTorch's Tensor overload (a number operand keeps its slot), (0,) or (1,) for a
    Scalar overload, whose node has an edge for the tensor alone."""
    def forward(ctx, a, b):
        out = make_fwd(a, b)
        if recording(ctx):
            ctx.save_for_backward(*(x if isinstance(x, Tensor) else None for x in (a, b)), out)
            ctx.scalars = (a, b)
        return out

    def backward(ctx, g):
        sa, sb, out = ctx.saved_tensors
        a = sa if sa is not None else ctx.scalars[0]
        b = sb if sb is not None else ctx.scalars[1]
        r = grads(g, a, b, out)
        return r if len(operands) == 2 else (r[operands[0]],)

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": operands})


def _binary_fn(name, nodes):
    """Public f(input, other): nodes = (tensor-tensor, tensor-scalar, scalar-tensor) Node classes."""
    def fn(input, other, *, out=None):
        tt, ts, st = nodes
        node = tt if isinstance(input, Tensor) and isinstance(other, Tensor) else (
            ts if isinstance(input, Tensor) else st)
        return _out(apply_op(node, input, other), out)
    fn.__name__ = name
    return fn


def _fwd_atan2(a, b):
    return _ew("atan2", (a, b), float_result(D.result_type(a, b)))


def _grads_atan2(g, a, b, out):
    d = a * a + b * b
    return g * b / d, -g * a / d


_Atan2 = _make_binary("Atan2Backward0", _fwd_atan2, _grads_atan2)
atan2 = _binary_fn("atan2", (_Atan2, _Atan2, _Atan2))


def _fwd_remainder(a, b):
    dt = D.result_type(a, b)
    _not_for_bool("remainder_cpu", dt)
    return _ew("remainder", (a, b), dt)


def _fwd_fmod(a, b):
    dt = D.result_type(a, b)
    _not_for_bool("fmod_cpu", dt)
    return _ew("fmod", (a, b), dt)


_RemainderT = _make_binary("RemainderBackward1", _fwd_remainder,
                           lambda g, a, b, out: (g, -g * div(a, b, rounding_mode="floor")))
_RemainderS = _make_binary("RemainderBackward0", _fwd_remainder, lambda g, a, b, out: (g, None), (0,))
_remainder = _binary_fn("remainder", (_RemainderT, _RemainderS, _RemainderT))


def remainder(input, other, *, out=None):
    if isinstance(input, Tensor):
        return _remainder(input, other, out=out)
    # PyTorch's remainder(Scalar, Tensor) has no derivative
    return _out(_not_differentiable("remainder", _fwd_remainder(input, other), other), out)
_FmodT = _make_binary("FmodBackward1", _fwd_fmod, lambda g, a, b, out: (g, -g * div(a, b, rounding_mode="trunc")))
_FmodS = _make_binary("FmodBackward0", _fwd_fmod, lambda g, a, b, out: (g, None), (0,))
fmod = _binary_fn("fmod", (_FmodT, _FmodS, _FmodT))


def _fwd_hypot(a, b):
    dt = D.result_type(a, b)
    _float_only("hypot", dt)
    return _ew("hypot", (a, b), dt)


_Hypot = _make_binary("HypotBackward0", _fwd_hypot, lambda g, a, b, out: (g * a / out, g * b / out))
hypot = _binary_fn("hypot", (_Hypot, _Hypot, _Hypot))


def _fwd_logaddexp(a, b):
    dt = D.result_type(a, b)
    _float_only("logaddexp", dt)
    return _ew("logaddexp", (a, b), dt)


def _fwd_logaddexp2(a, b):
    dt = D.result_type(a, b)
    _float_only("logaddexp2", dt)
    return _ew("div", (_ew("logaddexp", (_ew("mul", (a, _LN2), dt), _ew("mul", (b, _LN2), dt)), dt), _LN2), dt)


_Logaddexp = _make_binary("LogaddexpBackward0", _fwd_logaddexp,
                          lambda g, a, b, out: (g / (1 + (b - a).exp()), g / (1 + (a - b).exp())))
logaddexp = _binary_fn("logaddexp", (_Logaddexp,) * 3)
_Logaddexp2 = _make_binary("Logaddexp2Backward0", _fwd_logaddexp2,
                           lambda g, a, b, out: (g / (1 + UNARY["exp2"](b - a)), g / (1 + UNARY["exp2"](a - b))))
logaddexp2 = _binary_fn("logaddexp2", (_Logaddexp2,) * 3)


def _fwd_xlogy(a, b):
    dt = float_result(D.result_type(a, b))
    if isinstance(b, Tensor):
        logb = _ew("log", (b,), dt)
        b_ok = _ew("logical_not", (_ew("isnan", (b,), dt),), D.bool_)
    else:
        logb = math.log(b) if b > 0 else (-math.inf if b == 0 else math.nan)
        b_ok = b == b
    prod = _ew("mul", (a, logb), dt)
    # 0 * log(0) is 0, but a NaN y still gives NaN (PyTorch's xlogy)
    if not isinstance(a, Tensor):
        return prod if a != 0 else _ew("where", (b_ok, 0, prod), dt)
    zero_x = _ew("logical_and", (_ew("eq", (a, 0), dt), b_ok), D.bool_)
    return _ew("where", (zero_x, 0, prod), dt)


def _grads_xlogy(g, a, b, out):
    ga = gb = None
    if isinstance(a, Tensor):
        ga = g * xlogy(a != 0, b)
    if isinstance(b, Tensor):
        gb = g * a / b
    return ga, gb


# PyTorch numbers them tensor-tensor 0, scalar-tensor 1, tensor-scalar 2
xlogy = _binary_fn("xlogy", tuple(_make_binary(f"XlogyBackward{i}", _fwd_xlogy, _grads_xlogy, ops)
                                  for i, ops in ((0, (0, 1)), (2, (0,)), (1, (1,)))))


def _fwd_copysign(a, b):
    return _ew("copysign", (a, b), float_result(D.result_type(a, b)))


def _grads_copysign(g, a, b, out):
    ratio = where(a == 0, out.new_zeros(()), out / a)
    return g * ratio, (g * 0 if isinstance(b, Tensor) else None)


_CopysignT = _make_binary("CopysignBackward0", _fwd_copysign, _grads_copysign)
_CopysignS = _make_binary("CopysignBackward1", _fwd_copysign, _grads_copysign, (0,))
copysign = _binary_fn("copysign", (_CopysignT, _CopysignS, _CopysignT))


def _make_fextremum(op, node_name, cmp):
    def fwd(a, b):
        dt = D.result_type(a, b)
        m = _ew("maximum" if op == "fmax" else "minimum", (a, b), dt)
        if not dt.is_floating_point:
            return m
        m = _ew("where", (_ew("isnan", (b,), dt), a, m), dt)  # NaN only when both are NaN
        return _ew("where", (_ew("isnan", (a,), dt), b, m), dt)

    def grads(g, a, b, out):
        take_a = cmp(a, b).logical_or(isnan(b))
        z = g.new_zeros(())
        return where(take_a, g, z), where(take_a, z, g)

    node = _make_binary(node_name, fwd, grads)
    return _binary_fn(op, (node, node, node))


fmax = _make_fextremum("fmax", "FmaxBackward0", lambda a, b: a >= b)
fmin = _make_fextremum("fmin", "FminBackward0", lambda a, b: a <= b)


def float_power(input, exponent, *, out=None):
    def up(x):
        return x.to(D.float64) if isinstance(x, Tensor) else float(x)
    return pow(up(input), up(exponent), out=out)


def _float_power_(self, exponent):
    if self.dtype is not D.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(self.dtype)} but the "
                           "operation's result requires dtype Double")
    r = float_power(self, exponent)
    keep_original_self(r, self)
    return commit(self, r)


class AddcmulBackward0(Node):
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, t1, t2, value):
        dt = D.result_type(x, t1, t2)
        if recording(ctx):
            ctx.save_for_backward(t1 if ctx.needs_input_grad[2] else None, t2 if ctx.needs_input_grad[1] else None)
            ctx.value = value
        prod = _ew("mul", (t1, t2), dt)
        if value != 1:
            prod = _ew("mul", (prod, value), dt)
        return _ew("add", (x, prod), dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        gv = g * ctx.value if ctx.value != 1 else g
        return g, (gv * t2 if t2 is not None else None), (gv * t1 if t1 is not None else None)


class AddcdivBackward0(Node):
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, t1, t2, value):
        dt = D.result_type(x, t1, t2)
        if not t1.dtype.is_floating_point and not t2.dtype.is_floating_point:
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented "
                "as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
                "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the "
                "latter implementation: (input + value * tensor1 / tensor2), for all dtypes.")
        if recording(ctx):
            ctx.save_for_backward(t1, t2)
            ctx.value = value
        q = _ew("div", (t1, t2), dt)
        if value != 1:
            q = _ew("mul", (q, value), dt)
        return _ew("add", (x, q), dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        gv = g * ctx.value if ctx.value != 1 else g
        return g, gv / t2, -gv * t1 / (t2 * t2)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return _out(apply_op(AddcmulBackward0, input, tensor1, tensor2, value), out)


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return _out(apply_op(AddcdivBackward0, input, tensor1, tensor2, value), out)


def _same_dtype(x, other, what):
    if isinstance(other, Tensor) and other.dtype is not x.dtype:
        raise RuntimeError(f"expected dtype {_DTYPE_WORD[x.dtype.name]} for `{what}` but got dtype "
                           f"{_DTYPE_WORD[other.dtype.name]}")


class LerpBackward0(Node):
    """lerp with a Python-number weight."""
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, x, end, w):
        ctx.w = w
        dt = x.dtype
        return _ew("add", (x, _ew("mul", (_ew("sub", (end, x), dt), w), dt)), dt)

    @staticmethod
    def backward(ctx, g):
        return g * (1 - ctx.w), g * ctx.w


class LerpBackward1(Node):
    """lerp with a Tensor weight."""
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, end, w):
        dt = x.dtype
        diff = _ew("sub", (end, x), dt)
        if recording(ctx):
            ctx.save_for_backward(w, diff)
        return _ew("add", (x, _ew("mul", (diff, w), dt)), dt)

    @staticmethod
    def backward(ctx, g):
        w, diff = ctx.saved_tensors
        return g * (1 - w), g * w, g * diff


def lerp(input, end, weight, *, out=None):
    _same_dtype(input, end, "end")
    if isinstance(weight, Tensor):
        _same_dtype(input, weight, "weight")
        return _out(apply_op(LerpBackward1, input, end, weight), out)
    return _out(apply_op(LerpBackward0, input, end, weight), out)


def _make_unary_composite(node_name, fwd, grad, float_out=True):
    """A unary op built from primitives: fwd(x, dt) -> Tensor, grad(g, x, y) -> Tensor."""
    def forward(ctx, x, *params):
        ctx.params = params
        dt = float_result(x.dtype) if float_out else x.dtype
        y = fwd(x, dt, *params)
        if recording(ctx):
            ctx.save_for_backward(x, y)
        return y

    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return grad(g, x, y, *ctx.params)

    return type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": (0,)})


def _sinc_fwd(x, dt):
    px = _ew("mul", (x, math.pi), dt)
    r = _ew("div", (_ew("sin", (px,), dt), px), dt)
    return _ew("where", (_ew("eq", (x, 0), dt), 1, r), dt)


def _sinc_grad(g, x, y):
    px = x * math.pi
    d = (px * px.cos() - px.sin()) / (px * x)
    return g * where(x == 0, d.new_zeros(()), d)


_Sinc = _make_unary_composite("SincBackward0", _sinc_fwd, _sinc_grad)
_Deg2Rad = _make_unary_composite("Deg2RadBackward0", lambda x, dt: _ew("mul", (x, math.pi / 180), dt),
                                 lambda g, x, y: g * (math.pi / 180))
_Rad2Deg = _make_unary_composite("Rad2DegBackward0", lambda x, dt: _ew("mul", (x, 180 / math.pi), dt),
                                 lambda g, x, y: g * (180 / math.pi))
_Sgn = _make_unary_composite("SgnBackward0", lambda x, dt: _ew("sign", (x,), dt), lambda g, x, y: g * 0,
                             float_out=False)


def _logit_fwd(x, dt, eps):
    if eps is not None:
        x = _ew("clamp", (x, eps, 1 - eps), dt)
    return _ew("log", (_ew("div", (x, _ew("sub", (1, x), dt)), dt),), dt)


def _logit_grad(g, x, y, eps):
    d = g / (x * (1 - x))
    if eps is None:
        return where((x < 0).logical_or(x > 1), d.new_full((), math.nan), d)
    return where((x < eps).logical_or(x > 1 - eps), d.new_zeros(()), d)


_Logit = _make_unary_composite("LogitBackward0", _logit_fwd, _logit_grad)


def _nan_to_num_fwd(x, dt, nan, posinf, neginf):
    if not dt.is_floating_point:
        return wrap(x._be.contiguous(x._data), x)
    big = _FMAX[dt.name]
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    inf = _ew("isinf", (x,), dt)
    r = _ew("where", (_ew("isnan", (x,), dt), nan, x), dt)
    r = _ew("where", (_ew("logical_and", (inf, _ew("gt", (x, 0), dt)), D.bool_), hi, r), dt)
    return _ew("where", (_ew("logical_and", (inf, _ew("lt", (x, 0), dt)), D.bool_), lo, r), dt)


_NanToNum = _make_unary_composite("NanToNumBackward0", _nan_to_num_fwd, lambda g, x, y, *p: g * x.isfinite(),
                                  float_out=False)


def sinc(input, *, out=None):
    return _out(apply_op(_Sinc, input), out)


def deg2rad(input, *, out=None):
    return _out(apply_op(_Deg2Rad, input), out)


def rad2deg(input, *, out=None):
    return _out(apply_op(_Rad2Deg, input), out)


def sgn(input, *, out=None):
    return _out(apply_op(_Sgn, input), out)


def logit(input, eps=None, *, out=None):
    return _out(apply_op(_Logit, input, eps), out)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    return _out(apply_op(_NanToNum, input, nan, posinf, neginf), out)


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{scalar_type_name(input.dtype)} did not match {scalar_type_name(other.dtype)}")
    close = eq(input, other)
    if input.dtype is D.bool_:
        return close
    if equal_nan and input.dtype.is_floating_point:
        close = close.logical_or(input.isnan().logical_and(other.isnan()))
    dt = float_result(input.dtype)
    err = (input.to(dt) - other.to(dt)).abs()
    return close.logical_or(err.isfinite().logical_and(err <= atol + (other.to(dt) * rtol).abs()))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


def _heaviside(x, values):
    if x.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    dt = x.dtype
    return _ew("where", (_ew("eq", (x, 0), dt), values, _ew("gt", (x, 0), dt)), dt)


def heaviside(input, values, *, out=None):
    return _out(_not_differentiable("heaviside", _heaviside(input, values), input, values), out)


def keep_original_self(result, self):
    """Before an in-place write: if the out-of-place op saved ``self`` for backward, save a copy instead
    (PyTorch's in-place derivatives keep ``original_self`` the same way), so backward sees the old values."""
    node = result.grad_fn
    saved = node._saved if node is not None else None
    if type(saved) is not tuple or not any(item is not None and item[0] is self for item in saved):
        return
    orig = self.clone()
    node._saved = tuple((orig, orig._version[0]) if item is not None and item[0] is self else item
                        for item in saved)


def _inplace(fn):
    def method(self, *args, **kwargs):
        r = fn(self, *args, **kwargs)
        check_castable(r.dtype, self.dtype)
        keep_original_self(r, self)
        return commit(self, r)
    method.__name__ = fn.__name__ + "_"
    return method


def _rev(fn):
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, bool)):
            return NotImplemented
        return fn(other, self)
    return method


def _fwd(fn):
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, bool)):
            return NotImplemented
        return fn(self, other)
    return method


def _rpow(self, other):
    return pow(other, self)


_OPERAND_TYPES = (Tensor,) + _NUMBERS


def _dunder(node):
    """self (op) other straight through node: the hot path of ``a + b``."""
    def method(self, other):
        if isinstance(other, _OPERAND_TYPES):
            return apply_op(node, self, other)
        return NotImplemented
    return method


def _rdunder(node):
    """other (op) self for a commutative op: PyTorch computes ``2 * x`` as ``x.mul(2)`` (edges (x, None))."""
    def method(self, other):
        if isinstance(other, Tensor):
            return apply_op(node, other, self)
        if isinstance(other, _NUMBERS):
            return apply_op(node, self, other)
        return NotImplemented
    return method


def _rsub_dunder(self, other):
    if isinstance(other, Tensor):
        return sub(other, self)
    if isinstance(other, _NUMBERS):
        return rsub(self, other)
    return NotImplemented


def _rtruediv_dunder(self, other):
    if isinstance(other, Tensor):
        return div(other, self)
    if isinstance(other, _NUMBERS):
        return mul(UNARY["reciprocal"](self), other)  # as PyTorch's Tensor.__rtruediv__
    return NotImplemented


def _eq_method(fn):
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, bool)):
            return False if fn is eq else True
        return fn(self, other)
    return method


FUNCTIONS = dict(UNARY)
FUNCTIONS.update({
    "addcmul": addcmul, "addcdiv": addcdiv, "lerp": lerp, "atan2": atan2, "arctan2": atan2,
    "remainder": remainder, "fmod": fmod, "hypot": hypot, "logaddexp": logaddexp, "logaddexp2": logaddexp2,
    "xlogy": xlogy, "nan_to_num": nan_to_num, "logit": logit, "copysign": copysign, "float_power": float_power,
    "sgn": sgn, "deg2rad": deg2rad, "rad2deg": rad2deg, "fmax": fmax, "fmin": fmin, "isclose": isclose,
    "allclose": allclose, "heaviside": heaviside, "sinc": sinc,
})
FUNCTIONS.update({
    "add": add, "sub": sub, "subtract": sub, "rsub": rsub, "mul": mul, "multiply": mul, "div": div,
    "divide": div, "true_divide": true_divide, "floor_divide": floor_divide, "pow": pow,
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "greater": gt, "less": lt,
    "greater_equal": ge, "less_equal": le, "not_equal": ne,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor, "logical_not": logical_not,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "signbit": signbit, "equal": equal,
    "where": where, "clamp": clamp, "clip": clamp, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "maximum": maximum, "minimum": minimum, "round": round_, "negative": negative, "positive": positive,
    "absolute": UNARY["abs"], "arcsin": UNARY["asin"], "arccos": UNARY["acos"], "arctan": UNARY["atan"],
    "arcsinh": UNARY["asinh"], "arccosh": UNARY["acosh"], "arctanh": UNARY["atanh"], "fix": UNARY["trunc"],
})

METHODS = {k: v for k, v in FUNCTIONS.items() if k not in ("where", "equal")}
METHODS["where"] = lambda self, condition, other: where(condition, self, other)
METHODS["equal"] = equal
for _name in ("add", "sub", "mul", "div", "pow", "clamp", "clamp_min", "clamp_max", "floor_divide",
              "true_divide", "subtract", "multiply", "divide", "clip", "maximum", "minimum",
              "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or",
              "bitwise_xor", "bitwise_not", "round", "negative", "absolute", "arcsin", "arccos",
              "arctan", "fix", "eq", "ne", "lt", "le", "gt", "ge", "addcmul", "addcdiv", "lerp", "atan2",
              "arctan2", "remainder", "fmod", "hypot", "xlogy", "nan_to_num", "logit", "copysign", "sgn",
              "deg2rad", "rad2deg", "heaviside", "sinc", "arcsinh", "arccosh", "arctanh") + tuple(UNARY):
    METHODS[_name + "_"] = _inplace(FUNCTIONS[_name])
METHODS["float_power_"] = _float_power_
# PyTorch also has torch.<name>_ for these
for _name in tuple(n for n in UNARY if n != "sign") + (
        "round", "negative", "fix", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "clamp",
        "clip", "clamp_min", "clamp_max", "xlogy", "nan_to_num", "logit", "deg2rad", "rad2deg", "sinc"):
    FUNCTIONS[_name + "_"] = METHODS[_name + "_"]

DUNDERS = {
    "__add__": _dunder(AddBackward0), "__radd__": _rdunder(AddBackward0), "__sub__": _dunder(SubBackward0),
    "__rsub__": _rsub_dunder, "__mul__": _dunder(MulBackward0), "__rmul__": _rdunder(MulBackward0),
    "__truediv__": _dunder(DivBackward0), "__rtruediv__": _rtruediv_dunder,
    "__floordiv__": _fwd(floor_divide), "__rfloordiv__": _rev(floor_divide),
    "__mod__": _fwd(remainder), "__rmod__": _rev(remainder),
    "__pow__": _fwd(pow), "__rpow__": _rpow,
    "__neg__": UNARY["neg"], "__pos__": positive, "__abs__": UNARY["abs"], "__invert__": bitwise_not,
    "__and__": _fwd(bitwise_and), "__rand__": _rev(bitwise_and), "__or__": _fwd(bitwise_or),
    "__ror__": _rev(bitwise_or), "__xor__": _fwd(bitwise_xor), "__rxor__": _rev(bitwise_xor),
    "__eq__": _eq_method(eq), "__ne__": _eq_method(ne), "__lt__": _fwd(lt), "__le__": _fwd(le),
    "__gt__": _fwd(gt), "__ge__": _fwd(ge),
    "__iadd__": METHODS["add_"], "__isub__": METHODS["sub_"], "__imul__": METHODS["mul_"],
    "__itruediv__": METHODS["div_"], "__ipow__": METHODS["pow_"], "__ifloordiv__": METHODS["floor_divide_"],
    "__imod__": METHODS["remainder_"],
    "__iand__": METHODS["bitwise_and_"], "__ior__": METHODS["bitwise_or_"], "__ixor__": METHODS["bitwise_xor_"],
}
