"""Broadcasting elementwise ops: arithmetic, comparisons, unary math; forward and backward side by side."""
import math

from .. import _dtype as D
from ..autograd.graph import Node, apply_op, recording
from .._tensor import Tensor
from .dispatch import operands, wrap, float_result
from .inplace import commit, check_castable


def _ew(op, args, dtype):
    ref, hs = operands(args)
    return wrap(ref._be.elementwise(op, hs, dtype), ref)


def _pick(ctx, *grads):
    """Keep the gradients of the arguments that were Tensors (apply_op's input order)."""
    return tuple(g for g, is_t in zip(grads, ctx.is_tensor) if is_t)


def _mark(ctx, *args):
    ctx.is_tensor = tuple(isinstance(a, Tensor) for a in args)


# ---- binary arithmetic -----------------------------------------------------------------------------

class AddBackward0(Node):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _mark(ctx, a, b)
        ctx.alpha = alpha
        dt = D.result_type(a, b)
        if alpha != 1:
            return _ew("add", (a, _ew("mul", (b, alpha), dt) if isinstance(b, Tensor) else b * alpha), dt)
        return _ew("add", (a, b), dt)

    @staticmethod
    def backward(ctx, g):
        return _pick(ctx, g, g * ctx.alpha if ctx.alpha != 1 else g)


class SubBackward0(Node):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        _mark(ctx, a, b)
        ctx.alpha = alpha
        dt = D.result_type(a, b)
        if dt is D.bool_:
            raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                               "Use the `^` or `logical_xor()` operator instead.")
        if alpha != 1:
            return _ew("sub", (a, _ew("mul", (b, alpha), dt) if isinstance(b, Tensor) else b * alpha), dt)
        return _ew("sub", (a, b), dt)

    @staticmethod
    def backward(ctx, g):
        return _pick(ctx, g, -g * ctx.alpha if ctx.alpha != 1 else -g)


class RsubBackward1(SubBackward0):
    pass


class MulBackward0(Node):
    @staticmethod
    def forward(ctx, a, b):
        _mark(ctx, a, b)
        if recording(ctx):
            ta, tb = ctx.is_tensor
            nig = ctx.needs_input_grad
            if ta and tb:
                ctx.save_for_backward(b if nig[0] else None, a if nig[1] else None)
            else:
                ctx.other = b if ta else a
        return _ew("mul", (a, b), D.result_type(a, b))

    @staticmethod
    def backward(ctx, g):
        if ctx.is_tensor == (True, True):
            b, a = ctx.saved_tensors
            return (g * b if b is not None else None, g * a if a is not None else None)
        return (g * ctx.other,)


class DivBackward0(Node):
    @staticmethod
    def forward(ctx, a, b, rounding_mode=None):
        _mark(ctx, a, b)
        dt = D.result_type(a, b)
        if rounding_mode is None:
            dt = float_result(dt)
            if recording(ctx):
                ctx.save_for_backward(a if isinstance(a, Tensor) else None, b if isinstance(b, Tensor) else None)
                ctx.scalars = (a, b)
            return _ew("div", (a, b), dt)
        if rounding_mode == "trunc":
            return _ew("trunc", (_ew("div", (a, b), float_result(dt)),), float_result(dt)).to(dt) \
                if not dt.is_floating_point else _ew("trunc", (_ew("div", (a, b), dt),), dt)
        if rounding_mode == "floor":
            return _ew("floor_divide", (a, b), dt)
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors if ctx._saved is not None else (None, None)
        sa, sb = ctx.scalars
        b = b if b is not None else sb
        ga = g / b if ctx.is_tensor[0] else None
        gb = None
        if ctx.is_tensor[1]:
            a = a if a is not None else sa
            gb = -g * a / (b * b)
        return _pick(ctx, ga, gb)


