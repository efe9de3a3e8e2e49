"""The NumPy function of every elementwise op of op_facts.ELEMENTWISE_OPS (UFUNC), with the few that NumPy
lacks or computes differently from PyTorch (erf in float32, erfinv, sign of NaN, integer powers and shifts)."""
import math

import numpy as np

from .arrays import TO_NP

_ZERO = {v: v.type(0) for v in TO_NP.values()}  # one zero scalar per dtype (relu's hot path)


def _erf_f32(x):
    # |x| < 0.5: Taylor series (relative accuracy near 0); else Abramowitz-Stegun 7.1.26 (abs err 1.5e-7).
    x64 = x.astype(np.float64)
    ax = np.abs(x64)
    t = 1.0 / (1.0 + 0.3275911 * ax)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    far = np.sign(x64) * (1.0 - poly * np.exp(-ax * ax))
    x2 = x64 * x64
    near = x64 * (1.1283791670955126 + x2 * (-0.37612638903183754 + x2 * (0.11283791670955126 + x2 * (
        -0.026866170645131252 + x2 * (0.005223977625442188 + x2 * -0.0008548327023450852)))))
    return np.where(ax < 0.5, near, far)


_erf_exact = np.vectorize(math.erf, otypes=[np.float64])
_erfc_exact = np.vectorize(math.erfc, otypes=[np.float64])


def _erf(x):
    if x.dtype == np.float64:
        return _erf_exact(x)
    return _erf_f32(x).astype(x.dtype)


def _erfc(x):
    if x.dtype == np.float64:
        return _erfc_exact(x)
    return _erfc_exact(x.astype(np.float64)).astype(x.dtype)


def _erfinv(y):
    # Giles' single-precision approximation, then Newton steps against the exact erf.
    y64 = y.astype(np.float64)
    w = -np.log((1.0 - y64) * (1.0 + y64))
    w1 = w - 2.5
    p1 = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        p1 = c + p1 * w1
    w2 = np.sqrt(np.maximum(w, 5.0)) - 3.0
    p2 = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        p2 = c + p2 * w2
    x = np.where(w < 5.0, p1, p2) * y64
    for _ in range(2):
        err = _erf_exact(x) - y64
        x = x - err / (1.1283791670955126 * np.exp(-x * x))
    x = np.where(y64 == 1.0, np.inf, np.where(y64 == -1.0, -np.inf, x))
    return x.astype(y.dtype)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _sign(x):
    """np.sign, except sign(nan) is 0 as in PyTorch."""
    s = np.sign(x)
    return np.where(np.isnan(s), 0, s).astype(s.dtype, copy=False) if s.dtype.kind == "f" else s


def _relu(x, order="K"):
    return np.maximum(x, _ZERO[x.dtype], order=order)


def _frac(x):
    return x - np.trunc(x)


def _clamp(x, lo, hi):
    if lo is not None:
        x = np.maximum(x, lo)
    if hi is not None:
        x = np.minimum(x, hi)
    return x


def _floor_divide(a, b):
    return np.floor_divide(a, b)


def _int_pow(a, b):
    # PyTorch: an integer to a negative power is 1 for base 1, +-1 for base -1, else 0 (NumPy raises).
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu" or not np.any(b < 0):
        return np.power(a, b)
    r = np.power(a, np.abs(b))
    odd = (b % 2) == 1
    neg_r = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(r.dtype)
    return np.where(b < 0, neg_r, r)


def _shift(a, b, left):
    """a << b or a >> b (arithmetic) with PyTorch's results for a shift by < 0 or >= the width: 0, or the sign."""
    a, b = np.asarray(a), np.asarray(b)
    outside = (b < 0) | (b >= a.dtype.itemsize * 8)
    s = np.where(outside, 0, b).astype(a.dtype)
    if left:
        return np.where(outside, 0, np.left_shift(a, s)).astype(a.dtype)
    return np.where(outside, np.where(a < 0, -1, 0), np.right_shift(a, s)).astype(a.dtype)


UFUNC = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floor_divide": _floor_divide, "remainder": np.remainder, "fmod": np.fmod, "pow": _int_pow,
    "maximum": np.maximum, "minimum": np.minimum, "atan2": np.arctan2, "copysign": np.copysign,
    "hypot": np.hypot, "logaddexp": np.logaddexp,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "logical_not": np.logical_not, "bitwise_and": np.bitwise_and,
    "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "bitwise_not": np.invert,
    "bitwise_left_shift": lambda a, b: _shift(a, b, True), "bitwise_right_shift": lambda a, b: _shift(a, b, False),
    "isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite, "signbit": np.signbit,
    "neg": np.negative, "abs": np.abs, "sign": _sign, "reciprocal": np.reciprocal, "square": np.square,
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": _rsqrt, "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "sigmoid": _sigmoid, "relu": _relu, "erf": _erf, "erfc": _erfc, "erfinv": _erfinv,
    "floor": np.floor, "ceil": np.ceil, "round": np.round, "trunc": np.trunc, "frac": _frac,
    "where": np.where, "clamp": _clamp,
}
