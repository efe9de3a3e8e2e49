"""Host <-> device of the webgpu device: handles from host values (flat lists, bytes, NumPy arrays) and back.

Uploads write the device's element layout (one i32 per small integer, one u32 per bool) and record known
bounds of integer uploads (index checks then need no readback); reads flush the queue (Recorder.read).
"""
import array
import struct
import sys

from ... import _dtype as D
from . import device_checks, dtypes as T
from .handles import View
from .index_bounds import BOUNDED, keep_bounds, known_bounds
from .recorder import numel


def from_flat(rec, values, shape, dtype):
    T.check(dtype, rec.features)
    if dtype is D.bool_:
        values = [1 if v else 0 for v in values]
    elif not dtype.is_floating_point:
        values = T.check_small_range(values, dtype) if dtype in T.SMALL_INTS else [int(v) for v in values]
        if dtype is D.int64:
            T.check_int_range(values, dtype)
        v = rec.upload(_pack(values, dtype), tuple(shape), dtype)
        keep_bounds(v, (min(values), max(values)) if values else None)
        return v
    return rec.upload(_pack(values, dtype), tuple(shape), dtype)


def from_buffer(rec, buf, shape, dtype):
    T.check(dtype, rec.features)
    mv = memoryview(buf).cast("B")
    if dtype is D.bool_:  # one u32 per element (0 or 1)
        data = _pack([1 if b else 0 for b in mv], D.uint32)
    elif dtype in T.SMALL_INTS:  # widened to the device's one i32 per element
        vals = array.array(T.HOST_CODES[dtype])
        vals.frombytes(bytes(mv))
        if sys.byteorder == "big":
            vals.byteswap()
        data = _pack(vals, dtype)
    else:
        data = bytes(mv)
    v = rec.upload(data, tuple(shape), dtype)
    if dtype in BOUNDED and data:  # known bounds let index checks skip a readback
        vals = array.array(T.array_code(dtype), data)
        if sys.byteorder == "big":
            vals.byteswap()
        keep_bounds(v, (min(vals), max(vals)))
    return v


def from_numpy(rec, array, copy):
    import numpy as np
    from ..numpy import get_backend as cpu_backend
    cpu = cpu_backend()
    h = cpu.from_numpy(array, True)  # dtype validation and byte order, as on cpu
    dt = cpu.dtype(h)
    T.check(dt, rec.features)
    if dt in T.SMALL_INTS:
        h = h.astype(np.int32)
    elif dt is D.bool_:
        h = h.astype(np.uint32)
    v = rec.upload(np.ascontiguousarray(h).astype(h.dtype.newbyteorder("<")).tobytes(), h.shape, dt)
    if h.size and dt in (D.int64, D.int32):  # known bounds let index checks skip a readback
        keep_bounds(v, (int(h.min()), int(h.max())))
    return v


def _values(rec, h):
    raw = rec.read(h)
    dt = h.dtype
    if dt is D.float16:
        return list(struct.unpack(f"<{len(raw) // 2}e", raw))
    vals = array.array(T.array_code(dt))
    vals.frombytes(raw)
    if sys.byteorder == "big":
        vals.byteswap()
    if dt is D.bool_:
        return [v != 0 for v in vals]
    return vals.tolist()


def to_numpy(rec, h):
    import numpy as np
    raw = rec.read(h)
    dt = h.dtype
    a = np.frombuffer(raw, dtype=_NP_DEVICE[dt])
    if dt in T.SMALL_INTS:
        a = a.astype(dt.name)
    elif dt is D.bool_:
        a = a != 0
    else:
        a = a.copy()
    return a.reshape(h.shape)


def to_bytes(rec, h):
    vals_dt = h.dtype
    if vals_dt in (D.float32, D.float16, D.int32, D.uint32, D.int64):
        return rec.read(h)  # the device stores these little-endian, as checkpoints do
    vals = _values(rec, h)
    if vals_dt is D.bool_:
        return bytes(1 if v else 0 for v in vals)
    out = array.array(T.HOST_CODES.get(vals_dt, "q"), vals)
    if sys.byteorder == "big":
        out.byteswap()
    return out.tobytes()


def tolist(rec, h):
    vals = _values(rec, h)
    return _nest(vals, h.shape)


def item(rec, h):
    (v,) = _values(rec, h)
    return v


def known_range(rec, h):
    if h.dtype not in BOUNDED or not rec.host_exchange("the host-known bounds of an index"):
        return None  # while capturing, a replay sees new values: the kernels check them
    return known_bounds(h.st.buf, h.st.dtype)


def to_other(rec, h, target):
    # bytes, not NumPy: the page's cpu (WebAssembly) has no NumPy to meet
    return target.from_buffer(to_bytes(rec, h), h.shape, h.dtype)


_NP_DEVICE = {}  # device element layout of each dtype as a NumPy dtype


def _init_np_types():
    try:
        import numpy as np
    except ImportError:
        return
    _NP_DEVICE.update({D.float32: np.dtype("<f4"), D.float16: np.dtype("<f2"), D.int32: np.dtype("<i4"),
                       D.int64: np.dtype("<i8"), D.uint32: np.dtype("<u4"), D.bool_: np.dtype("<u4")})
    _NP_DEVICE.update({dt: np.dtype("<i4") for dt in T.SMALL_INTS})


_init_np_types()


def on_device(rec, h):
    """h as a View of this device: a handle of another backend (a cpu tensor) is uploaded; None and Python
    scalars pass through."""
    if h is None or isinstance(h, (View, bool, int, float)):
        return h
    return from_numpy(rec, host_array(h), True)


async def prefetch_async(rec, h):
    """h (or a contiguous copy) with its bytes awaited from the device, so reading it next never blocks."""
    rec.host_exchange("reading a webgpu tensor's values (item_async, numpy_async, ...)",
                      "read the static outputs after graph.replay()")
    if h.numel and not h.is_contiguous():
        h = rec.ew("copy", [h], h.dtype, h.dtype, h.shape)
    rec.flush()
    prefetch = getattr(rec.rt, "prefetch_async", None)
    if prefetch is not None and h.numel:
        if rec.checks.armed:  # the error word too (device_checks.py): the read that follows raises its error
            await prefetch(rec.checks.buf.id, device_checks.NBYTES)
        await prefetch(h.st.buf.ensure(), (h.st.buf.nbytes + 3) // 4 * 4)
    return h


def host_array(h):
    import numpy as np
    return np.ascontiguousarray(h)


def _pack(values, dtype):
    if dtype is D.float16:
        return struct.pack(f"<{len(values)}e", *values)
    a = array.array(T.array_code(dtype), values)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _nest(vals, shape):
    if not shape:
        return vals[0]
    last = len(shape) - 1

    def build(off, d):
        if d == last:
            return vals[off:off + shape[d]]
        step = numel(shape[d + 1:])
        return [build(off + i * step, d + 1) for i in range(shape[d])]
    return build(0, 0)
