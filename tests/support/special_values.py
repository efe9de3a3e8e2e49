"""Special float values (NaN, ±inf, ±0, tiny, ±1, halves) and the ops whose WGSL spells out PyTorch's semantics for
them: shared by the native (naga + lavapipe) and the browser (Tint + SwiftShader) NaN/inf tests."""
import numpy as np

SPECIAL = [float("nan"), 0.5, 1.0, float("inf"), -float("inf"), 0.25, -0.0, 0.0, -1.0, -2.5, 3.0, 1e-30, -0.75,
           2.0, -3.0]
BINARY = ["ne", "eq", "lt", "floor_divide", "remainder", "fmod", "pow", "atan2", "logical_and", "logical_or",
          "logical_xor", "maximum", "minimum", "hypot", "copysign", "logaddexp"]
UNARY = ["atan", "asin", "acos", "logical_not", "sign", "sqrt", "exp", "tanh", "sigmoid", "sin", "cos", "log",
         "log1p", "expm1", "erf", "floor", "round", "frac", "reciprocal", "rsqrt", "asinh", "acosh", "atanh"]
# searchsorted: sorted rows (one with a NaN, one with the infinities) and the values searched in them
SEARCH_SEQS = [[0.0, 1.0, 2.0], [0.0, 1.0, float("nan")], [-float("inf"), 0.0, float("inf")]]
SEARCH_VALUES = [float("nan"), 0.5, 1.0, float("inf"), -float("inf"), 0.25, 2.0, 0.0]


def pairs():
    """(a, b): every pair of SPECIAL, as two flat lists."""
    return [x for x in SPECIAL for _ in SPECIAL], [y for _ in SPECIAL for y in SPECIAL]


def mismatches(t, w):
    """Positions where result w (NumPy) differs from PyTorch's t: floats to 1e-5 with NaN equal to NaN."""
    t, w = np.atleast_1d(np.asarray(t)), np.atleast_1d(np.asarray(w))
    assert t.shape == w.shape and t.dtype == w.dtype, (t.shape, w.shape, t.dtype, w.dtype)
    bad = ~np.isclose(t, w, rtol=1e-5, atol=1e-6, equal_nan=True) if t.dtype.kind == "f" else t != w
    return np.nonzero(bad)[0]
