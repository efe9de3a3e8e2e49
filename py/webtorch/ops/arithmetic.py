"""Arithmetic: add, sub/rsub, mul, div (true, trunc, floor), pow/float_power, remainder/fmod, addcmul/addcdiv,
lerp, and the operators + - * / // % ** with their in-place forms; forward and backward side by side.

A binary node declares ``_operands`` (see autograd.graph.Node): a Python-number operand keeps its slot, with
the edge (None, 0), as PyTorch's nodes do, and backward returns one gradient per slot.
"""
import math

from .. import _dtype as D
from ..autograd.graph import Node, apply_op, recording
from .._tensor import Tensor
from ._core.dispatch import check_same_device, float_result
from ._core.elementwise import (NUMBERS, OPERAND_TYPES, ew, ew2, binary_result_type, not_for_bool, is_bool,
                          not_differentiable, write_out, checked_kernel, make_binary, binary_fn, keep_original_self,
                          inplace_method, operator_method, reflected_method)
from .._dtype import cpp_type_name, scalar_type_name
from ._core.inplace import commit
from .unary_math import UNARY
from .where_clamp import where


class AddBackward0(Node):
    _operands = (0, 1)
    alpha = 1

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        dt = binary_result_type(a, b)
        if alpha != 1:
            ctx.alpha = alpha
            b = ew2("mul", b, alpha, dt) if isinstance(b, Tensor) else b * alpha
        return ew2("add", a, b, dt)

    @staticmethod
    def backward(ctx, g):
        alpha = ctx.alpha
        return g, ((g * alpha if alpha != 1 else g) if ctx.needs_input_grad[1] else None)


def check_sub(a, b):
    """PyTorch's refusal of a bool operand (Tensor or Python bool) to subtraction."""
    if is_bool(a) and is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if is_bool(a) or is_bool(b):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _sub(a, b, dt, alpha):
    if alpha != 1:
        b = ew2("mul", b, alpha, dt) if isinstance(b, Tensor) else b * alpha
    return ew2("sub", a, b, dt)


class SubBackward0(Node):
    _operands = (0, 1)
    alpha = 1

    @staticmethod
    def forward(ctx, a, b, alpha=1):
        if is_bool(a) or is_bool(b):
            check_sub(a, b)
        if alpha != 1:
            ctx.alpha = alpha
        return _sub(a, b, binary_result_type(a, b), alpha)

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
        check_sub(other, x)
        if alpha != 1:
            ctx.alpha = alpha
        return _sub(other, x, binary_result_type(other, x), alpha)

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
        return ew2("mul", a, b, binary_result_type(a, b))

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
        dt = float_result(binary_result_type(a, b))
        if recording(ctx):
            ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if isinstance(b, Tensor) else None)
            if not (isinstance(a, Tensor) and isinstance(b, Tensor)):
                ctx.scalars = (a, b)
        return ew2("div", a, b, dt)

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
    dt = binary_result_type(a, b)
    if rounding_mode == "trunc":
        not_for_bool("div_trunc_cpu", dt)
        if dt.is_floating_point:
            return ew("trunc", (ew2("div", a, b, dt),), dt)
        # exact for integers of any size: a - fmod(a, b) is a multiple of b
        return ew2("floor_divide", ew2("sub", a, ew2("fmod", a, b, dt), dt), b, dt)
    if rounding_mode == "floor":
        not_for_bool("div_floor_cpu", dt)
        return ew2("floor_divide", a, b, dt)
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
            not_for_bool("pow", dt)
        if not dt.is_floating_point and isinstance(e, int) and e < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return ew("pow", (a, e), dt)

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
        not_for_bool("pow", dt)
        out = ew("pow", (a, b), dt)
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
        not_for_bool("pow", dt)
        out = ew("pow", (s, b), dt)
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
    if isinstance(other, Tensor) and other.is_sparse:  # dense + sparse: ops/sparse_coo.py
        from .sparse_coo import add as add_sparse
        r = add_sparse(input, other, alpha=alpha)
    else:
        r = apply_op(AddBackward0, input, other, alpha)
    return r if out is None else write_out(r, out, (input, other), "add")


def sub(input, other, *, alpha=1, out=None):
    r = apply_op(SubBackward0, input, other, alpha)
    return r if out is None else write_out(r, out, (input, other), "sub")


def rsub(input, other, alpha=1):
    return apply_op(RsubBackward0 if isinstance(other, Tensor) else RsubBackward1, input, other, alpha)


def mul(input, other, *, out=None):
    r = apply_op(MulBackward0, input, other)
    return r if out is None else write_out(r, out, (input, other), "mul")


