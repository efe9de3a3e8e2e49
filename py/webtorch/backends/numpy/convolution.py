"""NumPy implementations of the convolution, pooling, padding and embedding primitives of backends/contract.py.

Plain functions NumpyBackend is built from (backends/base.py).
Spatial ops take (N, C, *spatial) arrays with 1 to 3 spatial dims. Sliding
windows are strided views (no copy); convolution is im2col + one batched matmul over all groups; the
adjoint (col2im) loops only over kernel offsets, adding one strided slice each.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._geometry import numel as _prod
from ..window_geometry import out_size


def _pad_spatial(x, before, after, value=0):
    """x with its spatial dims (2..) padded by ``before``/``after`` (ints per dim) filled with value."""
    if not any(before) and not any(after):
        return x
    shape = x.shape[:2] + tuple(s + b + a for s, b, a in zip(x.shape[2:], before, after))
    out = np.full(shape, value, dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(b, b + s) for b, s in zip(before, x.shape[2:]))] = x
    return out


def _windows(xp, kernel, stride, dilation, out):
    """Read-only view (N, C, *out, *kernel) of the windows of padded xp."""
    nd = len(kernel)
    st = xp.strides
    return as_strided(xp, xp.shape[:2] + tuple(out) + tuple(kernel),
                      st[:2] + tuple(st[2 + i] * stride[i] for i in range(nd))
                      + tuple(st[2 + i] * dilation[i] for i in range(nd)), writeable=False)


def _geometry(x_shape, kernel, stride, padding, dilation):
    return tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(x_shape[2:], kernel, stride, padding, dilation))


def _im2col(x, kernel, stride, padding, dilation, out=None):
    """(N, C, *kernel, *out) copy of x's windows and the output spatial size (``out``: only the first windows)."""
    out = out or _geometry(x.shape, kernel, stride, padding, dilation)
    win = _windows(_pad_spatial(x, padding, padding), kernel, stride, dilation, out)
    nd = len(kernel)
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return np.ascontiguousarray(win.transpose(perm)), out


def _col2im(cols, size, kernel, stride, padding, dilation):
    """Adjoint of _im2col: cols (N, C, *kernel, *out) summed into an (N, C, *size) array."""
    nd = len(kernel)
    out = cols.shape[2 + nd:]
    N, C = cols.shape[:2]
    padded = tuple(s + 2 * p for s, p in zip(size, padding))
    # the last window may end before the padded border; the buffer only has to reach it
    acc = np.zeros((N, C) + tuple(max(pd, (o - 1) * st + d * (k - 1) + 1)
                                  for pd, o, st, d, k in zip(padded, out, stride, dilation, kernel)),
                   dtype=np.float32 if cols.dtype == np.float16 else cols.dtype)
    for offs in np.ndindex(*kernel):
        dst = tuple(slice(k * d, k * d + (o - 1) * st + 1, st) for k, d, o, st in zip(offs, dilation, out, stride))
        acc[(slice(None), slice(None)) + dst] += cols[(slice(None), slice(None)) + offs]
    crop = tuple(slice(p, p + s) for p, s in zip(padding, size))
    return np.ascontiguousarray(acc[(slice(None), slice(None)) + crop], dtype=cols.dtype)


