"""NumPy implementations of the indexing family of backends/contract.py: index, index_put_, gather, scatter_,
nonzero, flip, check_classes.

Every index array is range-checked (two reductions) before anything is read or written, so a bad index
raises IndexOutOfRange with PyTorch's wording and leaves the destination untouched.
"""
import numpy as np

from ..base import IndexOutOfRange
from ..op_facts import reduce_identity
from .float8 import stored_as


def check_writable(h):
    """An expanded (stride-0) view must not be written: several elements share one memory location."""
    if not h.flags.writeable:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")


def _check_range(idx, size, dim, negative):
    if idx.size == 0:
        return
    lo = -size if negative else 0
    if idx.min() < lo or idx.max() >= size:
        bad = idx[(idx < lo) | (idx >= size)]
        raise IndexOutOfRange(int(bad.flat[0]), dim, size)


def _key(h, indices):
    key = []
    k = 0
    for d, ix in enumerate(indices):
        if ix is None:
            key.append(slice(None))
        else:
            _check_range(ix, h.shape[d], k, True)
            key.append(ix)
            k += 1
    return tuple(key)


def _fresh(r, h):
    """r as a C-contiguous ndarray that owns its memory (NumPy returns views or scalars for some keys)."""
    if type(r) is not np.ndarray:
        return np.asarray(r)
    if not r.flags.c_contiguous or (r.base is not None and np.may_share_memory(r, h)):
        return np.array(r, order="C", copy=True)
    return r


def _along(index, dim):
    """A fancy key addressing, for every position i of index, i with coordinate dim replaced by index[i]."""
    n = index.ndim
    return tuple(index if d == dim else
                 np.arange(index.shape[d]).reshape(tuple(-1 if e == d else 1 for e in range(n)))
                 for d in range(n))


def _block(h, shape, dim):
    """The leading block of h with ``shape`` in every dim but dim (a view)."""
    return h[tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(shape))]


_REDUCE_UFUNC = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _dtype_range(dtype):
    """(lowest, highest) value an array of ``dtype`` holds."""
    if dtype.kind == "f":
        return -np.inf, np.inf
    if dtype.kind == "b":
        return False, True
    info = np.iinfo(dtype)
    return info.min, info.max


def index(h, indices):
    return _fresh(h[_key(h, indices)], h)


def index_put_(h, indices, values, accumulate):
    check_writable(h)
    key = _key(h, indices)
    if accumulate:
        np.add.at(h, key, values)
    else:
        h[key] = stored_as(values, h.dtype)
    return h


def gather(h, dim, index):
    _check_range(index, h.shape[dim], dim, False)
    return _fresh(np.take_along_axis(_block(h, index.shape, dim), index, axis=dim), h)


def scatter_(h, dim, index, src, reduce, include_self):
    check_writable(h)
    _check_range(index, h.shape[dim], dim, False)
    sub = _block(h, index.shape, dim)
    if type(src) is np.ndarray:
        src = src[tuple(slice(0, s) for s in index.shape)]
    key = _along(index, dim)
    if reduce is None:
        sub[key] = stored_as(src, h.dtype)
        return h
    if not include_self:
        sub[key] = reduce_identity(reduce, *_dtype_range(h.dtype))
    _REDUCE_UFUNC[reduce].at(sub, key, src)
    if reduce == "mean":
        count = np.full(sub.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, key, 1)
        touched = count > 0
        if h.dtype.kind == "f":
            np.divide(sub, count, out=sub, where=touched, casting="unsafe")
        else:
            np.floor_divide(sub, count, out=sub, where=touched, casting="unsafe")
    return h


def nonzero(h):
    return np.argwhere(h).astype(np.int64, copy=False)


def flip(h, dims):
    return np.flip(h, dims).copy(order="C")


def check_classes(h, n, ignore, op):
    bad = (h < 0) | (h >= n)
    if ignore is not None:
        bad &= h != ignore
    if bad.any():
        value = np.where(bad, h, 0)
        hi, lo = int(value.max()), int(value.min())
        raise IndexError(f"Target {hi if hi >= n else lo} is out of bounds.")
    return h