def div(input, other, *, rounding_mode=None, out=None):
    if rounding_mode is None:
        r = apply_op(DivBackward0, input, other)
    else:
        r = apply_op(DivBackward2, input, other, rounding_mode)
    return r if out is None else write_out(r, out, (input, other), "div")


def true_divide(input, other):
    return div(input, other)


def floor_divide(input, other):
    return not_differentiable("floor_divide", _rounded_div(input, other, "floor"), input, other)


def pow(input, exponent, *, out=None):
    if isinstance(input, Tensor) and isinstance(exponent, Tensor):
        if exponent.dim() == 0 and exponent._device.type == "cpu" and input._device.type != "cpu":
            return apply_op(PowBackward0, input, exponent.item())
        return write_out(apply_op(PowBackward1, input, exponent), out, (input, exponent), "pow")
    if isinstance(input, Tensor):
        return write_out(apply_op(PowBackward0, input, exponent), out, (input,), "pow")
    return write_out(apply_op(PowBackward2, input, exponent), out, (exponent,), "pow")


# ---- remainder, fmod (the % operator) ----------------------------------------------------------------

_fwd_remainder = checked_kernel("remainder", not_for_bool, "remainder_cpu")
_fwd_fmod = checked_kernel("fmod", not_for_bool, "fmod_cpu")


_RemainderT = make_binary("RemainderBackward1", _fwd_remainder,
                          lambda g, a, b, out: (g, -g * div(a, b, rounding_mode="floor")))
_RemainderS = make_binary("RemainderBackward0", _fwd_remainder, lambda g, a, b, out: (g, None), (0,))
_remainder = binary_fn("remainder", (_RemainderT, _RemainderS, _RemainderT))


def remainder(input, other, *, out=None):
    if isinstance(input, Tensor):
        return _remainder(input, other, out=out)
    # PyTorch's remainder(Scalar, Tensor) has no derivative
    return write_out(not_differentiable("remainder", _fwd_remainder(input, other), other), out, (other,))


_FmodT = make_binary("FmodBackward1", _fwd_fmod, lambda g, a, b, out: (g, -g * div(a, b, rounding_mode="trunc")))
_FmodS = make_binary("FmodBackward0", _fwd_fmod, lambda g, a, b, out: (g, None), (0,))
fmod = binary_fn("fmod", (_FmodT, _FmodS, _FmodT))


def float_power(input, exponent, *, out=None):
    if isinstance(input, Tensor) and isinstance(exponent, Tensor) and min(input.dim(), exponent.dim()) > 0:
        check_same_device(input, exponent)  # before the float64 cast, which a webgpu operand refuses

    def up(x):
        return x.to(D.float64) if isinstance(x, Tensor) else float(x)
    return pow(up(input), up(exponent), out=out)


def _float_power_(self, exponent):
    if self.dtype is not D.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {scalar_type_name(self.dtype)} but the "
                           "operation's result requires dtype Double")
    r = float_power(self, exponent)
    keep_original_self(r, self)
    return commit(self, r, (exponent,))


# ---- addcmul, addcdiv, lerp --------------------------------------------------------------------------

class AddcmulBackward0(Node):
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, t1, t2, value):
        dt = D.result_type(x, t1, t2)
        if recording(ctx):
            ctx.save_for_backward(t1 if ctx.needs_input_grad[2] else None, t2 if ctx.needs_input_grad[1] else None)
            ctx.value = value
        prod = ew("mul", (t1, t2), dt)
        if value != 1:
            prod = ew("mul", (prod, value), dt)
        return ew("add", (x, prod), dt)

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
        q = ew("div", (t1, t2), dt)
        if value != 1:
            q = ew("mul", (q, value), dt)
        return ew("add", (x, q), dt)

    @staticmethod
    def backward(ctx, g):
        t1, t2 = ctx.saved_tensors
        gv = g * ctx.value if ctx.value != 1 else g
        return g, gv / t2, -gv * t1 / (t2 * t2)


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return write_out(apply_op(AddcmulBackward0, input, tensor1, tensor2, value), out, (input, tensor1, tensor2),
                     "addcmul")


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return write_out(apply_op(AddcdivBackward0, input, tensor1, tensor2, value), out, (input, tensor1, tensor2),
                     "addcdiv")


def _same_dtype(x, other, what):
    if isinstance(other, Tensor) and other.dtype is not x.dtype:
        raise RuntimeError(f"expected dtype {cpp_type_name(x.dtype)} for `{what}` but got dtype "
                           f"{cpp_type_name(other.dtype)}")


