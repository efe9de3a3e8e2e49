"""Device "cpu": eager NumPy. A handle is an ndarray view of a root ndarray (its storage)."""
import math

import numpy as np

from .. import _dtype as D
from .base import Backend
from .numpy_nn import NumpyNNMixin
from .numpy_scan_sort import NumpyScanSortMixin
from .numpy_linalg import NumpyLinalgMixin
from .numpy_conv import NumpyConvMixin
from .numpy_optim import NumpyOptimMixin
from .numpy_indexing import NumpyIndexingMixin, check_writable
from .._broadcast import broadcast_shapes

# PyTorch does not warn on inf/nan producing math; neither do we (kept to the ufuncs we call).
np.seterr(all="ignore")

_TO_NP = {
    D.bool_: np.dtype(np.bool_), D.uint8: np.dtype(np.uint8), D.int8: np.dtype(np.int8),
    D.int16: np.dtype(np.int16), D.int32: np.dtype(np.int32), D.int64: np.dtype(np.int64),
    D.uint32: np.dtype(np.uint32), D.float16: np.dtype(np.float16), D.float32: np.dtype(np.float32),
    D.float64: np.dtype(np.float64),
}
_FROM_NP = {v: k for k, v in _TO_NP.items()}
_ZERO = {v: v.type(0) for v in _TO_NP.values()}  # one zero scalar per dtype (relu's hot path)


def npdtype(dt):
    r = _TO_NP.get(dt)
    if r is None:
        raise TypeError(f"dtype {dt} is not supported on device 'cpu' (NumPy has no {dt.name}); "
                        "use torch.float32 or torch.float16")
    return r


def _arr(r):
    return r if type(r) is np.ndarray else np.asarray(r)


def _root(h):
    while isinstance(h.base, np.ndarray):
        h = h.base
    return h


def _storage(h):
    """h's storage as a C-contiguous array from its first element (what as_strided's offsets count from)."""
    root = h if h.base is None else _root(h)
    if root.flags.c_contiguous:
        return root
    # a foreign non-contiguous array shared by from_numpy: the memory it spans, from its first element
    span = 1 + sum((n - 1) * st for n, st in zip(root.shape, root.strides)) // root.itemsize if root.size else 0
    return np.lib.stride_tricks.as_strided(root, (span,), (root.itemsize,))


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


def _relu(x):
    return np.maximum(x, _ZERO[x.dtype])


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


def _scalar(a, nd):
    """A Python number as a NumPy scalar of nd; integers wrap around as PyTorch's casts do (-1 -> 255 uint8)."""
    try:
        return nd.type(a)
    except OverflowError:
        return np.array(a).astype(nd)[()]


_INT_DIVISIONS = ("floor_divide", "remainder", "fmod")


_UFUNC = {
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
_BOOL_RESULT = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                "logical_not", "isnan", "isinf", "isfinite", "signbit"}
_IS_UFUNC = {k for k, v in _UFUNC.items() if isinstance(v, np.ufunc) and k not in ("reciprocal",)}
_FAST_BINARY = {k: _UFUNC[k] for k in _IS_UFUNC - _BOOL_RESULT if k != "logical_not" and k not in _INT_DIVISIONS}
# same-dtype-in, same-dtype-out unary ops (hot path of elementwise)
_FAST_UNARY = {k: _UFUNC[k] for k in _IS_UFUNC - _BOOL_RESULT if _UFUNC[k].nin == 1}
_FAST_UNARY["relu"] = _relu
_PY_REAL = (int, float)
_ELEMENT_STRIDES = {}  # (byte strides, itemsize) -> strides in elements (geometry's hot path; bounded)


