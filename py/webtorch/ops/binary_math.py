"""Binary math functions: atan2, hypot, logaddexp/logaddexp2, xlogy, copysign, heaviside.

A binary node declares ``_operands`` (see autograd.graph.Node): a Python-number operand keeps its slot, with
the edge (None, 0), as PyTorch's nodes do, and backward returns one gradient per slot.
"""
import math

from .. import _dtype as D
from .._tensor import Tensor
from ._core.dispatch import float_result
from ._core.elementwise import (ew, write_out, not_differentiable, float_only, checked_kernel, make_binary, binary_fn,
                          inplace_method)
from .unary_math import UNARY
from .where_clamp import where

_LN2 = math.log(2.0)


def _fwd_atan2(a, b):
    return ew("atan2", (a, b), float_result(D.result_type(a, b)))


def _grads_atan2(g, a, b, out):
    d = a * a + b * b
    return g * b / d, -g * a / d


_Atan2 = make_binary("Atan2Backward0", _fwd_atan2, _grads_atan2)
atan2 = binary_fn("atan2", (_Atan2, _Atan2, _Atan2))


_fwd_hypot = checked_kernel("hypot", float_only, "hypot")
_Hypot = make_binary("HypotBackward0", _fwd_hypot, lambda g, a, b, out: (g * a / out, g * b / out))
hypot = binary_fn("hypot", (_Hypot, _Hypot, _Hypot))


_fwd_logaddexp = checked_kernel("logaddexp", float_only, "logaddexp")


def _fwd_logaddexp2(a, b):
    dt = D.result_type(a, b)
    float_only("logaddexp2", dt)
    return ew("div", (ew("logaddexp", (ew("mul", (a, _LN2), dt), ew("mul", (b, _LN2), dt)), dt), _LN2), dt)


_Logaddexp = make_binary("LogaddexpBackward0", _fwd_logaddexp,
                         lambda g, a, b, out: (g / (1 + (b - a).exp()), g / (1 + (a - b).exp())))
logaddexp = binary_fn("logaddexp", (_Logaddexp,) * 3)
_Logaddexp2 = make_binary("Logaddexp2Backward0", _fwd_logaddexp2,
                          lambda g, a, b, out: (g / (1 + UNARY["exp2"](b - a)), g / (1 + UNARY["exp2"](a - b))))
logaddexp2 = binary_fn("logaddexp2", (_Logaddexp2,) * 3)


def _fwd_xlogy(a, b):
    dt = float_result(D.result_type(a, b))
    if isinstance(b, Tensor):
        logb = ew("log", (b,), dt)
        b_ok = ew("logical_not", (ew("isnan", (b,), dt),), D.bool_)
    else:
        logb = math.log(b) if b > 0 else (-math.inf if b == 0 else math.nan)
        b_ok = b == b
    prod = ew("mul", (a, logb), dt)
    # 0 * log(0) is 0, but a NaN y still gives NaN (PyTorch's xlogy)
    if not isinstance(a, Tensor):
        return prod if a != 0 else ew("where", (b_ok, 0, prod), dt)
    zero_x = ew("logical_and", (ew("eq", (a, 0), dt), b_ok), D.bool_)
    return ew("where", (zero_x, 0, prod), dt)


def _grads_xlogy(g, a, b, out):
    ga = gb = None
    if isinstance(a, Tensor):
        ga = g * xlogy(a != 0, b)
    if isinstance(b, Tensor):
        gb = g * a / b
    return ga, gb


# PyTorch numbers them tensor-tensor 0, scalar-tensor 1, tensor-scalar 2
xlogy = binary_fn("xlogy", tuple(make_binary(f"XlogyBackward{i}", _fwd_xlogy, _grads_xlogy, ops)
                                 for i, ops in ((0, (0, 1)), (2, (0,)), (1, (1,)))))


def _fwd_copysign(a, b):
    return ew("copysign", (a, b), float_result(D.result_type(a, b)))


def _grads_copysign(g, a, b, out):
    ratio = where(a == 0, out.new_zeros(()), out / a)
    return g * ratio, (g * 0 if isinstance(b, Tensor) else None)


_CopysignT = make_binary("CopysignBackward0", _fwd_copysign, _grads_copysign)
_CopysignS = make_binary("CopysignBackward1", _fwd_copysign, _grads_copysign, (0,))
copysign = binary_fn("copysign", (_CopysignT, _CopysignS, _CopysignT))


def _heaviside(x, values):
    if x.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    dt = x.dtype
    return ew("where", (ew("eq", (x, 0), dt), values, ew("gt", (x, 0), dt)), dt)


def heaviside(input, values, *, out=None):
    return write_out(not_differentiable("heaviside", _heaviside(input, values), input, values), out, (input, values))


FUNCTIONS = {
    "atan2": atan2, "arctan2": atan2, "hypot": hypot, "logaddexp": logaddexp, "logaddexp2": logaddexp2,
    "xlogy": xlogy, "copysign": copysign, "heaviside": heaviside,
}
METHODS = dict(FUNCTIONS)
for _name in ("atan2", "arctan2", "hypot", "xlogy", "copysign", "heaviside"):
    METHODS[_name + "_"] = inplace_method(FUNCTIONS[_name])
xlogy_ = FUNCTIONS["xlogy_"] = METHODS["xlogy_"]  # PyTorch also has torch.xlogy_
