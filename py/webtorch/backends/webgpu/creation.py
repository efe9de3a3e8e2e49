"""Creation primitives of the webgpu device (empty, full, arange, linspace, eye): elementwise nodes over an
iota, with the host-known bounds of integer results recorded (index_bounds.py)."""
import math

from ... import _dtype as D
from . import dtypes as T, views
from .elementwise_kernels import cast, copy_
from .index_bounds import BOUNDED, keep_bounds


def empty(rec, shape, dtype):
    return rec.new(shape, dtype)


def full(rec, shape, value, dtype):
    T.check(dtype, rec.features)
    if dtype is D.int64:
        T.check_int_range([int(value)], dtype)
    out = rec.ew("copy", [("c", value)], dtype, dtype, tuple(shape))
    if dtype in BOUNDED:
        keep_bounds(out, (value, value))
    return out


def arange(rec, start, end, step, dtype):
    n = max(0, math.ceil((end - start) / step))
    cdt = D.float32 if dtype.is_floating_point else D.int32
    if not dtype.is_floating_point:
        ends = [int(start), int(start + step * max(n - 1, 0))]
        T.check_int_range(ends, D.int64)
        if min(ends) < T.I32_MIN or max(ends) > T.I32_MAX or not T.I32_MIN <= step <= T.I32_MAX:
            cdt = D.int64  # else the int32 arithmetic is exact and cheaper
    idx = rec.ew("mul", ["iota", ("c", step)], cdt, cdt, (n,))
    out = rec.ew("add", [idx, ("c", start)], cdt, dtype, (n,))
    if dtype in BOUNDED and n:
        last = start + step * (n - 1)
        keep_bounds(out, (min(start, last), max(start, last)))
    return out


def linspace(rec, start, end, steps, dtype):
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    idx = rec.ew("mul", ["iota", ("c", step)], D.float32, D.float32, (steps,))
    v = rec.ew("add", [idx, ("c", start)], D.float32, D.float32, (steps,))
    if steps > 1:  # the last point is exactly ``end``, as NumPy and PyTorch give it
        copy_(rec, views.sliced(v, (slice(steps - 1, steps),)), float(end))
    return v if dtype is D.float32 else cast(rec, v, dtype)


def eye(rec, n, m, dtype):
    shape = (n, m)
    row = rec.ew("floor_divide", ["iota", ("c", max(m, 1))], D.int32, D.int32, shape)
    col = rec.ew("remainder", ["iota", ("c", max(m, 1))], D.int32, D.int32, shape)
    return rec.ew("eq", [row, col], D.int32, D.bool_, shape) if dtype is D.bool_ else \
        cast(rec, rec.ew("eq", [row, col], D.int32, D.bool_, shape), dtype)



