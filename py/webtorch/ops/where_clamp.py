"""Ops that pick each output element from one of their inputs: where, clamp (clip, clamp_min/max),
maximum/minimum and the NaN-ignoring fmax/fmin; gradients flow to the input that was picked.
"""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .._tensor import Tensor
from .comparison import isnan
from ._core.elementwise import ew, write_out, make_binary, binary_fn, inplace_method
from ._core.out_arg import Rule, same


class WhereBackward0(Node):
    _operands = (1, 2)  # the condition gets no edge

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.cond = cond
        if isinstance(cond, Tensor) and cond.dtype is not D.bool_:
            raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                               f"{cond.dtype.name.capitalize()}")
        return ew("where", (cond, a, b), D.result_type(a, b))

    @staticmethod
    def backward(ctx, g):
        z = g.new_zeros(())
        nig = ctx.needs_input_grad
        return (where(ctx.cond, g, z) if nig[0] else None, where(ctx.cond, z, g) if nig[1] else None)


def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        if out is not None:
            raise TypeError("where(): where(condition) takes no out= (PyTorch has no such overload)")
        return condition.nonzero(as_tuple=True)
    return write_out(apply_op(WhereBackward0, condition, input, other), out, (condition, input, other), "where",
                     Rule(same, "Expected out type to be {r} but got {o}"))


class ClampBackward1(Node):
    _operands = (0,)

    @staticmethod
    def forward(ctx, x, lo, hi):
        if lo is None and hi is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        ctx.save_for_backward(x)
        ctx.bounds = (lo, hi)
        dt = D.result_type(x, *(b for b in (lo, hi) if b is not None))
        return ew("clamp", (x, lo, hi), dt)

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
        # where, not g * mask: a NaN/inf gradient at a clamped element must not leak through (as PyTorch)
        return (where(mask, g, g.new_zeros(())),)


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
        return write_out(apply_op(ClampBackward0, input, min, max), out, (input, min, max), "clamp")
    return write_out(apply_op(ClampBackward1, input, min, max), out, (input,), "clamp",
                     Rule(same, "Found dtype {o} but expected {r}"))


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


def _make_extremum(op, node_name, pick):
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return ew(op, (a, b), D.result_type(a, b))

    def backward(ctx, g):
        a, b = ctx.saved_tensors
        shared = where(a == b, g / 2, g)
        z = g.new_zeros(())
        return where(pick(b, a), z, shared), where(pick(a, b), z, shared)

    node = type(node_name, (Node,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "_operands": (0, 1)})

    def fn(input, other, *, out=None):
        return write_out(apply_op(node, input, other), out, (input, other), op)
    fn.__name__ = op
    return fn


maximum = _make_extremum("maximum", "MaximumBackward0", lambda a, b: a > b)
minimum = _make_extremum("minimum", "MinimumBackward0", lambda a, b: a < b)


def _make_fextremum(op, node_name, cmp):
    def fwd(a, b):
        dt = D.result_type(a, b)
        m = ew("maximum" if op == "fmax" else "minimum", (a, b), dt)
        if not dt.is_floating_point:
            return m
        m = ew("where", (ew("isnan", (b,), dt), a, m), dt)  # NaN only when both are NaN
        return ew("where", (ew("isnan", (a,), dt), b, m), dt)

    def grads(g, a, b, out):
        take_a = cmp(a, b).logical_or(isnan(b))
        z = g.new_zeros(())
        return where(take_a, g, z), where(take_a, z, g)

    node = make_binary(node_name, fwd, grads)
    return binary_fn(op, (node, node, node))


fmax = _make_fextremum("fmax", "FmaxBackward0", lambda a, b: a >= b)
fmin = _make_fextremum("fmin", "FminBackward0", lambda a, b: a <= b)


FUNCTIONS = {
    "where": where, "clamp": clamp, "clip": clamp, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "maximum": maximum, "minimum": minimum, "fmax": fmax, "fmin": fmin,
}
METHODS = {k: v for k, v in FUNCTIONS.items() if k != "where"}
METHODS["where"] = lambda self, condition, other: where(condition, self, other)
for _name in ("clamp", "clamp_min", "clamp_max", "clip", "maximum", "minimum"):
    METHODS[_name + "_"] = inplace_method(FUNCTIONS[_name])
# PyTorch also has torch.<name>_ for these
for _name in ("clamp", "clip", "clamp_min", "clamp_max"):
    FUNCTIONS[_name + "_"] = METHODS[_name + "_"]
# ... bound to module names, so the package root imports them by name
clamp_ = FUNCTIONS["clamp_"]
clip_ = FUNCTIONS["clip_"]
clamp_min_ = FUNCTIONS["clamp_min_"]
clamp_max_ = FUNCTIONS["clamp_max_"]
