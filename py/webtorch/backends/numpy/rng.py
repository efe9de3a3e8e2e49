"""NumPy implementations of the random primitives of backends/contract.py: the Philox4x32-10 stream of webgpu's
random_philox.wgsl and wasm's random.c (state: backends/philox.py), in vectorised uint32/uint64 arithmetic, so
``manual_seed(s)`` gives the same numbers on every device. Value e of a draw is word e % 4 of counter block
base + e // 4; floats are computed in float32 as the kernels compute them, then cast to the asked dtype."""
import numpy as np

from ..philox import PhiloxState
from .arrays import npdtype

_MUL = np.array([[0xD2511F53], [0xCD9E8D57]], np.uint64)  # Philox4x32's multipliers of words 0 and 2
_LOW32, _SHIFT32 = np.uint64(0xFFFFFFFF), np.uint64(32)
_CHUNK = 8192  # counter blocks per pass: the round loop's arrays stay in cache (4x faster than whole at 1M values)
_UNIT24 = np.float32(5.9604644775390625e-08)  # 2^-24
_TWO_PI = np.float32(6.283185307179586)
_KEY_RANGE = (1 << 31) - 1  # randperm's keys, as webgpu's randperm_kernels and wasm's rng


def rng_new(seed):
    return PhiloxState(seed)


def rng_get_state(rng):
    return rng.get_state()


def rng_set_state(rng, state):
    rng.set_state(state)


def _round_keys(seed):
    """The ten rounds' keys (k0, k1) as a (2, 1) column each: the seed's words, bumped by the Weyl constants."""
    k0, k1, keys = seed & 0xFFFFFFFF, seed >> 32, []
    for _ in range(10):
        keys.append(np.array([[k0], [k1]], np.uint64))
        k0, k1 = (k0 + 0x9E3779B9) & 0xFFFFFFFF, (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return keys


def _words(rng, n):
    """The next n 32-bit words of the stream (uint32), reserving their ceil(n / 4) counter blocks. Words 0 and 2
    of each block (a) and words 1 and 3 (c) are held in uint64 rows, so one multiply gives both 64-bit products."""
    base, blocks = np.uint64(rng.take(n) & ((1 << 64) - 1)), (n + 3) // 4
    keys, out = _round_keys(rng.seed), np.empty((blocks, 4), np.uint32)
    a_buf, c_buf, p_buf, h_buf = (np.empty((2, min(blocks, _CHUNK)), np.uint64) for _ in range(4))
    for start in range(0, blocks, _CHUNK):
        m = min(_CHUNK, blocks - start)
        a, c, p, h = a_buf[:, :m], c_buf[:, :m], p_buf[:, :m], h_buf[:, :m]
        ctr = np.arange(start, start + m, dtype=np.uint64) + base  # the block's 64-bit counter: words 0 and 1
        np.bitwise_and(ctr, _LOW32, out=a[0])
        np.right_shift(ctr, _SHIFT32, out=c[0])
        a[1] = c[1] = 0
        for k in keys:  # (c0, c1, c2, c3) <- (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0))
            np.multiply(a, _MUL, out=p)
            np.right_shift(p, _SHIFT32, out=h)
            np.bitwise_xor(h[::-1], c, out=a)
            a ^= k
            np.bitwise_and(p, _LOW32, out=c[::-1])
        o = out[start:start + m]
        o[:, 0], o[:, 1], o[:, 2], o[:, 3] = a[0], c[0], a[1], c[1]
    return out.reshape(-1)[:n]


def _unit(w):
    """[0, 1) in float32 from each word's top 24 bits (w: fresh words, overwritten)."""
    np.right_shift(w, np.uint32(8), out=w)
    u = w.astype(np.float32)
    u *= _UNIT24
    return u


def _count(shape):
    return int(np.prod(shape, dtype=np.int64))


def uniform(shape, low, high, dtype, rng):
    lo, hi = np.float32(low), np.float32(high)
    r = _unit(_words(rng, _count(shape)))
    with np.errstate(over="ignore", invalid="ignore"):  # lo + (hi - lo) * u, rounded as the kernels round it
        r *= hi - lo
        r += lo
    return r.reshape(shape).astype(npdtype(dtype), copy=False)


def normal(shape, mean, std, dtype, rng):
    """Box-Muller on each pair of words: (w0, w1) gives values 0 and 1 of a block (cos, sin), (w2, w3) 2 and 3."""
    n = _count(shape)
    w = _words(rng, 4 * ((n + 3) // 4)).reshape(-1, 2, 2)
    u1, u2 = np.float32(1) - _unit(w[:, :, 0]), _unit(w[:, :, 1])
    rad, th = np.sqrt(np.float32(-2) * np.log(u1)), _TWO_PI * u2
    z = np.stack((rad * np.cos(th), rad * np.sin(th)), axis=2).reshape(-1)[:n]
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.float32(mean) + np.float32(std) * z
    return r.reshape(shape).astype(npdtype(dtype), copy=False)


def _below(rng, n, span):
    """n words reduced modulo span (1 <= span < 2^32) as int64."""
    w = _words(rng, n)
    w %= np.uint32(span)
    return w.astype(np.int64)


def randint(shape, low, high, dtype, rng):
    low, high, shape = int(low), int(high), tuple(shape)
    span, n = high - low, _count(shape)
    if span < 1 << 32:  # one word per value: low + word % span
        r = _below(rng, n, span)
        r += low
    elif span <= 1 << 63:  # 63 random bits from two words, reduced modulo the span (as PyTorch's random64)
        w = _words(rng, 2 * n).astype(np.int64).reshape(n, 2)
        r = ((w[:, 1] & 0x7FFFFFFF) << 32) | w[:, 0]
        if span != 1 << 63:
            r %= span
        r += low
    else:
        raise RuntimeError(f"randint: the range [{low}, {high}) spans more than 2^63 values")
    return r.reshape(shape).astype(npdtype(dtype))


def randperm(n, dtype, rng):
    """The indices of the first n of next-power-of-two(n) keys in [0, 2^31 - 1), sorted by key then index."""
    if n <= 1:
        return np.arange(n, dtype=npdtype(dtype))
    pairs = _below(rng, 1 << (n - 1).bit_length(), _KEY_RANGE)[:n]
    pairs <<= 32
    pairs |= np.arange(n, dtype=np.int64)
    pairs.sort()  # the pairs are unique: any sort gives the one order
    pairs &= 0xFFFFFFFF
    return pairs.astype(npdtype(dtype), copy=False)


def bernoulli(p, shape, dtype, rng):
    """p: a handle (broadcast to shape) or a float; result of dtype with 1 where u < p, compared in float32."""
    u = _unit(_words(rng, _count(shape))).reshape(shape)
    return np.asarray((u < np.asarray(p, dtype=np.float32)).astype(npdtype(dtype)))   # 0-dim: an array, not a scalar
