"""Unary math: the table of one-kernel ops (exp, log, sin, sqrt, sigmoid, relu, floor, ...) with their node
factory, round(decimals), negative/positive, and the composite ops sinc, deg2rad, rad2deg, sgn, logit, nan_to_num;
unary - + abs() operators.
"""
import math

from .. import _dtype as D
from ..autograd.graph import Node, apply_op, recording
from .._tensor import FRESH, _wrap, fresh_geometry
from ._core.dispatch import wrap, float_result
from ._core.elementwise import ew, write_out, inplace_method
from ._core.inplace import not_implemented_for
from .where_clamp import where


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


# the ops whose backward reads the result; the others read only the input. Each node saves just the one it needs
# (as PyTorch's), so an in-place change to the other (y = x.log(); y[mask] = 0) leaves backward valid.
_SAVES_RESULT = {"exp", "exp2", "expm1", "sqrt", "rsqrt", "tan", "tanh", "sigmoid", "relu", "erfinv", "reciprocal"}


# the dtypes PyTorch 2.13 refuses per op, with its exception: (refused(dtype), kernel named by its NotImplementedError)
_REFUSES = {op: (lambda dt: dt is D.bool_, f"{op}_vml_cpu") for op in ("floor", "ceil", "round", "trunc")}
_REFUSES.update(abs=(lambda dt: dt is D.bool_, "abs_cpu"), frac=(lambda dt: not dt.is_floating_point, "frac_cpu"))


def check_unary_dtype(op, dt):
    """Refuse dtype dt for the unary op ``op`` as PyTorch 2.13 refuses it (a bool negation, a bool floor, ...)."""
    if dt is D.bool_ and op == "neg":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    if dt is D.bool_ and op == "relu":
        raise RuntimeError("Boolean inputs not supported for relu")
    refused, kernel = _REFUSES.get(op, (None, None))
    if refused is not None and refused(dt):
        raise not_implemented_for(kernel, dt)


def _make_unary(op, node_name, kind, bwd):
    to_float = kind == "float"
    rounding = op in ("floor", "ceil", "round", "trunc")
    saves_result = op in _SAVES_RESULT
    square = op == "square"

    def forward(ctx, x):
        dt = float_result(x.dtype) if to_float else x.dtype
        g = x._geom
        try:
            fg = FRESH[g[0]]  # (fresh_geometry's cache read inline, as ew2 does: the hot path of x.relu())
        except KeyError:
            fg = fresh_geometry(g[0])
        if g is fg or g[1] == fg[1]:  # a C-ordered operand: a C-ordered result, straight from the backend
            be = x._be
            y = _wrap(be.elementwise(op, (x._data,), dt), be, x._device, fg, dtype=dt)
        else:
            y = ew(op, (x,), dt, dt)
        if recording(ctx):
            ctx.save_for_backward(None, y) if saves_result else ctx.save_for_backward(x, None)
        return y

    def backward(ctx, g):
        x, y = ctx.saved_tensors
        if bwd is None:
            return g * 0
        return bwd(g, x, y)

    node = type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": (0,)})

    def fn(input, *, out=None):
        check_unary_dtype(op, input.dtype)
        if square and input.dtype is D.bool_:   # PyTorch squares as pow(x, 2): a bool promotes to int64
            input = input.to(D.int64)
        # rounding an integer is the identity (a copy, as PyTorch), and so is the sign of a bool
        identity = (rounding and not input.dtype.is_floating_point) or (op == "sign" and input.dtype is D.bool_)
        r = input.clone() if identity else apply_op(node, input)
        return r if out is None else write_out(r, out, (input,), op)

    fn.__name__ = op
    return fn


UNARY = {op: _make_unary(op, *spec) for op, spec in _UNARY.items()}
neg = UNARY["neg"]
abs = UNARY["abs"]
exp = UNARY["exp"]
exp2 = UNARY["exp2"]
expm1 = UNARY["expm1"]
log = UNARY["log"]
log2 = UNARY["log2"]
log10 = UNARY["log10"]
log1p = UNARY["log1p"]
sqrt = UNARY["sqrt"]
rsqrt = UNARY["rsqrt"]
sin = UNARY["sin"]
cos = UNARY["cos"]
tan = UNARY["tan"]
asin = UNARY["asin"]
acos = UNARY["acos"]
atan = UNARY["atan"]
sinh = UNARY["sinh"]
cosh = UNARY["cosh"]
tanh = UNARY["tanh"]
asinh = UNARY["asinh"]
acosh = UNARY["acosh"]
atanh = UNARY["atanh"]
sigmoid = UNARY["sigmoid"]
relu = UNARY["relu"]
erf = UNARY["erf"]
erfc = UNARY["erfc"]
erfinv = UNARY["erfinv"]
reciprocal = UNARY["reciprocal"]
square = UNARY["square"]
frac = UNARY["frac"]
sign = UNARY["sign"]
floor = UNARY["floor"]
ceil = UNARY["ceil"]
round = UNARY["round"]
trunc = UNARY["trunc"]