class NumpyBackend(NumpyScanSortMixin, NumpyLinalgMixin, NumpyNNMixin, NumpyConvMixin, NumpyOptimMixin, NumpyIndexingMixin, Backend):
    device_type = "cpu"

    # ---- metadata -----------------------------------------------------------------------------------
    def shape(self, h):
        return h.shape

    def geometry(self, h):
        isz = h.itemsize
        off = 0 if h.base is None else (h.__array_interface__["data"][0] - self.storage_ptr(h)) // isz
        key = (h.strides, isz)
        strides = _ELEMENT_STRIDES.get(key)
        if strides is None:
            if len(_ELEMENT_STRIDES) > 4096:
                _ELEMENT_STRIDES.clear()
            strides = _ELEMENT_STRIDES[key] = tuple([s // isz for s in h.strides])
        return h.shape, strides, off

    def dtype(self, h):
        return _FROM_NP[h.dtype]

    def data_ptr(self, h):
        return h.__array_interface__["data"][0]

    def storage_ptr(self, h):
        return _root(h).__array_interface__["data"][0]

    def storage_nbytes(self, h):
        return _root(h).nbytes

    # ---- creation -------------------------------------------------------------------------------------
    def empty(self, shape, dtype):
        return np.empty(shape, npdtype(dtype))

    def full(self, shape, value, dtype):
        return np.full(shape, value, npdtype(dtype))

    def arange(self, start, end, step, dtype):
        return np.arange(start, end, step, dtype=np.float64 if dtype.is_floating_point else np.int64).astype(
            npdtype(dtype))

    def linspace(self, start, end, steps, dtype):
        return np.linspace(start, end, steps, dtype=np.float64).astype(npdtype(dtype))

    def eye(self, n, m, dtype):
        return np.eye(n, m, dtype=npdtype(dtype))

    def from_flat(self, values, shape, dtype):
        return np.array(values, dtype=npdtype(dtype)).reshape(shape)

    def from_buffer(self, buf, shape, dtype):
        nd = npdtype(dtype).newbyteorder("<")
        return np.frombuffer(buf, dtype=nd).astype(npdtype(dtype)).reshape(shape)

    def from_numpy(self, array, copy):
        if array.dtype not in _FROM_NP:
            if array.dtype.kind == "f" and array.dtype.itemsize == 8:
                array = array.astype(np.float64)
            else:
                raise TypeError(f"can't convert np.ndarray of type numpy.{array.dtype}. The only supported types "
                                "are: float64, float32, float16, int64, int32, int16, int8, uint8, and bool.")
        if not array.dtype.isnative:
            array = array.astype(array.dtype.newbyteorder("="))
        return np.array(array) if copy else array

    def to_numpy(self, h):
        return h

    def to_bytes(self, h):
        a = np.ascontiguousarray(h)
        if a.dtype.byteorder == ">":
            a = a.astype(a.dtype.newbyteorder("<"))
        return a.tobytes()

    def tolist(self, h):
        return h.tolist()

    def item(self, h):
        return h.reshape(()).item() if h.ndim else h.item()

    def known_range(self, h):
        return None  # reading host memory is as cheap as keeping bounds

    # ---- views ----------------------------------------------------------------------------------------
    def as_strided(self, h, shape, stride, offset):
        isz = h.itemsize
        storage = h if h.base is None and h.flags.c_contiguous else _storage(h)
        offset *= isz
        if offset > storage.nbytes:  # an empty view past the end (PyTorch keeps its offset): no element
            offset = 0
        v = np.ndarray(shape, h.dtype, storage, offset, tuple([s * isz for s in stride]))
        if 0 in stride and any(st == 0 and n > 1 for n, st in zip(shape, stride)):
            v.flags.writeable = False  # an expanded view: several elements at one address (check_writable)
        return v

    # ---- copies -----------------------------------------------------------------------------------------
    def copy_(self, dst, src):
        check_writable(dst)
        np.copyto(dst, src, casting="unsafe")

    def contiguous(self, h):
        return np.array(h, order="C", copy=True)

    def cast(self, h, dtype):
        nd = npdtype(dtype)
        if h.dtype.kind == "f" and nd.kind in "iub" and nd.kind != "b":
            return np.trunc(h).astype(nd)
        return h.astype(nd, order="C")

    def to_other(self, h, target):
        # (np.ascontiguousarray would turn a 0-dim array into shape (1,))
        return target.from_numpy(np.array(h, order="C", copy=True), copy=True)

    # ---- compute -----------------------------------------------------------------------------------------
    def elementwise(self, op, args, dtype, out=None):
        nd = _TO_NP.get(dtype) or npdtype(dtype)
        if out is None and len(args) == 2:
            # hot path (per-op overhead): a binary ufunc on two arrays already of the result dtype
            fn = _FAST_BINARY.get(op)
            a, b = args
            if fn is not None and type(a) is np.ndarray and a.dtype is nd:
                if type(b) is np.ndarray and b.dtype is nd and (a.ndim or b.ndim):
                    try:
                        return fn(a, b)
                    except ValueError:
                        broadcast_shapes(a.shape, b.shape)
                        raise
                # a float array and a Python number: NumPy keeps the array's dtype (NEP 50), as PyTorch does
                if type(b) in _PY_REAL and a.ndim and nd.kind == "f":
                    return fn(a, b)
        elif out is None and len(args) == 1:
            fn = _FAST_UNARY.get(op)
            a = args[0]
            if fn is not None and type(a) is np.ndarray and a.dtype is nd and a.ndim:
                r = fn(a)
                if r.dtype is nd:
                    return r
        fn = _UFUNC[op]
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
        if op in _INT_DIVISIONS and nd.kind in "iu" and np.any(conv[1] == 0):
            raise RuntimeError("ZeroDivisionError")
        if out is not None:
            if op in _IS_UFUNC and op not in _BOOL_RESULT and out.dtype == nd:
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
        if op not in _BOOL_RESULT and r.dtype != nd:
            r = r.astype(nd)
        return r

    def reduce(self, op, h, dims, keepdim, dtype):
        axis = dims if dims else None
        nd = npdtype(dtype)
        if op == "sum":  # np.add.reduce is np.sum without its Python-level dispatch
            acc = np.float32 if nd == np.float16 else nd
            return _arr(np.add.reduce(h, axis=axis, dtype=acc, keepdims=keepdim)).astype(nd, copy=False)
        if op == "mean":
            acc = np.float32 if nd == np.float16 else nd
            if h.size and nd.kind == "f":  # what np.mean computes: the sum, then one division by the count
                s = _arr(np.add.reduce(h, axis=axis, dtype=acc, keepdims=keepdim))
                return np.true_divide(s, h.size // s.size, out=s).astype(nd, copy=False)
            return _arr(np.mean(h, axis=axis, keepdims=keepdim, dtype=acc)).astype(nd, copy=False)
        if op == "prod":
            return _arr(np.prod(h, axis=axis, keepdims=keepdim, dtype=nd))
        if op == "amax":
            return _arr(np.max(h, axis=axis, keepdims=keepdim)).astype(nd, copy=False)
        if op == "amin":
            return _arr(np.min(h, axis=axis, keepdims=keepdim)).astype(nd, copy=False)
        if op == "all":
            return _arr(np.all(h, axis=axis, keepdims=keepdim))
        if op == "any":
            return _arr(np.any(h, axis=axis, keepdims=keepdim))
        raise ValueError(f"unknown reduction {op}")

    def arg_reduce(self, op, h, dim, keepdim):
        fn = np.argmax if op == "argmax" else np.argmin
        if dim is None:
            r = _arr(fn(h))
            return r.reshape((1,) * h.ndim) if keepdim else r.astype(np.int64)
        return _arr(fn(h, axis=dim, keepdims=keepdim)).astype(np.int64, copy=False)

    def matmul(self, a, b):
        return _arr(np.matmul(a, b))

    # ---- random -----------------------------------------------------------------------------------------
    def rng_new(self, seed):
        return np.random.Generator(np.random.PCG64(seed))

    def rng_get_state(self, rng):
        import json
        return json.dumps(rng.bit_generator.state).encode()

    def rng_set_state(self, rng, state):
        import json
        rng.bit_generator.state = json.loads(bytes(state).decode())

    def uniform(self, shape, low, high, dtype, rng):
        nd = npdtype(dtype)
        if nd in (np.float32, np.float64):
            r = rng.random(shape, dtype=nd)
        else:
            r = rng.random(shape, dtype=np.float32)
        if low != 0 or high != 1:
            r = r * (high - low) + low
        return _arr(r).astype(nd, copy=False)

    def normal(self, shape, mean, std, dtype, rng):
        nd = npdtype(dtype)
        r = rng.standard_normal(shape, dtype=nd if nd in (np.float32, np.float64) else np.float32)
        if std != 1 or mean != 0:
            r = r * std + mean
        return _arr(r).astype(nd, copy=False)

    def randint(self, shape, low, high, dtype, rng):
        return _arr(rng.integers(low, high, size=shape, dtype=np.int64)).astype(npdtype(dtype), copy=False)

    def randperm(self, n, dtype, rng):
        return rng.permutation(n).astype(npdtype(dtype))

    def bernoulli(self, p, shape, dtype, rng):
        """p: a handle (broadcast to shape) or a float; result of dtype with 1 where u < p."""
        u = rng.random(shape, dtype=np.float64 if (type(p) is np.ndarray and p.dtype == np.float64) else np.float32)
        return _arr(u < p).astype(npdtype(dtype))


_BACKEND = NumpyBackend()


def get_backend():
    return _BACKEND
