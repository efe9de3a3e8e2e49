"""Convolution on the wasm backend: conv, conv_backward_input, conv_backward_weight (im2col + the module's GEMM per
sample and group, wasm-kernels/conv.c) and im2col / col2im (F.unfold / F.fold); float32 or float64 (float16 and
bfloat16 through float32). conv and conv_backward_input split their samples across the page's worker threads
(threads.py); conv_backward_weight sums over the samples, so it stays on one thread (the same sums in the same order).

The kernels are written for 3 spatial dims: ``spatial_geometry`` pads a 1-d or 2-d op's geometry with leading
sizes 1 (kernel 1, stride 1, padding 0, dilation 1).
"""
from ..._geometry import numel
from ..window_geometry import out_size
from . import threads
from .operands import SUFFIX, address, dense, float_instance, optional, result


def spatial_geometry(size, kernel, stride, padding, dilation, out):
    """The 18 ints of a kernel's spatial geometry: input size, kernel, stride, padding, dilation, output size, each
    as 3 dims (leading ones filled in)."""
    lead = 3 - len(size)
    words = []
    for vals, fill in ((size, 1), (kernel, 1), (stride, 1), (padding, 0), (dilation, 1), (out, 1)):
        words.extend((fill,) * lead + tuple(vals))
    return words


def _out(size, kernel, stride, padding, dilation):
    return tuple(out_size(s, k, st, p, d) for s, k, st, p, d in zip(size, kernel, stride, padding, dilation))


def conv(ctx, x, w, bias, stride, padding, dilation, groups):
    ct = float_instance(x.dtype)
    N, cin = x.shape[:2]
    cout, kernel = w.shape[0], tuple(w.shape[2:])
    out = _out(x.shape[2:], kernel, stride, padding, dilation)
    xc, wc = dense(ctx, x, ct), dense(ctx, w, ct)
    bc = optional(ctx, bias, ct)
    y = ctx.new((N, cout) + out, ct)
    es, kvol, P = ct.itemsize, numel(kernel), numel(out)
    threads.by_samples(ctx, "conv_" + SUFFIX[ct], N, N * cout * cin // groups * kvol * P,
                       [(xc.addr, cin * numel(x.shape[2:]) * es), (wc.addr, 0), (address(bc), 0),
                        (y.addr, cout * P * es)], lambda: ctx.new((cin * kvol * P,), ct),
                       (cin, cout, groups, *spatial_geometry(x.shape[2:], kernel, stride, padding, dilation, out)))
    return result(ctx, y, x.dtype)


def conv_backward_input(ctx, g, w, input_shape, stride, padding, dilation, groups):
    ct = float_instance(g.dtype)
    N, cout = g.shape[:2]
    cin, kernel, out = input_shape[1], tuple(w.shape[2:]), tuple(g.shape[2:])
    gc, wc = dense(ctx, g, ct), dense(ctx, w, ct)
    dx = ctx.new(tuple(input_shape), ct)
    es, kvol, P = ct.itemsize, numel(kernel), numel(out)
    threads.by_samples(ctx, "conv_backward_input_" + SUFFIX[ct], N, N * cin * kvol * P * cout // groups,
                       [(gc.addr, cout * P * es), (wc.addr, 0), (dx.addr, cin * numel(input_shape[2:]) * es)],
                       lambda: ctx.new((cin * kvol * P,), ct),
                       (cin, cout, groups, *spatial_geometry(input_shape[2:], kernel, stride, padding, dilation, out)))
    return result(ctx, dx, g.dtype)


def conv_backward_weight(ctx, g, x, weight_shape, stride, padding, dilation, groups):
    ct = float_instance(x.dtype)
    N, cout = g.shape[:2]
    cin, kernel, out = x.shape[1], tuple(weight_shape[2:]), tuple(g.shape[2:])
    gc, xc = dense(ctx, g, ct), dense(ctx, x, ct)
    gw = ctx.new(tuple(weight_shape), ct)
    cols = ctx.new((cin * numel(kernel) * numel(out),), ct)
    ctx.call("conv_backward_weight_" + SUFFIX[ct], gc.addr, xc.addr, gw.addr, cols.addr, N, cin, cout, groups,
             *spatial_geometry(x.shape[2:], kernel, stride, padding, dilation, out))
    return result(ctx, gw, x.dtype)


def im2col(ctx, x, kernel, stride, padding, dilation):
    ct = float_instance(x.dtype)
    N, C = x.shape[:2]
    out = _out(x.shape[2:], kernel, stride, padding, dilation)
    xc = dense(ctx, x, ct)
    cols = ctx.new((N, C * numel(kernel), numel(out)), ct)
    ctx.call("im2col_" + SUFFIX[ct], xc.addr, cols.addr, N, C,
             *spatial_geometry(x.shape[2:], kernel, stride, padding, dilation, out))
    return result(ctx, cols, x.dtype)


def col2im(ctx, cols, size, kernel, stride, padding, dilation):
    ct = float_instance(cols.dtype)
    N = cols.shape[0]
    C = cols.shape[1] // numel(kernel)
    out = _out(size, kernel, stride, padding, dilation)
    cc = dense(ctx, cols, ct)
    x = ctx.new((N, C) + tuple(size), ct)
    ctx.call("col2im_" + SUFFIX[ct], cc.addr, x.addr, N, C, *spatial_geometry(size, kernel, stride, padding,
                                                                               dilation, out))
    return result(ctx, x, cols.dtype)
