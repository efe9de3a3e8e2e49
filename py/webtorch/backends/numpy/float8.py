"""float8 on NumPy: each format is stored as a distinct one-byte structured dtype (one uint8 field named after the
format), so a handle's NumPy dtype still says which format it holds (arrays.FROM_NP maps by NumPy dtype), NumPy
moves the bytes (copies, views, take, concatenate, where) and refuses arithmetic on them (kind 'V'), as PyTorch's
CPU computes nothing on float8.

Conversions are c10's, written on whole arrays: into a format, the value rounds as float32 first (c10 converts a
double through float) and then to nearest even on the float32 bits; out of a format, a 256-entry table of float32
bit patterns (c10's results, NaN payloads included) indexed by the byte.
"""
import numpy as np

from ... import _dtype as D

STORAGE = {d: np.dtype([(d.name, "u1")]) for d in D.FLOAT8}
_U8 = np.dtype(np.uint8)

# IEEE-like formats: mantissa bits, exponent bias, fnuz (one NaN at 0x80, no -0, no inf), has inf
_FORMATS = {D.float8_e4m3fn: (3, 7, False, False), D.float8_e4m3fnuz: (3, 8, True, False),
            D.float8_e5m2: (2, 15, False, True), D.float8_e5m2fnuz: (2, 16, True, False)}


def _decode_table(dt):
    b = np.arange(256, dtype=np.uint32)
    if dt is D.float8_e8m0fnu:  # 2**(b - 127): float32's exponent field is b (b = 0 is float32's subnormal 2**-127)
        bits = np.where(b == 0, np.uint32(1 << 22), b << 23)
        bits[255] = 0x7F800001
        return bits.view(np.float32)
    m, bias, fnuz, has_inf = _FORMATS[dt]
    e, man, sign = (b >> m) & ((1 << (7 - m)) - 1), b & ((1 << m) - 1), (b >> 7).astype(bool)
    mag = np.where(e == 0, man * 2.0 ** (1 - bias - m), ((1 << m) + man) * 2.0 ** (e.astype(np.int64) - bias - m))
    f = np.where(sign, -mag, mag).astype(np.float32)
    bits = f.view(np.uint32).copy()
    if fnuz:
        bits[0x80] = 0x7F800001
    elif has_inf:  # exponent all ones: inf, or float16's NaN widened (quiet bit set)
        top = e == (1 << (7 - m)) - 1
        bits[top] = (b[top] & 0x80) << 24 | 0x7F800000 | np.where(man[top] == 0, 0, 0x400000 | man[top] << 21)
    else:  # e4m3fn: S.1111.111 is NaN
        for nan in (0x7F, 0xFF):
            bits[nan] = (nan & 0x80) << 24 | 0x7FF00000
    return bits.view(np.float32)


_TABLES = {d: _decode_table(d) for d in D.FLOAT8}


def decode(h):
    """The float32 values of a float8 array (any shape)."""
    dt = FROM_STORAGE[h.dtype]
    return _TABLES[dt][h.view(_U8)]


def _encode_ieee(a, sign, dt):
    m, bias, fnuz, has_inf = _FORMATS[dt]
    shift = 23 - m
    normal_exp = 128 - bias  # float32 exponent field of the format's smallest normal
    limit = np.uint32((normal_exp + (1 << (7 - m)) - (1 if fnuz else 2) << 23) + (0 if fnuz or has_inf else 0x700000))
    denorm = np.uint32(normal_exp + shift << 23)
    with np.errstate(all="ignore"):
        sub = ((a.view(np.float32) + denorm.view(np.float32)).view(np.uint32) - denorm).astype(np.uint8)
        odd = (a >> shift) & 1
        nor = ((a + np.uint32(((bias - 127) << 23) & 0xFFFFFFFF) + np.uint32((1 << (shift - 1)) - 1) + odd)
               >> shift).astype(np.uint8)
    if not (fnuz or has_inf):
        nor[nor == 0x7F] = 0x7E  # e4m3fn: the rounding that would reach the NaN pattern saturates
    r = np.where(a >= np.uint32(normal_exp << 23), nor, sub)
    s = (sign >> 24).astype(np.uint8)
    if fnuz:
        r = np.where(r == 0, r, r | s)
        r[a >= limit] = 0x80
        return r
    big = a >= limit
    r[big] = np.where(a[big] > 0x7F800000, 0x7F, 0x7C if has_inf else 0x7E)
    return r | s


def _encode_e8m0(bits):
    e = (bits >> 23) & 0xFF
    up = ((bits & 0x400000) != 0) & (((bits & 0x3FFFFF) != 0) | (e > 0)) & (e != 0xFF)
    return (e + up).astype(np.uint8)


def encode(x, dt):
    """The float8 array of dtype dt nearest to x (any real array), rounded as c10 rounds."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    if dt is D.float8_e8m0fnu:
        u = _encode_e8m0(bits)
    else:
        sign = bits & np.uint32(0x80000000)
        u = _encode_ieee(bits ^ sign, sign, dt)
    return np.asarray(u, dtype=np.uint8).reshape(np.shape(x)).view(STORAGE[dt])


FROM_STORAGE = {v: k for k, v in STORAGE.items()}


def stored_as(values, nd):
    """values (a Python number or an array) as elements of the NumPy dtype nd: for a float8 nd rounded as c10
    rounds (NumPy would write a number into the byte as it is); values unchanged for any other nd."""
    dt = FROM_STORAGE.get(nd)
    if dt is None or (type(values) is np.ndarray and values.dtype == nd):
        return values
    if type(values) is np.ndarray and values.dtype in FROM_STORAGE:
        values = decode(values)
    return encode(np.asarray(values, dtype=np.float64), dt)
