"""softmax / log_softmax, layer_norm, batch_norm (training) and their backward as WGSL row kernels (webgpu).

One row (the softmax dim, or the flattened normalized dims) is reduced by RT cooperating invocations of
a workgroup (webgpu-shaders/softmax_*.wgsl, layernorm_*.wgsl): short rows get few invocations each (many
rows per workgroup), long rows a whole workgroup. Everything is recorded lazily like any other kernel.
The weight and bias gradients of layer_norm are column sums: recorded as elementwise nodes feeding a
reduction, which the planner fuses into one kernel each. batch_norm reduces per channel (one workgroup per
channel over N and the spatial dims): statistics, running-stat updates and the output in one kernel; the
backward's three gradients in one more. Past one binding, softmax and layer_norm bind windows of blocks of rows;
batch_norm runs as reductions and elementwise passes (a channel's elements span the whole tensor). With the
adapter's subgroups every reduction helper is swapped for its subgroup version (subgroup_reduce.py).
"""
import struct

from ... import _dtype as D
from ..._geometry import contiguous_strides
from . import binding_windows, block_split, creation, reduce_kernels, subgroup_reduce, views, wgsl_loader
from .block_split import Out
from .codegen import coalesce, grid
from .elementwise_kernels import cast, contiguous, copy_, elementwise
from .handles import View

_SOURCES = {}


def _record(rec, name, source, params, groups, reads, outs, binds=None):
    """Record a kernel whose bindings are the Views ``reads`` then the Views ``outs``, in order (or ``binds``,
    their Buffers or Windows, when given)."""
    bufs = binds or [v.st.buf for v in reads + outs]
    rec.record_kernel(name, source, params, groups, bufs, [v.st.buf for v in reads], [v.st.buf for v in outs])


def _source(rec, name, **spec):
    """The specialized kernel, in its subgroup variant when the device's subgroups are on (subgroup_reduce.py)."""
    sg = rec.features.subgroups
    key = (name, sg) + tuple(sorted(spec.items()))
    s = _SOURCES.get(key)
    if s is None:
        s = wgsl_loader.specialize(name, **spec)
        s = _SOURCES[key] = subgroup_reduce.specialize(s) if sg else s
    return s


_CPU_MIN_ROWS = 16  # fewer rows on a CPU adapter: RT invocations share each (SIMD lanes stay busy)
BN_RT = 256  # invocations per channel of batchnorm_*.wgsl