def torch_round(input, *, decimals=0):
    if decimals == 0:
        return UNARY["round"](input)
    s = 10.0 ** decimals
    return UNARY["round"](input * s) / s


def negative(input):
    return UNARY["neg"](input)


def positive(input):
    if input.dtype is D.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ---- composite unary ops: several primitives, one node ------------------------------------------------



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
    px = ew("mul", (x, math.pi), dt)
    r = ew("div", (ew("sin", (px,), dt), px), dt)
    return ew("where", (ew("eq", (x, 0), dt), 1, r), dt)


def _sinc_grad(g, x, y):
    px = x * math.pi
    d = (px * px.cos() - px.sin()) / (px * x)
    return g * where(x == 0, d.new_zeros(()), d)


_Sinc = _make_unary_composite("SincBackward0", _sinc_fwd, _sinc_grad)
_Deg2Rad = _make_unary_composite("Deg2RadBackward0", lambda x, dt: ew("mul", (x, math.pi / 180), dt),
                                 lambda g, x, y: g * (math.pi / 180))
_Rad2Deg = _make_unary_composite("Rad2DegBackward0", lambda x, dt: ew("mul", (x, 180 / math.pi), dt),
                                 lambda g, x, y: g * (180 / math.pi))
_Sgn = _make_unary_composite("SgnBackward0", lambda x, dt: ew("sign", (x,), dt), lambda g, x, y: g * 0,
                             float_out=False)


def _logit_fwd(x, dt, eps):
    if eps is not None:   # PyTorch's bounds test in this order: with eps > 0.5 (lo > hi) x < eps wins
        x = ew("where", (ew("lt", (x, eps), dt), eps, ew("where", (ew("gt", (x, 1 - eps), dt), 1 - eps, x), dt)), dt)
    return ew("log", (ew("div", (x, ew("sub", (1, x), dt)), dt),), dt)


def _logit_grad(g, x, y, eps):
    d = g / (x * (1 - x))
    if eps is None:
        return where((x < 0).logical_or(x > 1), d.new_full((), math.nan), d)
    return where((x < eps).logical_or(x > 1 - eps), d.new_zeros(()), d)


_Logit = _make_unary_composite("LogitBackward0", _logit_fwd, _logit_grad)


def _nan_to_num_fwd(x, dt, nan, posinf, neginf):
    if not dt.is_floating_point:
        return wrap(x._be.contiguous(x._data), x, x.shape)
    big = D.finfo(dt).max
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    inf = ew("isinf", (x,), dt)
    r = ew("where", (ew("isnan", (x,), dt), nan, x), dt)
    r = ew("where", (ew("logical_and", (inf, ew("gt", (x, 0), dt)), D.bool_), hi, r), dt)
    return ew("where", (ew("logical_and", (inf, ew("lt", (x, 0), dt)), D.bool_), lo, r), dt)


_NanToNum = _make_unary_composite("NanToNumBackward0", _nan_to_num_fwd, lambda g, x, y, *p: g * x.isfinite(),
                                  float_out=False)


def sinc(input, *, out=None):
    return write_out(apply_op(_Sinc, input), out, (input,), "sinc")


def deg2rad(input, *, out=None):
    return write_out(apply_op(_Deg2Rad, input), out, (input,), "deg2rad")


def rad2deg(input, *, out=None):
    return write_out(apply_op(_Rad2Deg, input), out, (input,), "rad2deg")


def sgn(input, *, out=None):
    r = input.clone() if input.dtype is D.bool_ else apply_op(_Sgn, input)   # a bool is its own sign
    return write_out(r, out, (input,), "sgn")


