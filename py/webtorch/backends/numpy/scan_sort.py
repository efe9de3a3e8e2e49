"""NumPy implementations of the scan and sorting primitives (cumulative, sort, topk, searchsorted, unique) --
documented in backends/contract.py."""
import numpy as np

from .arrays import npdtype


def _running_index(x, values, dim):
    """Index of the element that set each running extremum; the latest one on ties, NaN wins (PyTorch)."""
    mark = (x == values)
    if x.dtype.kind == "f":
        mark |= np.isnan(x)
    shape = [1] * x.ndim
    shape[dim] = x.shape[dim]
    pos = np.arange(x.shape[dim], dtype=np.int64).reshape(shape)
    return np.maximum.accumulate(np.where(mark, pos, 0), axis=dim)


# ---- scans -------------------------------------------------------------------------------------------
def cumulative(op, h, dim, dtype, reverse=False):
    nd = npdtype(dtype)
    x = h if h.dtype == nd else h.astype(nd)
    if reverse:
        x = np.flip(x, dim)
    # PyTorch's CPU scans carry the running value in its accumulate type (float32 -> float64, float16 ->
    # float32): a float32 running sum of 1e6 x 0.1 would drift by 1%
    acc = {np.float32: np.float64, np.float16: np.float32}.get(nd.type, nd) if x.dtype.kind == "f" else nd
    if op == "sum":
        r = np.cumsum(x, axis=dim, dtype=acc).astype(nd, copy=False)
    elif op == "prod":
        r = np.cumprod(x, axis=dim, dtype=acc).astype(nd, copy=False)
    elif op == "logsumexp":
        r = np.logaddexp.accumulate(x, axis=dim) if x.shape[dim] else x.copy()
    elif op in ("max", "min"):
        if x.shape[dim] == 0:
            return x.copy(), np.zeros(x.shape, np.int64)
        acc = np.maximum if op == "max" else np.minimum
        values = acc.accumulate(x, axis=dim)
        idx = _running_index(x, values, dim)
        if reverse:
            return np.flip(values, dim).copy(), (x.shape[dim] - 1 - np.flip(idx, dim)).copy()
        return values, idx
    else:
        raise ValueError(f"unknown cumulative op {op}")
    return np.ascontiguousarray(np.flip(r, dim)) if reverse else r

# ---- sorting -------------------------------------------------------------------------------------------
def sort(h, dim, descending, stable):
    if h.ndim == 0:
        return h.copy(), np.zeros((), np.int64)
    if descending:
        # a stable descending order = reversed stable ascending order of the reversed input
        # (keeps equal elements in their original order); NaN sorts as the largest value
        rev = np.flip(h, dim)
        idx = np.argsort(rev, axis=dim, kind="stable")
        idx = np.flip(h.shape[dim] - 1 - idx, dim)
    else:
        idx = np.argsort(h, axis=dim, kind="stable")
    idx = np.ascontiguousarray(idx).astype(np.int64, copy=False)
    return np.take_along_axis(h, idx, axis=dim), idx


def topk(h, k, dim, largest, sorted):
    if h.ndim == 0:
        return h.copy(), np.zeros((), np.int64)
    n = h.shape[dim]
    if k < n and n > 64:
        # partition first (O(n)), then sort only the k winners
        key = -h if (largest and h.dtype.kind != "b") else (~h if largest else h)
        if h.dtype.kind == "f" and largest:
            key = np.where(np.isnan(h), -np.inf, key)
        part = np.argpartition(key, k - 1, axis=dim)
        cand = np.take(part, np.arange(k), axis=dim)
        vals = np.take_along_axis(h, cand, axis=dim)
        v, order = sort(vals, dim, largest, True)
        return v, np.take_along_axis(cand, order, axis=dim).astype(np.int64)
    v, i = sort(h, dim, largest, True)
    return np.take(v, np.arange(k), axis=dim), np.take(i, np.arange(k), axis=dim)


def searchsorted(seq, values, right, out_int32):
    """seq (..., n) sorted along its last dim; values (..., m) with the same leading dims (or seq 1-D)."""
    side = "right" if right else "left"
    dt = np.int32 if out_int32 else np.int64
    if seq.ndim == 1:
        return np.searchsorted(seq, values, side=side).astype(dt)
    n = seq.shape[-1]
    lead = seq.shape[:-1]
    rows = int(np.prod(lead)) if lead else 1
    s2 = seq.reshape(rows, n).astype(np.float64)
    v2 = values.reshape(rows, -1).astype(np.float64)
    # one flat search: rows are shifted apart so they cannot interleave
    lo = np.minimum(s2.min(initial=np.inf), v2.min(initial=np.inf))
    hi = np.maximum(s2.max(initial=-np.inf), v2.max(initial=-np.inf))
    span = (hi - lo) + 1.0 if np.isfinite(hi - lo) else None
    if span is None or not np.all(np.isfinite(s2)) or not np.all(np.isfinite(v2)):
        r = np.stack([np.searchsorted(s2[i], v2[i], side=side) for i in range(rows)])
    else:
        off = (np.arange(rows) * span)[:, None]
        r = np.searchsorted((s2 - lo + off).ravel(), (v2 - lo + off).ravel(), side=side).reshape(rows, -1)
        r = r - (np.arange(rows) * n)[:, None]
    return r.reshape(values.shape).astype(dt)


def unique(h, sorted, return_inverse, return_counts, dim):
    if dim is None:
        # every NaN is its own value, as PyTorch's (NumPy would fold them into one)
        vals, inv, counts = np.unique(h.ravel(), return_inverse=True, return_counts=True, equal_nan=False)
        return vals, inv.reshape(h.shape).astype(np.int64), counts.astype(np.int64)
    moved = np.moveaxis(h, dim, 0)
    flat = moved.reshape(moved.shape[0], -1)
    vals, inv, counts = np.unique(flat, axis=0, return_inverse=True, return_counts=True)
    vals = np.moveaxis(vals.reshape((-1,) + moved.shape[1:]), 0, dim)
    return np.ascontiguousarray(vals), inv.reshape(-1).astype(np.int64), counts.astype(np.int64)