class PowBackward0(Node):
    """tensor ** scalar"""
    @staticmethod
    def forward(ctx, a, e):
        ctx.save_for_backward(a)
        ctx.e = e
        dt = D.result_type(a, e)
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
    @staticmethod
    def forward(ctx, a, b):
        out = _ew("pow", (a, b), D.result_type(a, b))
        ctx.save_for_backward(a, b, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, b, out = ctx.saved_tensors
        ga = g * b * a.pow(b - 1)
        gb = g * out * where(a > 0, a, ones_like_(a)).log() if ctx.needs_input_grad[1] else None
        return ga, gb


class PowBackward2(Node):
    """scalar ** tensor"""
    @staticmethod
    def forward(ctx, s, b):
        out = _ew("pow", (s, b), D.result_type(s, b) if not isinstance(s, float) else float_result(b.dtype))
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
    return _out(r, out)


def sub(input, other, *, alpha=1, out=None):
    return _out(apply_op(SubBackward0, input, other, alpha), out)


def rsub(input, other, alpha=1):
    return apply_op(RsubBackward1, other, input, alpha)


def mul(input, other, *, out=None):
    return _out(apply_op(MulBackward0, input, other), out)


def div(input, other, *, rounding_mode=None, out=None):
    return _out(apply_op(DivBackward0, input, other, rounding_mode), out)


def true_divide(input, other):
    return div(input, other)


def floor_divide(input, other):
    return apply_op(DivBackward0, input, other, "floor")


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
logical_and, logical_or, logical_xor = (_cmp(n) for n in ("logical_and", "logical_or", "logical_xor"))


def _bitwise(op):
    def fn(input, other):
        dt = D.result_type(input, other)
        if dt.is_floating_point:
            raise RuntimeError(f"\"{op}_cpu\" not implemented for '{dt.name.capitalize()}'")
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
    @staticmethod
    def forward(ctx, cond, a, b):
        _mark(ctx, cond, a, b)
        ctx.cond = cond
        if isinstance(cond, Tensor) and cond.dtype is not D.bool_:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{cond.dtype.name.capitalize()}")
        return _ew("where", (cond, a, b), D.result_type(a, b))

    @staticmethod
    def backward(ctx, g):
        z = g.new_zeros(())
        return _pick(ctx, None, where(ctx.cond, g, z), where(ctx.cond, z, g))


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    return apply_op(WhereBackward0, condition, input, other)


class ClampBackward1(Node):
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
    @staticmethod
    def forward(ctx, x, lo, hi):
        _mark(ctx, x, lo, hi)
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
        return _pick(ctx, gx, glo, ghi)


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
        wa = pick(a, b).to(g.dtype) + (a == b) * 0.5
        return g * wa, g * (1 - wa)

    node = type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})

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
    def forward(ctx, x):
        dt = x.dtype
        if kind == "float":
            dt = float_result(dt)
        y = wrap(x._be.elementwise(op, (x._data,), dt), x)
        if recording(ctx):
            ctx.save_for_backward(x, y)
        return y

    def backward(ctx, g):
        x, y = ctx.saved_tensors
        if bwd is None:
            return g * 0
        return bwd(g, x, y)

    node = type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})

    def fn(input, *, out=None):
        if op in ("floor", "ceil", "round", "trunc") and not input.dtype.is_floating_point:
            return input.clone()
        return _out(apply_op(node, input), out)

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


def _inplace(fn):
    def method(self, *args, **kwargs):
        r = fn(self, *args, **kwargs)
        check_castable(r.dtype, self.dtype)
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


def _eq_method(fn):
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, bool)):
            return False if fn is eq else True
        return fn(self, other)
    return method


FUNCTIONS = dict(UNARY)
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
              "arctan", "fix", "eq", "ne", "lt", "le", "gt", "ge") + tuple(UNARY):
    METHODS[_name + "_"] = _inplace(FUNCTIONS[_name])

DUNDERS = {
    "__add__": _fwd(add), "__radd__": _rev(add), "__sub__": _fwd(sub), "__rsub__": _rev(sub),
    "__mul__": _fwd(mul), "__rmul__": _rev(mul), "__truediv__": _fwd(div), "__rtruediv__": _rev(div),
    "__floordiv__": _fwd(floor_divide), "__rfloordiv__": _rev(floor_divide),
    "__pow__": _fwd(pow), "__rpow__": _rpow,
    "__neg__": UNARY["neg"], "__pos__": positive, "__abs__": UNARY["abs"], "__invert__": bitwise_not,
    "__and__": _fwd(bitwise_and), "__rand__": _rev(bitwise_and), "__or__": _fwd(bitwise_or),
    "__ror__": _rev(bitwise_or), "__xor__": _fwd(bitwise_xor), "__rxor__": _rev(bitwise_xor),
    "__eq__": _eq_method(eq), "__ne__": _eq_method(ne), "__lt__": _fwd(lt), "__le__": _fwd(le),
    "__gt__": _fwd(gt), "__ge__": _fwd(ge),
    "__iadd__": METHODS["add_"], "__isub__": METHODS["sub_"], "__imul__": METHODS["mul_"],
    "__itruediv__": METHODS["div_"], "__ipow__": METHODS["pow_"], "__ifloordiv__": METHODS["floor_divide_"],
    "__iand__": METHODS["bitwise_and_"], "__ior__": METHODS["bitwise_or_"], "__ixor__": METHODS["bitwise_xor_"],
}