def logit(input, eps=None, *, out=None):
    if eps is not None and eps < 0:   # PyTorch: a negative eps is no eps
        eps = None
    return write_out(apply_op(_Logit, input, eps), out, (input,), "logit")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    return write_out(apply_op(_NanToNum, input, nan, posinf, neginf), out, (input,), "nan_to_num")


FUNCTIONS = dict(UNARY)
FUNCTIONS.update({
    "round": torch_round, "negative": negative, "positive": positive, "absolute": UNARY["abs"], "arcsin": UNARY["asin"],
    "arccos": UNARY["acos"], "arctan": UNARY["atan"], "arcsinh": UNARY["asinh"], "arccosh": UNARY["acosh"],
    "arctanh": UNARY["atanh"], "fix": UNARY["trunc"], "sinc": sinc, "deg2rad": deg2rad, "rad2deg": rad2deg,
    "sgn": sgn, "logit": logit, "nan_to_num": nan_to_num,
})
METHODS = dict(FUNCTIONS)
for _name in ("round", "negative", "absolute", "arcsin", "arccos", "arctan", "fix", "nan_to_num", "logit", "sgn",
              "deg2rad", "rad2deg", "sinc", "arcsinh", "arccosh", "arctanh") + tuple(UNARY):
    METHODS[_name + "_"] = inplace_method(FUNCTIONS[_name])
# PyTorch also has torch.<name>_ for these
for _name in tuple(n for n in UNARY if n != "sign") + (
        "round", "negative", "fix", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "nan_to_num",
        "logit", "deg2rad", "rad2deg", "sinc"):
    FUNCTIONS[_name + "_"] = METHODS[_name + "_"]
# ... bound to module names, so the package root imports them by name
neg_ = FUNCTIONS["neg_"]
abs_ = FUNCTIONS["abs_"]
exp_ = FUNCTIONS["exp_"]
exp2_ = FUNCTIONS["exp2_"]
expm1_ = FUNCTIONS["expm1_"]
log_ = FUNCTIONS["log_"]
log2_ = FUNCTIONS["log2_"]
log10_ = FUNCTIONS["log10_"]
log1p_ = FUNCTIONS["log1p_"]
sqrt_ = FUNCTIONS["sqrt_"]
rsqrt_ = FUNCTIONS["rsqrt_"]
sin_ = FUNCTIONS["sin_"]
cos_ = FUNCTIONS["cos_"]
tan_ = FUNCTIONS["tan_"]
asin_ = FUNCTIONS["asin_"]
acos_ = FUNCTIONS["acos_"]
atan_ = FUNCTIONS["atan_"]
sinh_ = FUNCTIONS["sinh_"]
cosh_ = FUNCTIONS["cosh_"]
tanh_ = FUNCTIONS["tanh_"]
asinh_ = FUNCTIONS["asinh_"]
acosh_ = FUNCTIONS["acosh_"]
atanh_ = FUNCTIONS["atanh_"]
sigmoid_ = FUNCTIONS["sigmoid_"]
relu_ = FUNCTIONS["relu_"]
erf_ = FUNCTIONS["erf_"]
erfc_ = FUNCTIONS["erfc_"]
erfinv_ = FUNCTIONS["erfinv_"]
reciprocal_ = FUNCTIONS["reciprocal_"]
square_ = FUNCTIONS["square_"]
frac_ = FUNCTIONS["frac_"]
floor_ = FUNCTIONS["floor_"]
ceil_ = FUNCTIONS["ceil_"]
round_ = FUNCTIONS["round_"]
trunc_ = FUNCTIONS["trunc_"]
negative_ = FUNCTIONS["negative_"]
fix_ = FUNCTIONS["fix_"]
arcsin_ = FUNCTIONS["arcsin_"]
arccos_ = FUNCTIONS["arccos_"]
arctan_ = FUNCTIONS["arctan_"]
arcsinh_ = FUNCTIONS["arcsinh_"]
arccosh_ = FUNCTIONS["arccosh_"]
arctanh_ = FUNCTIONS["arctanh_"]
nan_to_num_ = FUNCTIONS["nan_to_num_"]
logit_ = FUNCTIONS["logit_"]
deg2rad_ = FUNCTIONS["deg2rad_"]
rad2deg_ = FUNCTIONS["rad2deg_"]
sinc_ = FUNCTIONS["sinc_"]

DUNDERS = {"__neg__": UNARY["neg"], "__pos__": positive, "__abs__": UNARY["abs"]}