def _grouped_cols(x, kernel, stride, padding, dilation, groups, out=None):
    """x's im2col as (G, N, Cg*prod(kernel), prod(out)) and the output spatial size."""
    cols, out = _im2col(x, kernel, stride, padding, dilation, out)
    N = x.shape[0]  # sizes spelled out: a reshape cannot infer a -1 when N is 0
    return cols.reshape(N, groups, x.shape[1] // groups * _prod(kernel), _prod(out)).transpose(1, 0, 2, 3), out


# ---- convolution ------------------------------------------------------------------------------
def conv(x, w, bias, stride, padding, dilation, groups):
    N = x.shape[0]
    cout = w.shape[0]
    cols, out = _grouped_cols(x, w.shape[2:], stride, padding, dilation, groups)
    wg = w.reshape(groups, 1, cout // groups, -1)
    y = np.matmul(wg, cols)  # (G, N, Cout/G, P)
    y = y.transpose(1, 0, 2, 3).reshape((N, cout) + out)
    if bias is not None:
        y = y + bias.reshape((1, cout) + (1,) * len(out))
    return np.ascontiguousarray(y, dtype=x.dtype)


def conv_backward_input(g, w, input_shape, stride, padding, dilation, groups):
    N, cout = g.shape[:2]
    out = g.shape[2:]
    kernel = w.shape[2:]
    cg = w.shape[1]
    gg = g.reshape(N, groups, cout // groups, _prod(out)).transpose(1, 0, 2, 3)  # (G, N, Cout/G, P)
    wt = w.reshape(groups, 1, cout // groups, -1).transpose(0, 1, 3, 2)  # (G, 1, Cg*K, Cout/G)
    cols = np.matmul(wt, gg)  # (G, N, Cg*K, P)
    cols = cols.transpose(1, 0, 2, 3).reshape((N, groups * cg) + tuple(kernel) + tuple(out))
    return _col2im(cols, tuple(input_shape[2:]), kernel, stride, padding, dilation)


def conv_backward_weight(g, x, weight_shape, stride, padding, dilation, groups):
    N, cout = g.shape[:2]
    # a transposed conv's output_padding can leave x longer than g's windows need: use g's extent
    cols, _ = _grouped_cols(x, tuple(weight_shape[2:]), stride, padding, dilation, groups, tuple(g.shape[2:]))
    P = _prod(g.shape[2:])  # sizes spelled out: a reshape cannot infer -1 when N is 0
    gg = g.reshape(N, groups, cout // groups, P).transpose(1, 0, 2, 3)  # (G, N, Cout/G, P)
    # one product per sample, summed over the batch: no (Cg*K, N*P) copy of the columns (LeNet's conv1: 6x faster)
    gw = np.matmul(gg, cols.transpose(0, 1, 3, 2)).sum(axis=1)  # (G, Cout/G, Cg*K)
    return np.ascontiguousarray(gw.reshape(weight_shape), dtype=x.dtype)


def im2col(x, kernel, stride, padding, dilation):
    cols, out = _im2col(x, kernel, stride, padding, dilation)
    return cols.reshape(x.shape[0], x.shape[1] * _prod(kernel), _prod(out))


def col2im(cols, size, kernel, stride, padding, dilation):
    out = _geometry((0, 0) + tuple(size), kernel, stride, padding, dilation)
    N = cols.shape[0]
    c = cols.shape[1] // _prod(kernel)
    return _col2im(cols.reshape((N, c) + tuple(kernel) + out), tuple(size), kernel, stride, padding, dilation)

# ---- pooling --------------------------------------------------------------------------------------
def max_pool(x, kernel, stride, padding, dilation, ceil_mode):
    nd = len(kernel)
    size = x.shape[2:]
    out = tuple(out_size(s, k, st, p, d, ceil_mode) for s, k, st, p, d in zip(size, kernel, stride, padding,
                                                                               dilation))
    after = tuple(max(p, (o - 1) * st + d * (k - 1) + 1 - s - p)
                  for s, k, st, p, d, o in zip(size, kernel, stride, padding, dilation, out))
    low = -np.inf if x.dtype.kind == "f" else (False if x.dtype == np.bool_ else np.iinfo(x.dtype).min)
    xp = _pad_spatial(x, padding, after, low)
    win = _windows(xp, kernel, stride, dilation, out).reshape(x.shape[:2] + out + (_prod(kernel),))
    arg = np.argmax(win, axis=-1)
    vals = np.take_along_axis(win, arg[..., None], axis=-1)[..., 0]
    flat = np.zeros(arg.shape, np.int64)
    offs = np.unravel_index(arg, kernel)
    for i in range(nd):
        o = np.arange(out[i]).reshape((out[i],) + (1,) * (nd - 1 - i))
        pos = o * stride[i] - padding[i] + offs[i] * dilation[i]
        flat = flat * size[i] + pos
    return np.ascontiguousarray(vals), flat


def adaptive_max_pool(x, output_size):
    nd = len(output_size)
    size = x.shape[2:]
    vals = x
    picks = []
    for i, (L, O) in enumerate(zip(size, output_size)):
        start = (np.arange(O) * L) // O
        end = -((-(np.arange(O) + 1) * L) // O)
        kmax = int((end - start).max())
        idx = np.minimum(start[:, None] + np.arange(kmax)[None, :], (end - 1)[:, None])  # (O, kmax)
        picks.append(idx)
        vals = np.take(vals, idx, axis=2 + 2 * i)  # dim i becomes (O, kmax)
    # (N, C, O1, k1, O2, k2, ...) -> (N, C, O1, O2, ..., k1*k2*...)
    perm = (0, 1) + tuple(2 + 2 * i for i in range(nd)) + tuple(3 + 2 * i for i in range(nd))
    ks = tuple(p.shape[1] for p in picks)
    win = vals.transpose(perm).reshape(x.shape[:2] + tuple(output_size) + (_prod(ks),))
    arg = np.argmax(win, axis=-1)
    out = np.ascontiguousarray(np.take_along_axis(win, arg[..., None], axis=-1)[..., 0])
    offs = np.unravel_index(arg, ks)
    flat = np.zeros(arg.shape, np.int64)
    for i in range(nd):
        o = np.arange(output_size[i]).reshape((output_size[i],) + (1,) * (nd - 1 - i))
        flat = flat * size[i] + picks[i][o, offs[i]]
    return out, flat


def avg_pool(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
    size = x.shape[2:]
    ones = (1,) * len(kernel)
    out = tuple(out_size(s, k, st, p, 1, ceil_mode) for s, k, st, p in zip(size, kernel, stride, padding))
    after = tuple(max(p, (o - 1) * st + k - s - p) for s, k, st, p, o in zip(size, kernel, stride, padding, out))
    acc = np.float32 if x.dtype == np.float16 else x.dtype
    xp = _pad_spatial(x.astype(acc, copy=False), padding, after)
    win = _windows(xp, kernel, stride, ones, out)
    s = win.sum(axis=tuple(range(2 + len(kernel), 2 + 2 * len(kernel))))
    div = _avg_divisor(size, kernel, stride, padding, out, count_include_pad, divisor_override)
    if x.dtype.kind in "iu":  # C integer division, as PyTorch: truncates toward zero
        d = div.astype(acc)
        return (np.sign(s) * (np.abs(s) // d)).astype(x.dtype)
    return (s / div).astype(x.dtype)


def avg_pool_backward(g, input_shape, kernel, stride, padding, ceil_mode, count_include_pad,
                      divisor_override):
    size = tuple(input_shape[2:])
    out = g.shape[2:]
    div = _avg_divisor(size, kernel, stride, padding, out, count_include_pad, divisor_override)
    gd = (g / div).astype(g.dtype)
    nd = len(kernel)
    cols = np.broadcast_to(gd.reshape(g.shape[:2] + (1,) * nd + out), g.shape[:2] + tuple(kernel) + out)
    return _col2im(cols, size, kernel, stride, padding, (1,) * nd)


def scatter_plane(src, indices, plane_shape, accumulate):
    N, C = src.shape[:2]
    L = _prod(plane_shape)
    idx = indices.reshape(N * C, _prod(indices.shape[2:]))
    if idx.size and (idx.min() < 0 or idx.max() >= L):
        bad = idx[(idx < 0) | (idx >= L)][0]
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(str(s) for s in plane_shape)}")
    rows = np.arange(N * C, dtype=np.int64)[:, None] * L
    if accumulate:
        flat = np.bincount((rows + idx).ravel(), weights=src.reshape(-1), minlength=N * C * L)
        out = flat.astype(src.dtype)
    else:
        out = np.zeros(N * C * L, src.dtype)
        out[(rows + idx).ravel()] = src.reshape(-1)
    return out.reshape((N, C) + tuple(plane_shape))


def gather_plane(src, indices):
    N, C = src.shape[:2]
    out = np.take_along_axis(src.reshape(N * C, _prod(src.shape[2:])),
                             indices.reshape(N * C, _prod(indices.shape[2:])), axis=1)
    return out.reshape(indices.shape)

def resample_taps(x, dim, index, weight, divisor):
    if x.dtype == np.float16:   # computed in float32 and rounded once, as PyTorch's CPU kernels (and wasm's)
        up = [None if a is None else a.astype(np.float32) for a in (x, weight, divisor)]
        return resample_taps(up[0], dim, index, up[1], up[2]).astype(np.float16)
    # no inf or NaN to spread: the same map as one BLAS matmul, many times faster than gathering the taps. A finite
    # sum tells (cheaper than isfinite(x).all()); of the smaller side: a non-finite x makes the whole row of the
    # matmul's result NaN or inf (a finite x whose result overflows only takes the slower, exact path)
    if index.shape[0] > x.shape[dim]:
        if np.isfinite(x.sum()):
            return _resample_matmul(x, dim, index, weight, divisor)
    else:
        y = _resample_matmul(x, dim, index, weight, divisor)
        if np.isfinite(y.sum()):
            return y
    bcast = (index.shape[0],) + (1,) * (x.ndim - dim - 1)
    out = None
    for k in range(index.shape[1]):
        col = index[:, k]
        real = col >= 0
        tap = np.take(x, np.where(real, col, 0) if not real.all() else col, axis=dim)
        if weight is not None:
            tap *= weight[:, k].reshape(bcast)
        if not real.all():
            tap = np.where(real.reshape(bcast), tap, x.dtype.type(0))
        out = tap if out is None else np.add(out, tap, out=out)
    if divisor is not None:
        out /= divisor.reshape(bcast)
    return np.ascontiguousarray(out)


def _resample_matmul(x, dim, index, weight, divisor):
    """resample_taps of a finite x: x's dim times the (L, O) matrix of the taps' weights."""
    O, K = index.shape
    real = index >= 0
    w = np.ones(index.shape, x.dtype) if weight is None else weight
    if divisor is not None:
        w = w / divisor[:, None]
    L = x.shape[dim]
    m = np.zeros((L, O), x.dtype)
    np.add.at(m, (index[real], np.broadcast_to(np.arange(O)[:, None], (O, K))[real]), w[real])
    outer, inner = _prod(x.shape[:dim]), _prod(x.shape[dim + 1:])
    if dim == x.ndim - 1:   # x's stacked rows times m (measured faster than one (outer, L) GEMM for skinny m)
        return np.matmul(x, m)
    # (O, L) @ (outer, L, inner): no transposed copy of x
    y = np.matmul(np.ascontiguousarray(m.T), x.reshape(outer, L, inner))
    return y.reshape(x.shape[:dim] + (O,) + x.shape[dim + 1:])


# ---- padding --------------------------------------------------------------------------------------
def pad(x, pads, mode, value):
    if mode == "constant":
        return np.pad(x, pads, mode="constant", constant_values=np.array(value).astype(x.dtype))
    return np.pad(x, pads, mode=_NP_PAD_MODE[mode])


def pad_backward(g, pads, mode):
    for dim, (lo, hi) in enumerate(pads):
        if lo == 0 and hi == 0:
            continue
        gd = np.moveaxis(g, dim, 0)
        L = gd.shape[0] - lo - hi
        core = gd[lo:lo + L].copy()
        left, right = gd[:lo], gd[lo + L:]
        if mode == "replicate":
            core[0] += left.sum(axis=0)
            core[L - 1] += right.sum(axis=0)
        elif mode == "reflect":
            core[1:lo + 1] += left[::-1]
            core[L - 1 - hi:L - 1] += right[::-1]
        elif mode == "circular":
            core[L - lo:] += left
            core[:hi] += right
        g = np.moveaxis(core, 0, dim)
    return np.ascontiguousarray(g)

# ---- embedding ------------------------------------------------------------------------------------
def embedding(weight, indices):
    _check_rows(indices, weight.shape[0])
    return np.take(weight, indices, axis=0)


def embedding_backward(g, indices, num_weights, padding_idx, scale_grad_by_freq):
    idx = indices.reshape(-1)
    gr = g.reshape(idx.size, g.shape[-1])  # (-1 cannot be inferred when there are no indices)
    if scale_grad_by_freq:
        counts = np.bincount(idx, minlength=num_weights)
        gr = gr / counts[idx][:, None].astype(gr.dtype)
    out = np.zeros((num_weights, gr.shape[1]), g.dtype)
    np.add.at(out, idx, gr)
    if padding_idx is not None:
        out[padding_idx] = 0
    return out


def embedding_renorm_(weight, indices, max_norm, norm_type):
    _check_rows(indices, weight.shape[0])
    rows = np.unique(indices)
    sel = weight[rows]
    norms = np.sum(np.abs(sel.astype(np.float64)) ** norm_type, axis=1) ** (1.0 / norm_type)
    big = norms > max_norm
    scale = (max_norm / (norms[big] + 1e-7)).astype(weight.dtype)
    weight[rows[big]] = sel[big] * scale[:, None]
    return weight


_NP_PAD_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _check_rows(indices, n):
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise IndexError("index out of range in self")


def _avg_divisor(size, kernel, stride, padding, out, count_include_pad, divisor_override):
    """Broadcastable (1, 1, *out) divisor of avg pooling (PyTorch's rule: windows clipped to input+padding,
    then, unless count_include_pad, to the input)."""
    nd = len(kernel)
    if divisor_override:
        return np.array(float(divisor_override)).reshape((1,) * (2 + nd))
    div = np.ones((1,) * (2 + nd))
    for i, (s, k, st, p, o) in enumerate(zip(size, kernel, stride, padding, out)):
        start = np.arange(o) * st - p
        end = np.minimum(start + k, s + p)
        n = end - start
        if not count_include_pad:
            n = np.minimum(end, s) - np.maximum(start, 0)
        div = div * n.reshape((1, 1) + (1,) * i + (o,) + (1,) * (nd - 1 - i))
    return div
