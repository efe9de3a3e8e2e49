"""Comparisons, logic and bit ops (no gradient): eq/ne/lt/le/gt/ge, logical_*, bitwise_*, isnan/isinf/
isfinite/signbit, equal, isclose/allclose, bitwise_left_shift/bitwise_right_shift, and the operators
== != < <= > >= & | ^ ~ << >> with their in-place forms.
"""
from .. import _dtype as D
from .._tensor import Tensor
from ._core.dispatch import check_same_device, float_result
from ._core.elementwise import ew, write_out, inplace_method, operator_method, reflected_method
from .._dtype import scalar_type_name
from ._core.inplace import not_implemented_for


def _cmp(op):
    def fn(input, other, *, out=None):
        dt = D.result_type(input, other)
        return write_out(ew(op, (input, other), dt), out, (input, other))
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
        return ew(op, (input, other), dt)
    fn.__name__ = op
    return fn


bitwise_and, bitwise_or, bitwise_xor = (_bitwise(n) for n in ("bitwise_and", "bitwise_or", "bitwise_xor"))


def _shift(op, kernel):
    def fn(input, other):
        dt = D.result_type(input, other)
        if dt.is_floating_point or dt is D.bool_:
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{scalar_type_name(dt)}'")
        return ew(op, (input, other), dt)
    fn.__name__ = op
    return fn


bitwise_left_shift = _shift("bitwise_left_shift", "lshift")
bitwise_right_shift = _shift("bitwise_right_shift", "rshift")


def logical_not(input):
    return ew("logical_not", (input,), input.dtype)


def bitwise_not(input):
    if input.dtype.is_floating_point:
        raise not_implemented_for("bitwise_not_cpu", input.dtype)
    return ew("bitwise_not", (input,), input.dtype)


def _invert(input):
    if input.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(input)


def isnan(input):
    return ew("isnan", (input,), input.dtype)


def isinf(input):
    return ew("isinf", (input,), input.dtype)


def isfinite(input):
    return ew("isfinite", (input,), input.dtype)


def signbit(input):
    return ew("signbit", (input,), input.dtype)


def equal(input, other):
    check_same_device(input, other)
    return tuple(input.shape) == tuple(other.shape) and bool(eq(input, other).all().item())


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


def _eq_method(fn):
    def method(self, other):
        if not isinstance(other, (Tensor, int, float, bool)):
            return False if fn is eq else True
        return fn(self, other)
    return method


FUNCTIONS = {
    "eq": eq, "ne": ne, "lt": lt, "le": le, "gt": gt, "ge": ge, "greater": gt, "less": lt,
    "greater_equal": ge, "less_equal": le, "not_equal": ne,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor, "logical_not": logical_not,
    "bitwise_and": bitwise_and, "bitwise_or": bitwise_or, "bitwise_xor": bitwise_xor, "bitwise_not": bitwise_not,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "isnan": isnan, "isinf": isinf, "isfinite": isfinite, "signbit": signbit, "equal": equal,
    "isclose": isclose, "allclose": allclose,
}
METHODS = dict(FUNCTIONS)
for _name in ("logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor",
              "bitwise_not", "bitwise_left_shift", "bitwise_right_shift", "eq", "ne", "lt", "le", "gt", "ge"):
    METHODS[_name + "_"] = inplace_method(FUNCTIONS[_name])

DUNDERS = {
    "__invert__": _invert,
    "__and__": operator_method(bitwise_and), "__rand__": reflected_method(bitwise_and),
    "__or__": operator_method(bitwise_or), "__ror__": reflected_method(bitwise_or),
    "__xor__": operator_method(bitwise_xor), "__rxor__": reflected_method(bitwise_xor),
    "__eq__": _eq_method(eq), "__ne__": _eq_method(ne), "__lt__": operator_method(lt), "__le__": operator_method(le),
    "__gt__": operator_method(gt), "__ge__": operator_method(ge),
    "__lshift__": operator_method(bitwise_left_shift), "__rlshift__": reflected_method(bitwise_left_shift),
    "__rshift__": operator_method(bitwise_right_shift), "__rrshift__": reflected_method(bitwise_right_shift),
    "__iand__": METHODS["bitwise_and_"], "__ior__": METHODS["bitwise_or_"], "__ixor__": METHODS["bitwise_xor_"],
    "__ilshift__": METHODS["bitwise_left_shift_"], "__irshift__": METHODS["bitwise_right_shift_"],
}
