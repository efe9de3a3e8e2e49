"""What the template-kernel families share to launch webgpu-shaders/ kernels: cached specializations, uniform
words (``pack``, ``dims``), 1-D grids, dense operands and the float16-through-float32 wrapper."""
import struct

from ... import _dtype as D
from . import codegen, wgsl_loader
from .elementwise_kernels import cast, contiguous
from .handles import View


_sources = {}


def source(name, **spec):
    """Specialized source of webgpu-shaders/<name>.wgsl, cached per specialization."""
    key = (name,) + tuple(sorted(spec.items()))
    s = _sources.get(key)
    if s is None:
        s = _sources[key] = wgsl_loader.specialize(name, **spec) if spec else wgsl_loader.template(name)
    return s


def spatial3(values, fill):
    """Per-spatial-dim values padded in front to three dims with ``fill`` (size 1 / stride 0 dims)."""
    values = tuple(values)
    return (fill,) * (3 - len(values)) + values


def float_kernel(rec, fn, *args):
    """Run ``fn(*args)`` in float32: float16 handles are cast up and the result back down (other dtypes went
    to the host before: host_rules.not_float)."""
    if all(a.dtype is D.float32 for a in args if isinstance(a, View)):
        return fn(*args)
    r = fn(*[cast(rec, a, D.float32) if isinstance(a, View) else a for a in args])
    return None if r is None else cast(rec, r, D.float16)  # None: fn leaves it to the host fallback


def grid256(total, limits):
    """Workgroup counts of a 256-wide 1-D launch over ``total`` invocations (within the device's ``limits``), and
    the row width gx * 256."""
    groups = codegen.grid(-(-total // 256), limits)
    return groups, groups[0] * 256


def dense(rec, h, offset_ok=False):
    """h itself when C-contiguous (from offset 0 unless offset_ok), else a contiguous copy."""
    return h if h.is_contiguous() and (offset_ok or h.offset == 0) else contiguous(rec, h)


def pack(rows):
    """Uniform parameter bytes: rows of four int32 (a ``array<vec4<i32>, N>`` block)."""
    return struct.pack(f"<{4 * len(rows)}i", *(v for row in rows for v in row))


MAX_RANK = 8


def dims(values):
    """Eight uint32 words (two vec4 rows) of per-dim values, negatives as their 32-bit pattern."""
    return tuple(int(v) & 0xFFFFFFFF for v in values) + (0,) * (MAX_RANK - len(values))
