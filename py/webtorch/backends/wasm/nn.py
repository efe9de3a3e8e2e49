"""The fused nn primitives of backends/base.py on the wasm backend: softmax / log_softmax (+ backward), layer norm
(+ backward), training batch norm (+ backward) -- kernels of wasm-kernels/nn_norm.c, float32 or float64 (float16 and
bfloat16 through float32, rounded once at the end, as the NumPy backend)."""
from ..._geometry import numel
from .operands import SUFFIX, Written, address, dense, float_instance, lines, optional, result


def softmax(ctx, h, dim, log, dtype):
    ct = float_instance(dtype)
    x = dense(ctx, h, ct)
    out = ctx.new(h.shape, ct)
    outer, L, inner = lines(h.shape, dim)
    if out.numel:
        ctx.call("softmax_" + SUFFIX[ct], x.addr, out.addr, outer, L, inner, int(log))
    return result(ctx, out, dtype)


def softmax_backward(ctx, g, y, dim, log, dtype):
    ct = float_instance(dtype)
    gc, yc = dense(ctx, g, ct), dense(ctx, y, ct)
    out = ctx.new(y.shape, ct)
    outer, L, inner = lines(y.shape, dim)
    if out.numel:
        ctx.call("softmax_backward_" + SUFFIX[ct], gc.addr, yc.addr, out.addr, outer, L, inner, int(log))
    return result(ctx, out, dtype)


def layer_norm(ctx, x, weight, bias, n, eps):
    ct = float_instance(x.dtype)
    lead = x.shape[:len(x.shape) - n]
    rows, cols = numel(lead), numel(x.shape[len(x.shape) - n:])
    xc = dense(ctx, x, ct)
    w, b = optional(ctx, weight, ct), optional(ctx, bias, ct)
    y = ctx.new(x.shape, ct)
    stat = lead + (1,) * n
    mean, rstd = ctx.new(stat, ct), ctx.new(stat, ct)
    ctx.call("layer_norm_" + SUFFIX[ct], xc.addr, address(w), address(b), y.addr, mean.addr, rstd.addr, rows, cols,
             float(eps))
    return result(ctx, y, x.dtype), result(ctx, mean, x.dtype), result(ctx, rstd, x.dtype)


def layer_norm_backward(ctx, g, x, mean, rstd, weight, n, need):
    ct = float_instance(x.dtype)
    wshape = x.shape[len(x.shape) - n:]
    rows, cols = numel(x.shape[:len(x.shape) - n]), numel(wshape)
    gc, xc, mc, rc = (dense(ctx, a, ct) for a in (g, x, mean, rstd))
    w = optional(ctx, weight, ct)
    gx = ctx.new(x.shape, ct) if need[0] else None
    gw = ctx.new(wshape, ct) if need[1] and weight is not None else None
    gb = ctx.new(wshape, ct) if need[2] else None
    scratch = ctx.new((cols,), ct)
    ctx.call("layer_norm_backward_" + SUFFIX[ct], gc.addr, xc.addr, mc.addr, rc.addr, address(w),
             *(address(v) for v in (gx, gw, gb)), scratch.addr, rows, cols)
    return (None if gx is None else result(ctx, gx, x.dtype),
            None if gw is None else result(ctx, gw, weight.dtype),
            None if gb is None else result(ctx, gb, x.dtype))


def batch_norm(ctx, x, weight, bias, running_mean, running_var, momentum, eps):
    ct = float_instance(x.dtype)
    N, C = x.shape[:2]
    xc = dense(ctx, x, ct)
    w, b = optional(ctx, weight, ct), optional(ctx, bias, ct)
    run = [None if r is None else Written(ctx, r, ct) for r in (running_mean, running_var)]
    y, mean, rstd = ctx.new(x.shape, ct), ctx.new((C,), ct), ctx.new((C,), ct)
    ctx.call("batch_norm_" + SUFFIX[ct], xc.addr, address(w), address(b),
             *(address(None if r is None else r.view) for r in run), y.addr, mean.addr, rstd.addr, N, C,
             numel(x.shape[2:]), float(momentum), float(eps))
    for r in run:
        if r is not None:
            r.done(ctx)
    return result(ctx, y, x.dtype), result(ctx, mean, x.dtype), result(ctx, rstd, x.dtype)


def batch_norm_backward(ctx, g, x, mean, rstd, weight, need):
    ct = float_instance(x.dtype)
    N, C = x.shape[:2]
    gc, xc, mc, rc = (dense(ctx, a, ct) for a in (g, x, mean, rstd))
    w = optional(ctx, weight, ct)
    gx = ctx.new(x.shape, ct) if need[0] else None
    gw = ctx.new((C,), ct) if need[1] and weight is not None else None
    gb = ctx.new((C,), ct) if need[2] else None
    ctx.call("batch_norm_backward_" + SUFFIX[ct], gc.addr, xc.addr, mc.addr, rc.addr, address(w),
             *(address(v) for v in (gx, gw, gb)), N, C, numel(x.shape[2:]))
    return (None if gx is None else result(ctx, gx, x.dtype),
            None if gw is None else result(ctx, gw, weight.dtype),
            None if gb is None else result(ctx, gb, x.dtype))
