"""NumPy implementations of the fused nn primitives of backends/contract.py (softmax, layer norm, batch norm).

Plain functions NumpyBackend is built from (backends/base.py).
float16 inputs accumulate in float32 and are rounded once at the end.
"""
import numpy as np

from .arrays import c_order, npdtype


def _acc(a):
    """The array in its accumulation dtype (float32 for float16, else unchanged)."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _flat_rows(x, n):
    """x viewed (or copied) as (rows, cols) where cols spans the last n dims."""
    lead = x.shape[:x.ndim - n]
    cols = rows = 1
    for s in x.shape[x.ndim - n:]:
        cols *= s
    for s in lead:
        rows *= s
    return x.reshape(rows, cols), lead  # not (-1, cols): that fails on 0 elements


def softmax(h, dim, log, dtype):
    nd = npdtype(dtype)
    x = _acc(h.astype(nd, copy=False))
    if x.size == 0:
        return np.empty(x.shape, nd)
    z = x - x.max(axis=dim, keepdims=True)
    if log:
        r = z - np.log(np.exp(z).sum(axis=dim, keepdims=True))
    else:
        r = np.exp(z)
        r /= r.sum(axis=dim, keepdims=True)
    return c_order(r.astype(nd, copy=False))


def softmax_backward(g, y, dim, log, dtype):
    nd = npdtype(dtype)
    g, y = _acc(g.astype(nd, copy=False)), _acc(y.astype(nd, copy=False))
    if log:
        r = g - np.exp(y) * g.sum(axis=dim, keepdims=True)
    else:
        gy = g * y
        r = gy - y * gy.sum(axis=dim, keepdims=True)
    return c_order(r.astype(nd, copy=False))


def layer_norm(x, weight, bias, n, eps):
    x2, lead = _flat_rows(_acc(x), n)
    if x2.shape[1] == 0:
        mean = np.full((x2.shape[0], 1), np.nan, x2.dtype)
        rstd = np.full((x2.shape[0], 1), np.nan, x2.dtype)
        y = x2.copy()
    else:
        mean = x2.mean(axis=1, keepdims=True)
        xc = x2 - mean
        var = np.einsum("ij,ij->i", xc, xc)[:, None] / x2.shape[1]
        rstd = 1.0 / np.sqrt(var + eps)
        y = xc
        y *= rstd
    if weight is not None:
        y *= _acc(weight).reshape(-1)
    if bias is not None:
        y += _acc(bias).reshape(-1)
    stat_shape = lead + (1,) * n
    return (c_order(y.reshape(x.shape).astype(x.dtype, copy=False)),
            mean.reshape(stat_shape).astype(x.dtype, copy=False),
            rstd.reshape(stat_shape).astype(x.dtype, copy=False))


def layer_norm_backward(g, x, mean, rstd, weight, n, need):
    g2, _ = _flat_rows(_acc(g), n)
    x2, _ = _flat_rows(_acc(x), n)
    mean, rstd = _acc(mean).reshape(-1, 1), _acc(rstd).reshape(-1, 1)
    xhat = (x2 - mean) * rstd
    gx = gw = gb = None
    if need[0]:
        gh = g2 * _acc(weight).reshape(-1) if weight is not None else g2
        cols = max(x2.shape[1], 1)
        a = gh.sum(axis=1, keepdims=True) / cols
        b = np.einsum("ij,ij->i", gh, xhat)[:, None] / cols
        gx = c_order(((gh - a - xhat * b) * rstd).reshape(x.shape).astype(x.dtype, copy=False))
    wshape = x.shape[x.ndim - n:]
    if need[1] and weight is not None:
        gw = np.einsum("ij,ij->j", g2, xhat).reshape(wshape).astype(weight.dtype, copy=False)
    if need[2]:
        gb = g2.sum(axis=0).reshape(wshape).astype(x.dtype, copy=False)
    return gx, gw, gb


def batch_norm(x, weight, bias, running_mean, running_var, momentum, eps):
    x3 = _acc(x).reshape(x.shape[0], x.shape[1], -1)
    m = x3.shape[0] * x3.shape[2]
    mean = x3.mean(axis=(0, 2))
    xc = x3 - mean[:, None]
    var = np.einsum("ijk,ijk->j", xc, xc) / m
    rstd = 1.0 / np.sqrt(var + eps)
    y = xc
    y *= rstd[:, None]
    if weight is not None:
        y *= _acc(weight).reshape(-1, 1)
    if bias is not None:
        y += _acc(bias).reshape(-1, 1)
    if running_mean is not None:
        running_mean *= 1 - momentum
        running_mean += (momentum * mean).astype(running_mean.dtype, copy=False)
    if running_var is not None:
        running_var *= 1 - momentum
        running_var += (momentum * var * (m / max(m - 1, 1))).astype(running_var.dtype, copy=False)
    return (c_order(y.reshape(x.shape).astype(x.dtype, copy=False)), mean.astype(x.dtype, copy=False),
            rstd.astype(x.dtype, copy=False))


def batch_norm_backward(g, x, mean, rstd, weight, need):
    g3 = _acc(g).reshape(x.shape[0], x.shape[1], -1)
    rstd = _acc(rstd)
    xhat = (_acc(x).reshape(g3.shape) - _acc(mean)[:, None]) * rstd[:, None]
    m = max(g3.shape[0] * g3.shape[2], 1)
    sg = g3.sum(axis=(0, 2))
    sgx = np.einsum("ijk,ijk->j", g3, xhat)
    gx = gw = gb = None
    if need[0]:
        scale = rstd * _acc(weight) if weight is not None else rstd
        gx = (g3 - (sg / m)[:, None] - xhat * (sgx / m)[:, None]) * scale[:, None]
        gx = c_order(gx.reshape(x.shape).astype(x.dtype, copy=False))
    if need[1] and weight is not None:
        gw = sgx.astype(weight.dtype, copy=False)
    if need[2]:
        gb = sg.astype(x.dtype, copy=False)
    return gx, gw, gb
