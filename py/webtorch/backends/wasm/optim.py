"""The fused optimizer updates of backends/base.py on the wasm backend (sgd_update, adam_update, ...): one kernel
call per parameter (wasm-kernels/optim.c) for float32, float64 and float16 parameters (bfloat16 through float32).

Python computes each step's scalars in double exactly as backends/numpy/optim.py does (bias corrections, the lr
factors); the kernel rounds each to the parameter dtype once and every operation's result to it (float16: after
each operation, as half arithmetic does), so results equal the NumPy backend's bit for bit. A capturable Adam's
step lives in a 0-dim float32 handle: it is counted here and the bias corrections follow PyTorch's float32 order.
"""
import math
import struct

from ... import _dtype as D
from .operands import SUFFIX, Written, dense, float_instance
from .views import View


def _instance(dt):
    """The kernel instance updating parameters of dtype dt (float16 has its own: rounding after each operation)."""
    return dt if dt is D.float16 else float_instance(dt)


def _f32(x):
    """x rounded to float32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _fields(hp):
    """The hyper-parameter record's values in its field order (backends/contract.py)."""
    return tuple(getattr(hp, f) for f in hp.__slots__)


def _each(ctx, params, grads, states):
    """Per parameter: (its float instance, [Written of the param and each state list's entry], the dense grad)."""
    for i, p in enumerate(params):
        ct = _instance(p.dtype)
        written = [Written(ctx, p, ct)] + [None if s[i] is None else Written(ctx, s[i], ct) for s in states]
        yield i, ct, written, dense(ctx, grads[i], ct)


def _addr(w):
    return 0 if w is None else w.view.addr


def _finish(ctx, written):
    for w in written:
        if w is not None:
            w.done(ctx)


def _decay(lr, weight_decay, decoupled):
    """(the AdamW shrink factor of the parameter, the weight decay added to the gradient)."""
    if decoupled and weight_decay != 0:
        return 1 - lr * weight_decay, 0.0
    return 1.0, float(weight_decay)


def sgd_update(ctx, params, grads, momentum_bufs, hp):
    lr, momentum, dampening, weight_decay, nesterov, maximize = _fields(hp)
    bufs = list(momentum_bufs) if momentum != 0 else None
    for i, p in enumerate(params):
        ct = _instance(p.dtype)
        first = momentum != 0 and bufs[i] is None
        if first:
            bufs[i] = ctx.new(p.shape, p.dtype)
        pw = Written(ctx, p, ct)
        bw = Written(ctx, bufs[i], ct) if momentum != 0 else None
        g = dense(ctx, grads[i], ct)
        ctx.call("sgd_update_" + SUFFIX[ct], pw.view.addr, g.addr, _addr(bw), p.numel, -lr, float(momentum),
                 1 - dampening, float(weight_decay), int(nesterov), int(maximize), int(first))
        _finish(ctx, (pw, bw))
    return bufs


def _capturable_scalars(ctx, step, lr, beta1, beta2, eps):
    """Count the 0-dim float32 step handle and return (denominator divisor, denominator addend) in PyTorch's
    capturable float32 order: step += 1; nss = -(lr / (1 - beta1 ** step)); sqrt(1 - beta2 ** step) * nss and
    eps / nss, each operation rounded to float32."""
    s = _f32(struct.unpack("<f", ctx.rt.read(step.addr, 4))[0] + 1)
    ctx.rt.write(step.addr, struct.pack("<f", s))
    nss = -_f32(_f32(lr) / _f32(1 - _f32(_f32(beta1) ** s)))
    div = _f32(_f32(math.sqrt(_f32(1 - _f32(_f32(beta2) ** s)))) * nss)
    return div, _f32(_f32(eps) / nss)


def adam_update(ctx, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, hp):
    lr, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled = _fields(hp)
    shrink, wd = _decay(lr, weight_decay, decoupled)
    states = (exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else [None] * len(params))
    for i, ct, w, g in _each(ctx, params, grads, states):
        step = steps[i]
        if isinstance(step, View):
            div, add = _capturable_scalars(ctx, step, lr, beta1, beta2, eps)
            size = 1.0
        else:
            div, add, size = (1 - beta2 ** step) ** 0.5, eps, -lr / (1 - beta1 ** step)
        ctx.call("adam_update_" + SUFFIX[ct], _addr(w[0]), g.addr, *(_addr(x) for x in w[1:]),
                 params[i].numel, shrink, wd, int(maximize), 1 - beta1, float(beta2), 1 - beta2, int(amsgrad),
                 float(div), float(add), float(size))
        _finish(ctx, w)


