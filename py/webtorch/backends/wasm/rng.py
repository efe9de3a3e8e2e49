"""The random primitives of base.py on the wasm backend: Philox4x32-10 (wasm-kernels/random.c), the stream
webgpu's random_philox.wgsl draws, so ``manual_seed(s)`` gives the same numbers on both (backends/philox.py)."""
from ... import _dtype as D
from ..philox import PhiloxState
from .copies import cast
from .creation import arange
from .elementwise import elementwise
from .views import View

_I32 = (-(1 << 31), (1 << 31) - 1)
_KEY_RANGE = (1 << 31) - 1  # randperm's keys: as webgpu's randperm_kernels


def rng_new(ctx, seed):
    return PhiloxState(seed)


def rng_get_state(ctx, rng):
    return rng.get_state()


def rng_set_state(ctx, rng, state):
    rng.set_state(state)


def _draw(ctx, kind, shape, rng, out_dt, lo=0.0, hi=0.0, ilo=0, span=0):
    out = ctx.new(shape, out_dt)
    n = out.numel
    if n:
        base = rng.take(n)
        ctx.call("philox_draw", out.addr, n, kind, _i32(rng.seed), _i32(rng.seed >> 32), _i32(base), _i32(base >> 32),
                 float(lo), float(hi), _i32(ilo), _i32(span))
    return out


def _i32(x):
    """The low 32 bits of x as a signed int (an i32 kernel argument carrying an unsigned word)."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def _as(ctx, h, dtype):
    return h if h.dtype is dtype else cast(ctx, h, dtype)


def uniform(ctx, shape, low, high, dtype, rng):
    return _as(ctx, _draw(ctx, 0, tuple(shape), rng, D.float32, low, high), dtype)


def normal(ctx, shape, mean, std, dtype, rng):
    return _as(ctx, _draw(ctx, 1, tuple(shape), rng, D.float32, mean, std), dtype)


def randint(ctx, shape, low, high, dtype, rng):
    low, high, shape = int(low), int(high), tuple(shape)
    span = high - low
    if _I32[0] <= low and high - 1 <= _I32[1] and span < 1 << 32:  # (the whole int32 range: two words)
        r = _draw(ctx, 2, shape, rng, D.int32, ilo=low, span=span)
    elif span < 1 << 32:  # an unsigned 32-bit draw moved to [low, high) in int64
        r = elementwise(ctx, "add", [_draw(ctx, 2, shape, rng, D.uint32, span=span), low], D.int64)
    elif span <= 1 << 63:  # 63 random bits from two words, reduced modulo the span (as PyTorch's random64)
        w = _draw(ctx, 3, shape + (2,), rng, D.uint32)
        words = [cast(ctx, View(w.st, shape, w.strides[:-1], w.offset + k), D.int64) for k in (0, 1)]
        bits = elementwise(ctx, "bitwise_and", [elementwise(ctx, "mul", [words[1], 1 << 32], D.int64),
                                                (1 << 63) - 1], D.int64)
        r = elementwise(ctx, "add", [bits, words[0]], D.int64)
        if span != 1 << 63:
            r = elementwise(ctx, "remainder", [r, span], D.int64)
        if low:
            r = elementwise(ctx, "add", [r, low], D.int64)
    else:
        raise RuntimeError(f"randint: the range [{low}, {high}) spans more than 2^63 values")
    return _as(ctx, r, dtype)


def randperm(ctx, n, dtype, rng):
    if n <= 1:
        return arange(ctx, 0, n, 1, dtype)
    p = 1 << (n - 1).bit_length()
    keys = _draw(ctx, 2, (p,), rng, D.int32, ilo=0, span=_KEY_RANGE)
    pairs, tmp = ctx.new((n,), D.int64), ctx.new((n,), D.int64)
    ctx.call("randperm_pack", pairs.addr, keys.addr, n)
    ctx.call("randperm_sort", pairs.addr, tmp.addr, n)
    out = ctx.new((n,), D.int64)
    ctx.call("randperm_unpack", out.addr, pairs.addr, n)
    return _as(ctx, out, dtype)


def bernoulli(ctx, p, shape, dtype, rng):
    u = _draw(ctx, 0, tuple(shape), rng, D.float32, 0.0, 1.0)
    return _as(ctx, elementwise(ctx, "lt", [u, p], D.float32), dtype)