def row_fits(length, rt, limits):
    """True when ``rt`` invocations reduce a row of ``length`` within one invocation's loop budget (limits.py):
    the kernels walk the row up to four times plus a log-depth tree. A longer row (millions of elements) runs
    on the host (host_rules.py) rather than come back truncated. ``limits``: the device's (limits.py)."""
    return length <= max(1, (limits.loop_trips() - 16) // 4) * rt


def _launch(rows, length, cpu, limits):
    """(WG, RT, groups): RT invocations per row, a power of two giving each about 8 elements -- except on a
    CPU adapter (``cpu``), where every workgroup barrier switches coroutines and a workgroup's invocations
    share one core anyway: there each invocation reduces a row alone (RT 1, no barrier) when there are rows
    enough for its SIMD lanes and the row fits one invocation's loop budget. SwiftShader, GPT's shapes
    (rows of 64 and 128; one profiled step each on a loaded machine): layer_norm 72 -> 16 ms, softmax
    75 -> 14 ms per call."""
    rt = 1
    if not (cpu and rows >= _CPU_MIN_ROWS and row_fits(length, 1, limits)):
        while rt < 256 and rt * 8 < length:
            rt *= 2
    wg = max(64, rt)
    return wg, rt, grid(-(-rows // (wg // rt)), limits)


def _rows_geometry(views, dim):
    """Row geometry of same-shaped views reduced along ``dim``: (rows, kept sizes as 4 words, per view
    (4 kept strides, dim stride)), or None when the kept dims do not coalesce into four."""
    shape = views[0].shape
    kept = [d for d in range(len(shape)) if d != dim]
    sizes, strides = coalesce(tuple(shape[d] for d in kept), [tuple(v.strides[d] for d in kept) for v in views])
    if len(sizes) > 4:
        return None
    pad = 4 - len(sizes)
    rows = 1
    for s in sizes:
        rows *= s
    return (rows, (1,) * pad + sizes,
            [((0,) * pad + st, v.strides[dim]) for v, st in zip(views, strides)])


def _f32(rec, h):
    return h if h.dtype is D.float32 else cast(rec, h, D.float32)


def _packed(rec, h):
    """h as float32 elements contiguous in C order (from any offset; a copy only when they are not)."""
    h = _f32(rec, h)
    return h if h.is_contiguous() else contiguous(rec, h)


def _dense(rec, h):
    """h as float32 elements contiguous from offset 0 of their buffer (a copy only when they are not)."""
    h = _packed(rec, h)
    return h if h.offset == 0 else contiguous(rec, h)


def _stride0(v):
    return v.strides[0] if v.shape and v.shape[0] > 1 else 0


def _channel_param(rec, h, fallback):
    """(float32 view, stride) of a per-channel (C,) parameter, or (fallback, 0) to bind in its place."""
    if h is None:
        return fallback, 0
    h = _f32(rec, h)
    return h, _stride0(h)


_ROW_HINT = "a smaller batch or sequence length (fewer rows), or a smaller last dim"


def _row_blocks(views, dim):
    """The same-shaped ``views`` (rows along ``dim``; some storage past one binding) in blocks of rows whose
    parts fit one window each (binding_windows.py): [(the views narrowed to the block and rebased to their
    windows, their bindings)], halving the outermost kept dim first -- the kernel binds windows of the full
    tensors, with no block copies. None when one row passes a binding or a block's kept dims do not coalesce into
    four (the caller runs in copied blocks, block_split.py, which refuses a row too large)."""
    _, kept = block_split.kept_axes(views[0].shape, dim)
    out, stack = [], [list(views)]
    while stack:
        vs = stack.pop()
        if binding_windows.fits(vs):
            if _rows_geometry(vs, dim) is None:
                return None
            out.append(binding_windows.bind(vs))
            continue
        d = next((d for d in kept if vs[0].shape[d] > 1), None)
        if d is None:
            return None
        for a, b in reversed(binding_windows.halves(vs[0].shape[d])):
            stack.append([binding_windows.narrowed(v, d, a, b) for v in vs])
    return out


def softmax(rec, h, dim, log, dtype):
    axes, kept = block_split.kept_axes(h.shape, dim)
    ins, outs = [(h, kept)], [Out(h.shape, dtype, kept)]
    big = block_split.needed(ins, outs, rec.limits)
    x = _f32(rec, h)
    out = rec.new(h.shape, D.float32)
    if out.numel:
        if _rows_geometry([x, out], dim) is None:
            x = contiguous(rec, x)
        blocks = _row_blocks([x, out], dim) if big else [([x, out], None)]
        if blocks is None:
            return block_split.in_blocks(rec, lambda x: softmax(rec, x, dim, log, dtype), ins, outs, axes,
                                         "softmax", "row", _ROW_HINT)
        for (bx, bout), binds in blocks:
            rows, sizes, ((xst, xds), (yst, yds)) = _rows_geometry([bx, bout], dim)
            wg, rt, groups = _launch(rows, h.shape[dim], rec.rt.cpu_adapter, rec.limits)
            params = struct.pack("<20I", rows, h.shape[dim], xds, yds, *sizes, *xst, *yst, bx.offset, bout.offset,
                                 0, 0)
            _record(rec, "softmax_forward", _source(rec, "softmax_forward", LOG=log, WG=f"{wg}u", RT=f"{rt}u"),
                    params, groups, [bx], [bout], binds)
    return out if dtype is D.float32 else cast(rec, out, dtype)


def softmax_backward(rec, g, y, dim, log, dtype):
    axes, kept = block_split.kept_axes(y.shape, dim)
    ins, outs = [(g, kept), (y, kept)], [Out(y.shape, dtype, kept)]
    big = block_split.needed(ins, outs, rec.limits)
    g_in, y_in = g, y
    g, y = _f32(rec, g), _f32(rec, y)
    out = rec.new(y.shape, D.float32)
    if out.numel:
        if _rows_geometry([g, y, out], dim) is None:
            g, y = contiguous(rec, g), contiguous(rec, y)
        blocks = _row_blocks([g, y, out], dim) if big else [([g, y, out], None)]
        if blocks is None:
            return block_split.in_blocks(rec, lambda g, y: softmax_backward(rec, g, y, dim, log, dtype),
                                         [(g_in, kept), (y_in, kept)], outs, axes, "softmax_backward", "row",
                                         _ROW_HINT)
        for (bg, by, bout), binds in blocks:
            rows, sizes, ((gst, gds), (yst, yds), (ost, ods)) = _rows_geometry([bg, by, bout], dim)
            wg, rt, groups = _launch(rows, y.shape[dim], rec.rt.cpu_adapter, rec.limits)
            params = struct.pack("<28I", rows, y.shape[dim], 0, 0, *sizes, *gst, *yst, *ost, gds, yds, ods, 0,
                                 bg.offset, by.offset, bout.offset, 0)
            _record(rec, "softmax_backward", _source(rec, "softmax_backward", LOG=log, WG=f"{wg}u", RT=f"{rt}u"),
                    params, groups, [bg, by], [bout], binds)
    return out if dtype is D.float32 else cast(rec, out, dtype)


def _leading(x, n):
    """(axes, dims, stat_shape) of a normalization over the last ``n`` dims: the leading dims are independent."""
    lead = tuple(range(len(x.shape) - n))
    return tuple(x.shape[:len(lead)]), lead, x.shape[:len(lead)] + (1,) * n


def _as_rows(h, rows, cols):
    """Fresh contiguous float32 tensor h as a (rows, cols) view."""
    return View(h.st, (rows, cols), (cols, 1), h.offset)


def _row_launches(rows_views, params, big):
    """[(block's row views, block's parameter views, (bindings of the row views, of the parameters) or None)]:
    one launch of the (rows, ...) views ``rows_views`` and the per-column ``params`` (weight, bias; None for one
    absent, bound as the first row view), or -- when some storage is past one binding (``big``) -- one per block
    of rows whose parts fit one window each (``_row_blocks``), the parameters bound as windows too. None when one
    row passes a binding (the caller runs in copied blocks, which refuses it)."""
    if not big:
        return [(rows_views, [v if v is not None else rows_views[0] for v in params], None)]
    blocks = _row_blocks(rows_views, 1)
    if blocks is None:
        return None
    present = [v for v in params if v is not None]
    bound = iter(zip(*binding_windows.bind(present))) if present else iter(())
    pairs = [next(bound) if v is not None else (None, None) for v in params]
    return [(views, [v if v is not None else views[0] for v, _ in pairs],
             (binds, [b if b is not None else binds[0] for _, b in pairs])) for views, binds in blocks]


def layer_norm(rec, x, weight, bias, n, eps):
    axes, lead, stat_shape = _leading(x, n)
    whole = (None,) * len(lead)
    dt = x.dtype
    ins = [(x, lead), (weight, whole), (bias, whole)]
    outs = [Out(x.shape, dt, lead), Out(stat_shape, dt, lead), Out(stat_shape, dt, lead)]
    big = block_split.needed(ins, outs, rec.limits)
    x2, rows, cols = _norm_rows(rec, x, n)
    y = rec.new(x.shape, D.float32)
    mean, rstd = rec.new(stat_shape, D.float32), rec.new(stat_shape, D.float32)
    if rows and not cols:  # nothing normalized: statistics of an empty set
        mean, rstd = creation.full(rec, stat_shape, float("nan"), dt), creation.full(rec, stat_shape, float("nan"), dt)
        return cast(rec, x, dt), mean, rstd
    if rows:
        params = tuple(_packed(rec, h) if h is not None else None for h in (weight, bias))
        launches = _row_launches([x2, _as_rows(y, rows, cols), _as_rows(mean, rows, 1), _as_rows(rstd, rows, 1)],
                                 params, big)
        if launches is None:  # rows past one binding: refused by the copied blocks, naming the sizes
            return block_split.in_blocks(rec, lambda x, w, b: layer_norm(rec, x, w, b, n, eps), ins, outs, axes,
                                         "layer_norm", "row", _ROW_HINT)
        for (bx, by, bm, br), (w, b), binds in launches:
            wg, rt, groups = _launch(bx.shape[0], cols, rec.rt.cpu_adapter, rec.limits)
            words = struct.pack("<12I", bx.shape[0], cols, weight is not None, bias is not None, bx.offset, w.offset,
                                b.offset, struct.unpack("<I", struct.pack("<f", eps))[0], by.offset, bm.offset,
                                br.offset, 0)
            _record(rec, "layernorm_forward", _source(rec, "layernorm_forward", WG=f"{wg}u", RT=f"{rt}u"),
                    words, groups, [bx, w, b], [by, bm, br], binds and [binds[0][0], *binds[1], *binds[0][1:]])
    if dt is not D.float32:
        return cast(rec, y, dt), cast(rec, mean, dt), cast(rec, rstd, dt)
    return y, mean, rstd


def layer_norm_backward(rec, g, x, mean, rstd, weight, n, need):
    axes, lead, _ = _leading(x, n)
    whole = (None,) * len(lead)
    dt = x.dtype
    wshape = x.shape[len(x.shape) - n:]
    ins = [(g, lead), (x, lead), (mean, lead), (rstd, lead), (weight, whole)]
    outs = [Out(x.shape, dt, lead), Out(wshape, dt, whole, "sum"), Out(wshape, dt, whole, "sum")]
    big = block_split.needed(ins, outs, rec.limits)
    x2, rows, cols = _norm_rows(rec, x, n)
    g2, _, _ = _norm_rows(rec, g, n)
    mean2 = views.reshaped(_dense(rec, mean), (rows, 1))
    rstd2 = views.reshaped(_dense(rec, rstd), (rows, 1))
    gx = gw = gb = None
    if need[0]:
        gx = rec.new(x.shape, D.float32)
        if rows and cols:
            params = tuple(_packed(rec, h) if h is not None else None for h in (weight,))
            launches = _row_launches([g2, x2, mean2, rstd2, _as_rows(gx, rows, cols)], params, big)
            if launches is None:  # the weight and bias gradients sum over every row: the blocks' parts add
                return block_split.in_blocks(
                    rec, lambda g, x, m, r, w: layer_norm_backward(rec, g, x, m, r, w, n, need), ins, outs, axes,
                    "layer_norm_backward", "row", _ROW_HINT)
            for (bg, bx, bm, br, bgx), (w,), binds in launches:
                wg, rt, groups = _launch(bg.shape[0], cols, rec.rt.cpu_adapter, rec.limits)
                words = struct.pack("<12I", bg.shape[0], cols, weight is not None, 0, bg.offset, bx.offset, w.offset,
                                    0, bm.offset, br.offset, bgx.offset, 0)
                _record(rec, "layernorm_backward", _source(rec, "layernorm_backward", WG=f"{wg}u", RT=f"{rt}u"),
                        words, groups, [bg, bx, bm, br, w], [bgx], binds and [*binds[0][:4], *binds[1], binds[0][4]])
        if x.dtype is not D.float32:
            gx = cast(rec, gx, x.dtype)
    if need[1] and weight is not None:
        xhat = elementwise(rec, "mul", [elementwise(rec, "sub", [x2, mean2], D.float32), rstd2], D.float32)
        gw = reduce_kernels.reduce(rec, "sum", elementwise(rec, "mul", [g2, xhat], D.float32),
                                   (0,), False, weight.dtype)
        gw = views.reshaped(gw, wshape)
    if need[2]:
        gb = views.reshaped(reduce_kernels.reduce(rec, "sum", g2, (0,), False, x.dtype), wshape)
    return gx, gw, gb


def batch_norm(rec, x, weight, bias, running_mean, running_var, momentum, eps):
    c = x.shape[1]
    ins = [(x, (1,)), (weight, (0,)), (bias, (0,)), (running_mean, (0,)), (running_var, (0,))]
    dt = x.dtype
    outs = [Out(x.shape, dt, (1,)), Out((c,), dt, (0,)), Out((c,), dt, (0,))]
    if block_split.needed(ins, outs, rec.limits):
        return _batch_norm_in_passes(rec, x, weight, bias, running_mean, running_var, momentum, eps)
    x3, (n, s) = _channel_geometry(rec, _f32(rec, x))
    y = rec.new(x.shape, D.float32)
    mean, rstd = rec.new((c,), D.float32), rec.new((c,), D.float32)
    w, ws = _channel_param(rec, weight, x3)
    b, bs = _channel_param(rec, bias, x3)
    running = []  # (the float32 view the kernel updates, the caller's handle when that is a copy)
    for r in (running_mean, running_var):
        if r is None:
            running.append((rec.new((1,), D.float32), None))  # bound, never written
        else:
            running.append((r, None) if r.dtype is D.float32 else (cast(rec, r, D.float32), r))
    (rm, _), (rv, _) = running
    flags = (weight is not None) | (bias is not None) << 1 | (running_mean is not None) << 2 | \
        (running_var is not None) << 3
    params = struct.pack("<16I", c, n, s, flags, x3.offset, *x3.strides, w.offset, ws, b.offset, bs,
                         rm.offset, _stride0(rm), rv.offset, _stride0(rv)) + struct.pack("<2f", eps, momentum) \
        + b"\0" * 8
    bufs = [x3.st.buf, w.st.buf, b.st.buf, y.st.buf, mean.st.buf, rstd.st.buf, rm.st.buf, rv.st.buf]
    rec.record_kernel("batchnorm_forward", _source(rec, "batchnorm_forward"), params, grid(c, rec.limits), bufs,
                      bufs[:3] + bufs[6:], bufs[3:])
    for view, caller in running:
        if caller is not None:
            copy_(rec, caller, view)
    if dt is not D.float32:
        return cast(rec, y, dt), cast(rec, mean, dt), cast(rec, rstd, dt)
    return y, mean, rstd


def batch_norm_backward(rec, g, x, mean, rstd, weight, need):
    c = x.shape[1]
    ins = [(g, (1,)), (x, (1,)), (mean, (0,)), (rstd, (0,)), (weight, (0,))]
    dt = x.dtype
    outs = [Out(x.shape, dt, (1,)), Out((c,), dt, (0,)), Out((c,), dt, (0,))]
    if block_split.needed(ins, outs, rec.limits):
        return _batch_norm_backward_in_passes(rec, g, x, mean, rstd, weight, need)
    x3, (n, s) = _channel_geometry(rec, _f32(rec, x))
    g3, _ = _channel_geometry(rec, _f32(rec, g))
    mean, rstd = _dense(rec, mean), _dense(rec, rstd)
    w, ws = _channel_param(rec, weight, x3)
    gx = rec.new(x.shape, D.float32) if need[0] else rec.new((1,), D.float32)
    gw, gb = rec.new((c,), D.float32), rec.new((c,), D.float32)
    params = struct.pack("<16I", c, n, s, (weight is not None) | bool(need[0]) << 1, g3.offset, *g3.strides,
                         x3.offset, *x3.strides, w.offset, ws, 0, 0)
    bufs = [g3.st.buf, x3.st.buf, mean.st.buf, rstd.st.buf, w.st.buf, gx.st.buf, gw.st.buf, gb.st.buf]
    rec.record_kernel("batchnorm_backward", _source(rec, "batchnorm_backward"), params, grid(c, rec.limits), bufs,
                      bufs[:5], bufs[5:])
    gx = (gx if x.dtype is D.float32 else cast(rec, gx, x.dtype)) if need[0] else None
    gw = (gw if weight.dtype is D.float32 else cast(rec, gw, weight.dtype)) if need[1] and weight is not None \
        else None
    gb = (gb if x.dtype is D.float32 else cast(rec, gb, x.dtype)) if need[2] else None
    return gx, gw, gb


# ---- batch_norm past one binding: windowed elementwise passes and reductions ----------------------------------
# A channel's elements lie across the whole (N, C, S) tensor, so no block of channels fits a window; the
# statistics are reductions over (N, S) and the rest elementwise passes, each of which binds windows
# (binding_windows.py): any size that fits one buffer runs, with no block copies and no submit between blocks.

def _per_channel(h, c):
    """A (C,) float32 view as (1, C, 1), to broadcast over (N, C, S)."""
    return View(h.st, (1, c, 1), (0, _stride0(h), 0), h.offset)


def _batch_norm_in_passes(rec, x, weight, bias, running_mean, running_var, momentum, eps):
    f = D.float32
    x3, (n, s) = _channel_geometry(rec, _f32(rec, x))
    c, shape = x3.shape[1], x3.shape
    mean = reduce_kernels.reduce(rec, "mean", x3, (0, 2), True, f)
    d = rec.ew("sub", [x3, mean], f, f, shape)
    var = reduce_kernels.reduce(rec, "mean", rec.ew("square", [d], f, f, shape), (0, 2), True, f)
    rstd = rec.ew("rsqrt", [rec.ew("add", [var, eps], f, f, var.shape)], f, f, var.shape)
    scale = rstd if weight is None else rec.ew("mul", [rstd, _per_channel(_f32(rec, weight), c)], f, f, var.shape)
    y = rec.ew("mul", [d, scale], f, f, shape)
    if bias is not None:
        y = rec.ew("add", [y, _per_channel(_f32(rec, bias), c)], f, f, shape)
    flat = (c,)
    for r, stat in ((running_mean, mean), (running_var, var)):
        if r is None:
            continue
        if stat is var:  # the running variance is the unbiased one
            stat = rec.ew("mul", [stat, n * s / max(n * s - 1, 1)], f, f, stat.shape)
        new = rec.ew("add", [rec.ew("mul", [views.reshaped(stat, flat), momentum], f, f, flat),
                             rec.ew("mul", [_f32(rec, r), 1.0 - momentum], f, f, flat)], f, f, flat)
        copy_(rec, r, new)
    y, mean, rstd = views.reshaped(y, x.shape), views.reshaped(mean, flat), views.reshaped(rstd, flat)
    if x.dtype is not f:
        return cast(rec, y, x.dtype), cast(rec, mean, x.dtype), cast(rec, rstd, x.dtype)
    return y, mean, rstd


def _batch_norm_backward_in_passes(rec, g, x, mean, rstd, weight, need):
    f = D.float32
    x3, (n, s) = _channel_geometry(rec, _f32(rec, x))
    g3, _ = _channel_geometry(rec, _f32(rec, g))
    c, shape = x3.shape[1], x3.shape
    mean3, rstd3 = _per_channel(_f32(rec, mean), c), _per_channel(_f32(rec, rstd), c)
    xhat = rec.ew("mul", [rec.ew("sub", [x3, mean3], f, f, shape), rstd3], f, f, shape)
    sg = reduce_kernels.reduce(rec, "sum", g3, (0, 2), True, f)
    sgx = reduce_kernels.reduce(rec, "sum", rec.ew("mul", [g3, xhat], f, f, shape), (0, 2), True, f)
    gx = gw = gb = None
    if need[0]:
        coef = rstd3 if weight is None else rec.ew("mul", [rstd3, _per_channel(_f32(rec, weight), c)], f, f,
                                                   sg.shape)
        m = n * s
        t = rec.ew("sub", [g3, rec.ew("mul", [xhat, rec.ew("div", [sgx, m], f, f, sg.shape)], f, f, shape)], f, f,
                   shape)
        t = rec.ew("sub", [t, rec.ew("div", [sg, m], f, f, sg.shape)], f, f, shape)
        gx = views.reshaped(rec.ew("mul", [t, coef], f, f, shape), x.shape)
        gx = gx if x.dtype is f else cast(rec, gx, x.dtype)
    if need[1] and weight is not None:
        gw = views.reshaped(sgx, (c,))
        gw = gw if weight.dtype is f else cast(rec, gw, weight.dtype)
    if need[2]:
        gb = views.reshaped(sg, (c,))
        gb = gb if x.dtype is f else cast(rec, gb, x.dtype)
    return gx, gw, gb


def _channel_geometry(rec, h):
    """h (N, C, *) as an (N, C, S) view (a contiguous copy when the spatial dims do not flatten), (N, S)."""
    n, c = h.shape[0], h.shape[1]
    s = h.numel // (n * c) if n * c else 0
    v = views.reshaped(h, (n, c, s))
    if v is None:
        v = views.reshaped(contiguous(rec, h), (n, c, s))
    return v, (n, s)


def _norm_rows(rec, h, n):
    """h as a float32 (rows, cols) view with contiguous rows (copied when it has to be), rows, cols."""
    cols = 1
    for s in h.shape[len(h.shape) - n:]:
        cols *= s
    rows = h.numel // cols if cols else 0
    h = _f32(rec, h)
    v = views.reshaped(h, (rows, cols)) if cols else None
    if v is None or (rows > 1 and v.strides[0] != cols) or (cols > 1 and v.strides[1] != 1):
        v = View(contiguous(rec, h).st, (rows, cols), contiguous_strides((rows, cols)), 0)
    return v, rows, cols
