"""The creation primitives of base.py on the wasm backend: empty, full, arange, linspace, eye."""
import math

from ... import _dtype as D
from .copies import cast, copy_
from .views import View


def empty(ctx, shape, dtype):
    return ctx.new(shape, dtype)


def full(ctx, shape, value, dtype):
    out = ctx.new(shape, dtype)
    copy_(ctx, out, value)
    return out


def arange(ctx, start, end, step, dtype):
    if all(isinstance(v, int) for v in (start, end, step)):
        n = max(0, -(-(end - start) // step))
    else:
        n = max(0, math.ceil((end - start) / step))
    wide = D.float64 if dtype.is_floating_point else D.int64
    out = ctx.new((n,), wide)
    if wide is D.float64:
        ctx.call("arange_f64", out.addr, n, float(start), float(step))
    else:
        ctx.call("arange_i64", out.addr, n, int(start), int(step))
    return out if dtype is wide else cast(ctx, out, dtype)


def linspace(ctx, start, end, steps, dtype):
    out = ctx.new((steps,), D.float64)
    if steps:
        ctx.call("linspace_f64", out.addr, steps, float(start), float(end))
    return out if dtype is D.float64 else cast(ctx, out, dtype)


def eye(ctx, n, m, dtype):
    out = full(ctx, (n, m), 0, dtype)
    k = min(n, m)
    if k:
        copy_(ctx, View(out.st, (k,), (m + 1,), 0), 1)
    return out
