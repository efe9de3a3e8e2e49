"""NumPy implementations of the reduce, arg_reduce and require_all primitives of backends/contract.py."""
import numpy as np

from ... import _dtype as D
from ..op_facts import VALUE_CHECKS
from .arrays import TO_NP, as_ndarray, c_order, npdtype

_F16 = TO_NP[D.float16]


def reduce(op, h, dims, keepdim, dtype):
    axis = dims if dims else None
    try:
        nd = TO_NP[dtype]  # (a subscript is cheaper than npdtype's .get on the hot path of sum)
    except KeyError:
        nd = npdtype(dtype)  # raises: the dtype has no NumPy counterpart
    if op == "sum" and nd is not _F16 and not keepdim and (axis is None or len(axis) == h.ndim):
        # np.add.reduce is np.sum without its Python-level dispatch; a full reduction, into its 0-dim array
        return np.add.reduce(h, axis, nd, np.empty((), nd))
    return c_order(_reduce(op, h, axis, keepdim, nd))


def _reduce(op, h, axis, keepdim, nd):
    if op == "sum":
        if nd is _F16:
            return as_ndarray(np.add.reduce(h, axis=axis, dtype=np.float32, keepdims=keepdim)).astype(nd)
        return np.add.reduce(h, axis=axis, dtype=nd, keepdims=keepdim)
    if op == "mean":
        acc = np.float32 if nd == np.float16 else nd
        if h.size and nd.kind == "f":  # what np.mean computes: the sum, then one division by the count
            s = as_ndarray(np.add.reduce(h, axis=axis, dtype=acc, keepdims=keepdim))
            return np.true_divide(s, h.size // s.size, out=s).astype(nd, copy=False)
        return as_ndarray(np.mean(h, axis=axis, keepdims=keepdim, dtype=acc)).astype(nd, copy=False)
    if op == "prod":
        return as_ndarray(np.prod(h, axis=axis, keepdims=keepdim, dtype=nd))
    if op == "amax":
        return as_ndarray(np.max(h, axis=axis, keepdims=keepdim)).astype(nd, copy=False)
    if op == "amin":
        return as_ndarray(np.min(h, axis=axis, keepdims=keepdim)).astype(nd, copy=False)
    if op == "all":
        return as_ndarray(np.all(h, axis=axis, keepdims=keepdim))
    if op == "any":
        return as_ndarray(np.any(h, axis=axis, keepdims=keepdim))
    raise ValueError(f"unknown reduction {op}")


def arg_reduce(op, h, dim, keepdim):
    fn = np.argmax if op == "argmax" else np.argmin
    if dim is None:
        r = as_ndarray(fn(h))
        return r.reshape((1,) * h.ndim) if keepdim else r.astype(np.int64)
    return c_order(as_ndarray(fn(h, axis=dim, keepdims=keepdim)).astype(np.int64, copy=False))


def require_all(h, op):
    if h.size and not h.all():
        raise RuntimeError(VALUE_CHECKS[op])