class LerpBackward0(Node):
    """lerp with a Python-number weight."""
    _operands = (0, 1)

    @staticmethod
    def forward(ctx, x, end, w):
        ctx.w = w
        dt = x.dtype
        return ew("add", (x, ew("mul", (ew("sub", (end, x), dt), w), dt)), dt)

    @staticmethod
    def backward(ctx, g):
        return g * (1 - ctx.w), g * ctx.w


class LerpBackward1(Node):
    """lerp with a Tensor weight."""
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, x, end, w):
        dt = x.dtype
        diff = ew("sub", (end, x), dt)
        if recording(ctx):
            ctx.save_for_backward(w, diff)
        return ew("add", (x, ew("mul", (diff, w), dt)), dt)

    @staticmethod
    def backward(ctx, g):
        w, diff = ctx.saved_tensors
        return g * (1 - w), g * w, g * diff


def lerp(input, end, weight, *, out=None):
    _same_dtype(input, end, "end")
    if isinstance(weight, Tensor):
        _same_dtype(input, weight, "weight")
        return write_out(apply_op(LerpBackward1, input, end, weight), out, (input, end, weight), "lerp")
    return write_out(apply_op(LerpBackward0, input, end, weight), out, (input, end), "lerp")


# ---- Python operators --------------------------------------------------------------------------------

def _rpow(self, other):
    return pow(other, self)


def _dunder(node):
    """self (op) other straight through node: the hot path of ``a + b``."""
    def method(self, other):
        if isinstance(other, OPERAND_TYPES):
            return apply_op(node, self, other)
        return NotImplemented
    return method


def _rdunder(node):
    """other (op) self for a commutative op: PyTorch computes ``2 * x`` as ``x.mul(2)`` (edges (x, None))."""
    def method(self, other):
        if isinstance(other, Tensor):
            return apply_op(node, other, self)
        if isinstance(other, NUMBERS):
            return apply_op(node, self, other)
        return NotImplemented
    return method


def _rsub_dunder(self, other):
    if isinstance(other, Tensor):
        return sub(other, self)
    if isinstance(other, NUMBERS):
        return rsub(self, other)
    return NotImplemented


def _rtruediv_dunder(self, other):
    if isinstance(other, Tensor):
        return div(other, self)
    if isinstance(other, NUMBERS):
        return mul(UNARY["reciprocal"](self), other)  # as PyTorch's Tensor.__rtruediv__
    return NotImplemented


FUNCTIONS = {
    "add": add, "sub": sub, "subtract": sub, "rsub": rsub, "mul": mul, "multiply": mul, "div": div,
    "divide": div, "true_divide": true_divide, "floor_divide": floor_divide, "pow": pow, "float_power": float_power,
    "remainder": remainder, "fmod": fmod, "addcmul": addcmul, "addcdiv": addcdiv, "lerp": lerp,
}
METHODS = dict(FUNCTIONS)
for _name in ("add", "sub", "mul", "div", "pow", "floor_divide", "true_divide", "subtract", "multiply", "divide",
              "addcmul", "addcdiv", "lerp", "remainder", "fmod"):
    METHODS[_name + "_"] = inplace_method(FUNCTIONS[_name])
METHODS["float_power_"] = _float_power_
_dense_add_ = METHODS["add_"]


def _add_(self, other, *, alpha=1):
    if isinstance(other, Tensor) and other.is_sparse:  # dense += sparse writes only the named entries
        from .sparse_coo import add_into
        return add_into(self, other, alpha)
    return _dense_add_(self, other, alpha=alpha)


METHODS["add_"] = _add_

DUNDERS = {
    "__add__": _dunder(AddBackward0), "__radd__": _rdunder(AddBackward0), "__sub__": _dunder(SubBackward0),
    "__rsub__": _rsub_dunder, "__mul__": _dunder(MulBackward0), "__rmul__": _rdunder(MulBackward0),
    "__truediv__": _dunder(DivBackward0), "__rtruediv__": _rtruediv_dunder,
    "__floordiv__": operator_method(floor_divide), "__rfloordiv__": reflected_method(floor_divide),
    "__mod__": operator_method(remainder), "__rmod__": reflected_method(remainder),
    "__pow__": operator_method(pow), "__rpow__": _rpow,
    "__iadd__": METHODS["add_"], "__isub__": METHODS["sub_"], "__imul__": METHODS["mul_"],
    "__itruediv__": METHODS["div_"], "__ipow__": METHODS["pow_"], "__ifloordiv__": METHODS["floor_divide_"],
    "__imod__": METHODS["remainder_"],
}
