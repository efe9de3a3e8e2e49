"""The elementwise family on NumPy: copy_, contiguous, cast, and the elementwise primitive -- one call of the op's
NumPy function (ufuncs.py) in the result dtype.

Per-op overhead matters here (every small op of a model comes through): two hot paths serve a ufunc on operands
already of the result dtype before the general path converts operands, checks integer division by zero and
writes into ``out``.
"""
import numpy as np

from ..._broadcast import broadcast_shapes
from ... import _dtype as D
from ..op_facts import BINARY, BOOL_RESULT, INT_DIVISIONS, UNARY, float8_computes
from .arrays import FROM_NP, TO_NP, c_order, npdtype
from .float8 import FROM_STORAGE, STORAGE, decode, encode
from .indexing import check_writable
from .ufuncs import UFUNC

# ufuncs called directly (hot paths, out=); reciprocal takes the general path (NumPy's integer reciprocal truncates)
_IS_UFUNC = {k for k, v in UFUNC.items() if isinstance(v, np.ufunc) and k not in ("reciprocal",)}
_FAST_BINARY = {k: UFUNC[k] for k in BINARY & (_IS_UFUNC - BOOL_RESULT - INT_DIVISIONS)}
_FAST_UNARY = {k: UFUNC[k] for k in UNARY & (_IS_UFUNC - BOOL_RESULT)}
_FAST_UNARY["relu"] = UFUNC["relu"]  # (takes order=, as the ufuncs do)
_PY_REAL = (int, float)
_NDARRAY = np.ndarray  # a module global: the hot paths' type checks skip a lookup on the numpy module


def _scalar(a, nd):
    """A Python number as a NumPy scalar of nd; integers wrap around as PyTorch's casts do (-1 -> 255 uint8)."""
    try:
        return nd.type(a)
    except OverflowError:
        return np.array(a).astype(nd)[()]


def elementwise(op, args, dtype, out=None):
    try:
        nd = TO_NP[dtype]  # (a subscript is cheaper than .get on this hot path)
    except KeyError:
        if dtype in STORAGE:
            return _float8_elementwise(op, args, dtype, out)
        nd = npdtype(dtype)  # raises: the dtype has no NumPy counterpart
    if out is None and len(args) == 2:
        # hot path (per-op overhead): a binary ufunc on two arrays already of the result dtype
        fn = _FAST_BINARY.get(op)
        a, b = args
        if fn is not None and type(a) is _NDARRAY and a.dtype is nd:
            if type(b) is _NDARRAY and b.dtype is nd and (a.ndim or b.ndim):
                try:
                    return fn(a, b, order="C")
                except ValueError:
                    broadcast_shapes(a.shape, b.shape)
                    raise
            # a float array and a Python number: NumPy keeps the array's dtype (NEP 50), as PyTorch does
            if type(b) in _PY_REAL and a.ndim and nd.kind == "f":
                return fn(a, b, order="C")
    elif out is None and len(args) == 1:
        fn = _FAST_UNARY.get(op)
        a = args[0]
        if fn is not None and type(a) is _NDARRAY and a.dtype is nd and a.ndim:
            r = fn(a, order="C")
            if r.dtype is nd:
                return r
    fn = UFUNC[op]
    conv = []
    for a in args:
        if type(a) is np.ndarray:
            conv.append(a if a.dtype == nd else a.astype(nd))
        elif a is None:
            conv.append(None)
        elif op == "where" and not conv:
            conv.append(a)  # condition stays bool
        else:
            conv.append(_scalar(a, nd))
    if op == "where":
        c = args[0]
        conv[0] = c if type(c) is np.ndarray and c.dtype == np.bool_ else np.asarray(c, dtype=np.bool_)
    if op in INT_DIVISIONS and nd.kind in "iu" and np.any(conv[1] == 0):
        raise RuntimeError("ZeroDivisionError")
    if out is not None:
        if op in _IS_UFUNC and op not in BOOL_RESULT and out.dtype == nd:
            fn(*conv, out=out)
        else:
            np.copyto(out, fn(*conv), casting="unsafe")
        return out
    try:
        r = fn(*conv)
    except ValueError:
        broadcast_shapes(*(a.shape for a in conv if type(a) is np.ndarray))
        raise
    if type(r) is not np.ndarray:
        r = np.asarray(r)
    if op not in BOOL_RESULT and r.dtype != nd:
        r = r.astype(nd, order="C")
    return c_order(r)


def _float8_elementwise(op, args, dtype, out):
    """An op PyTorch's CPU runs on float8 (op_facts.FLOAT8_OPS): in float32, the result rounded back to dtype."""
    if not float8_computes(op, dtype):
        raise D.float8_compute_error(dtype)
    wide = [decode(a) if type(a) is np.ndarray and a.dtype in FROM_STORAGE else a for a in args]
    r = elementwise(op, wide, D.float32)
    if op not in BOOL_RESULT:
        r = encode(r, dtype)
    if out is None:
        return r
    copy_(out, r)
    return out


def copy_(dst, src):
    check_writable(dst)
    if dst.dtype in FROM_STORAGE or getattr(src, "dtype", None) in FROM_STORAGE:
        src = cast(np.asarray(src), FROM_NP[dst.dtype])  # float8 converts by c10's rounding, not NumPy's
    np.copyto(dst, src, casting="unsafe")


def contiguous(h):
    return np.array(h, order="C", copy=True)


def cast(h, dtype):
    if h.dtype in FROM_STORAGE:
        h = decode(h)  # float8 -> float32 exactly, then on as float32 converts
    if dtype in STORAGE:
        return encode(h, dtype)
    nd = npdtype(dtype)
    if h.dtype.kind == "f" and nd.kind in "iub" and nd.kind != "b":
        return np.trunc(h).astype(nd)
    return h.astype(nd, order="C")
