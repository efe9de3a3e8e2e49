"""Random numbers of the webgpu device: Philox 4x32-10 streams (random_philox.wgsl), one counter block of four
words per 4 values; uniform, normal, randint (32-bit draws, or two words for a span past 2^32), bernoulli."""
import struct

from ... import _dtype as D
from ..philox import PhiloxState
from . import binding_windows, codegen, dtypes as T, views
from .elementwise_kernels import cast
from .handles import DeviceOp, Src, View
from .index_bounds import keep_bounds
from .kernel_launch import source


def rng_new(rec, seed):
    return PhiloxState(seed)


def rng_get_state(rec, rng):
    return rng.get_state()


def rng_set_state(rec, rng, state):
    rng.set_state(state)


def draw(rec, kind, shape, a, b, rng, out_dt):
    rec.host_exchange("drawing random numbers (dropout, rand, randn, randint, ...)",
                      "every replay would draw the same numbers; draw them outside the capture into a static "
                      "tensor, or disable dropout (p=0, model.eval())")
    out = rec.new(shape, out_dt)
    n = out.numel
    if not n:
        return out
    first = rng.take(n)
    if kind >= 2:
        lo_bits, hi_bits, rng_range = int(a) & 0xFFFFFFFF, 0, int(b - a) & 0xFFFFFFFF
    else:
        lo_bits = struct.unpack("<I", struct.pack("<f", a))[0]
        hi_bits = struct.unpack("<I", struct.pack("<f", b))[0]
        rng_range = 0
    src = philox_source(kind, out_dt)
    # a tensor past one binding is drawn in windows of whole 64-element runs, each from its own counter blocks:
    # the same numbers as one launch (binding_windows.py)
    per = n if not binding_windows.is_big(out.st.buf) else \
        (rec.limits.binding_size() - binding_windows.ALIGN) // 4 // 64 * 64
    for e0 in range(0, n, per):
        part = min(per, n - e0)
        (view,), bound = binding_windows.bind([View(out.st, (part,), (1,), e0)])
        base = first + e0 // 4
        words = (part, rng.seed & 0xFFFFFFFF, rng.seed >> 32, base & 0xFFFFFFFF, (base >> 32) & 0xFFFFFFFF,
                 lo_bits, hi_bits, rng_range)
        node = DeviceOp("kernel", out.shape, Src(out.st.buf, out.strides, 0, out_dt), [],
                        {"name": "random_philox", "source": src, "params": struct.pack("<8I", *words),
                         "groups": codegen.grid((part + 1023) // 1024, rec.limits), "buffers": bound})
        rec.record_node(node)
    return out


def uniform(rec, shape, low, high, dtype, rng):
    T.check(dtype, rec.features)
    r = draw(rec, 0, tuple(shape), float(low), float(high), rng, D.float32)
    return r if dtype is D.float32 else cast(rec, r, dtype)


def normal(rec, shape, mean, std, dtype, rng):
    T.check(dtype, rec.features)
    r = draw(rec, 1, tuple(shape), float(mean), float(std), rng, D.float32)
    return r if dtype is D.float32 else cast(rec, r, dtype)


def randint(rec, shape, low, high, dtype, rng):
    T.check(dtype, rec.features)
    low, high, shape = int(low), int(high), tuple(shape)
    T.check_int_range([low, high - 1], D.int64)
    span = high - low
    if T.I32_MIN <= low and high - 1 <= T.I32_MAX and span < 1 << 32:  # (the whole int32 range: two words)
        r = draw(rec, 2, shape, low, high, rng, D.int32)
    elif span < 1 << 32:  # an unsigned 32-bit draw moved to [low, high) in int64
        r = rec.ew("add", [draw(rec, 2, shape, 0, span, rng, D.uint32), ("c", low)], D.int64, D.int64, shape)
    elif span <= 1 << 63:  # 63 random bits from two words, reduced modulo the span (as PyTorch's random64)
        w = draw(rec, 3, shape + (2,), 0, 0, rng, D.uint32)
        lo, hi = (views.sliced(w, (slice(None),) * len(shape) + (k,)) for k in (0, 1))
        bits = rec.ew("bitwise_and", [rec.ew("mul", [hi, ("c", 1 << 32)], D.int64, D.int64, shape),
                                      ("c", T.I64_MAX)], D.int64, D.int64, shape)
        bits = rec.ew("add", [bits, lo], D.int64, D.int64, shape)
        r = bits if span == 1 << 63 else rec.ew("remainder", [bits, ("c", span)], D.int64, D.int64, shape)
        if low:
            r = rec.ew("add", [r, ("c", low)], D.int64, D.int64, shape)
    else:
        raise RuntimeError(f"randint on device 'webgpu': the range [{low}, {high}) spans more than 2^63 values; "
                           "draw on device 'cpu'")
    if span > 0:
        keep_bounds(r, (low, high - 1))
    return r if r.dtype is dtype else cast(rec, r, dtype)


def bernoulli(rec, p, shape, dtype, rng):
    """p: a handle (broadcast to shape) or a float; result of dtype with 1 where u < p."""
    u = draw(rec, 0, tuple(shape), 0.0, 1.0, rng, D.float32)
    return rec.ew("lt", [u, p], D.float32, dtype, tuple(shape))


def philox_source(kind, out_dt):
    return source("random_philox", KIND=f"{kind}u", OutT=T.storage_type(out_dt))