def rmsprop_update(ctx, params, grads, square_avgs, grad_avgs, momentum_bufs, hp):
    lr, alpha, eps, weight_decay, momentum, centered, maximize = _fields(hp)
    n = len(params)
    states = (square_avgs, grad_avgs if centered else [None] * n, momentum_bufs if momentum > 0 else [None] * n)
    for i, ct, w, g in _each(ctx, params, grads, states):
        ctx.call("rmsprop_update_" + SUFFIX[ct], _addr(w[0]), g.addr, *(_addr(x) for x in w[1:]), params[i].numel,
                 -lr, float(alpha), 1 - alpha, float(eps), float(weight_decay), float(momentum), int(centered),
                 int(maximize))
        _finish(ctx, w)


def adagrad_update(ctx, params, grads, state_sums, steps, hp):
    lr, lr_decay, weight_decay, eps, maximize = _fields(hp)
    for i, ct, w, g in _each(ctx, params, grads, (state_sums,)):
        clr = lr / (1 + (steps[i] - 1) * lr_decay)
        ctx.call("adagrad_update_" + SUFFIX[ct], _addr(w[0]), g.addr, _addr(w[1]), params[i].numel, -clr,
                 float(weight_decay), float(eps), int(maximize))
        _finish(ctx, w)


def adadelta_update(ctx, params, grads, square_avgs, acc_deltas, hp):
    lr, rho, eps, weight_decay, maximize = _fields(hp)
    for i, ct, w, g in _each(ctx, params, grads, (square_avgs, acc_deltas)):
        ctx.call("adadelta_update_" + SUFFIX[ct], _addr(w[0]), g.addr, _addr(w[1]), _addr(w[2]), params[i].numel,
                 -lr, float(rho), 1 - rho, float(eps), float(weight_decay), int(maximize))
        _finish(ctx, w)


def adamax_update(ctx, params, grads, exp_avgs, exp_infs, steps, hp):
    lr, beta1, beta2, eps, weight_decay, maximize = _fields(hp)
    for i, ct, w, g in _each(ctx, params, grads, (exp_avgs, exp_infs)):
        ctx.call("adamax_update_" + SUFFIX[ct], _addr(w[0]), g.addr, _addr(w[1]), _addr(w[2]), params[i].numel,
                 1 - beta1, float(beta2), float(eps), float(weight_decay), -lr / (1 - beta1 ** steps[i]),
                 int(maximize))
        _finish(ctx, w)


def nadam_update(ctx, params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, hp):
    lr, beta1, beta2, eps, weight_decay, momentum_decay, decoupled, maximize = _fields(hp)
    shrink, wd = _decay(lr, weight_decay, decoupled)
    for i, ct, w, g in _each(ctx, params, grads, (exp_avgs, exp_avg_sqs)):
        step, mu_product = steps[i], mu_products[i]
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        ctx.call("nadam_update_" + SUFFIX[ct], _addr(w[0]), g.addr, _addr(w[1]), _addr(w[2]), params[i].numel,
                 shrink, wd, int(maximize), 1 - beta1, float(beta2), 1 - beta2, 1 - beta2 ** step, float(eps),
                 -lr * (1.0 - mu) / (1.0 - mu_product), -lr * mu_next / (1.0 - mu_product * mu_next))
        _finish(ctx, w)


def radam_update(ctx, params, grads, exp_avgs, exp_avg_sqs, steps, hp):
    lr, beta1, beta2, eps, weight_decay, decoupled, maximize = _fields(hp)
    shrink, wd = _decay(lr, weight_decay, decoupled)
    rho_inf = 2 / (1 - beta2) - 1
    for i, ct, w, g in _each(ctx, params, grads, (exp_avgs, exp_avg_sqs)):
        step = steps[i]
        bias_correction2 = 1 - beta2 ** step
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        rect = 0.0
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        ctx.call("radam_update_" + SUFFIX[ct], _addr(w[0]), g.addr, _addr(w[1]), _addr(w[2]), params[i].numel,
                 shrink, wd, int(maximize), 1 - beta1, float(beta2), 1 - beta2, 1 - beta1 ** step, float(lr),
                 float(eps), bias_correction2 ** 0.5, rect)
        _finish(ctx, w)
