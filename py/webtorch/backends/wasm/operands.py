"""How the kernel families of wasm-kernels/ (conv, pooling, padding, embedding, nn, optim, scan_sort, linalg) take
their operands: contiguous Views of the element type of one kernel instance (``_f32``, ``_f64``, ``_i64``).

float16 and bfloat16 run the float32 instance on a converted copy and round the result once (PyTorch's CPU
accumulates them in float32); integer and bool inputs of the ops that take them run the int64 instance (every
narrower integer converts exactly, and wrapping arithmetic converts back to the same bits).
"""
from ... import _dtype as D
from ..._geometry import numel
from .copies import cast, contiguous, copy_
from .transfer import item

SUFFIX = {D.float32: "f32", D.float64: "f64", D.int64: "i64", D.float16: "f16"}
_INSTANCE = {D.float16: D.float32, D.bfloat16: D.float32, D.float32: D.float32, D.float64: D.float64}


def float_instance(dt):
    """The float dtype a float op on dt computes in."""
    r = _INSTANCE.get(dt)
    if r is None:
        raise TypeError(f"expected a floating point tensor, got {D.scalar_type_name(dt)}")
    return r


def any_instance(dt):
    """The instance an op that also takes integers and bool computes dt in (exact both ways)."""
    return _INSTANCE.get(dt, D.int64)


def dense(ctx, h, dtype=None):
    """h as a contiguous View of dtype (h itself when it already is one)."""
    if dtype is not None and h.dtype is not dtype:
        return cast(ctx, h, dtype)
    return h if h.is_contiguous() else contiguous(ctx, h)


def optional(ctx, h, dtype):
    """dense(ctx, h, dtype), or None for an absent operand (h None)."""
    return None if h is None else dense(ctx, h, dtype)


def address(v):
    """A View's address, or 0 -- the kernels' "none" -- for None."""
    return 0 if v is None else v.addr


def result(ctx, r, dtype):
    """The kernel's result r as dtype (a rounding copy when the kernel ran a wider instance)."""
    return r if r.dtype is dtype else cast(ctx, r, dtype)


def first_out_of_range(ctx, idx, lo, hi):
    """The first value of the int64 View idx outside [lo, hi), or None."""
    if not idx.numel:
        return None
    bad = ctx.new((1,), D.int64)
    if ctx.call("check_range", idx.addr, ctx.geom(idx.shape, idx.strides), lo, hi, bad.addr):
        return item(ctx, bad)
    return None


def lines(shape, dim):
    """(outer, L, inner): shape viewed with dim in the middle (a 0-dim shape is one line of one element)."""
    if not shape:
        return 1, 1, 1
    return numel(shape[:dim]), shape[dim], numel(shape[dim + 1:])


class Written:
    """An operand a kernel updates in place: the handle itself when it is a contiguous View of the kernel's dtype,
    else a working copy that ``done()`` writes back."""
    __slots__ = ("h", "view")

    def __init__(self, ctx, h, dtype):
        self.h = h
        self.view = h if (h.dtype is dtype and h.is_contiguous()) else dense(ctx, h, dtype)

    def done(self, ctx):
        if self.view is not self.h:
            copy_(ctx, self.h, self.view)
