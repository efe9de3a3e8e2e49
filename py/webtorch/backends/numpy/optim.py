"""NumPy implementations of the fused optimizer updates of backends/contract.py (sgd_update, adam_update, ...).

Plain functions NumpyBackend is built from (backends/base.py).
Each update runs per parameter with in-place ufuncs (``out=``) into at
most three scratch buffers reused across parameters and steps, so a step allocates nothing proportional to the model.
The order of operations and the rounding of Python scalars to the parameter dtype follow PyTorch's CPU
kernels (lerp, addcmul, addcdiv), which keeps 50-step trajectories within float32 round-off of PyTorch's.
"""
import numpy as np

_scratch = {}  # (slot, dtype) -> a flat buffer; the one NumpyBackend's, shared by every update


def _tmp(slot, like):
    """A scratch array shaped like ``like`` (contents undefined), one per (slot, dtype), grown on demand."""
    key = (slot, like.dtype)
    buf = _scratch.get(key)
    if buf is None or buf.size < like.size:
        buf = _scratch[key] = np.empty(max(like.size, 1), like.dtype)
    return buf[:like.size].reshape(like.shape)


def _grad(g, p, weight_decay, maximize, lr=0.0, decoupled=False):
    """The gradient the update uses: -g when maximizing, plus weight_decay * p (scratch slot 0); with
    ``decoupled`` (AdamW-style) p is shrunk in place by lr * weight_decay instead."""
    if decoupled and weight_decay != 0:
        p *= p.dtype.type(1 - lr * weight_decay)
        weight_decay = 0
    if weight_decay == 0 and not maximize:
        return g
    out = _tmp(0, p)
    if weight_decay != 0:
        np.multiply(p, p.dtype.type(weight_decay), out=out)
        (np.subtract if maximize else np.add)(out, g, out=out)
    else:
        np.negative(g, out=out)
    return out


def _lerp_(a, end, weight):
    """a.lerp_(end, weight) with PyTorch's two-sided formula (scratch slot 1)."""
    c = a.dtype.type
    t = np.subtract(end, a, out=_tmp(1, a))
    if abs(weight) < 0.5:
        t *= c(weight)
        a += t
    else:
        t *= c(1) - c(weight)
        np.subtract(end, t, out=a)


def _addcmul_(a, t1, t2, value):
    """a += value * t1 * t2, multiplied left to right as PyTorch's addcmul kernel (scratch slot 1)."""
    t = np.multiply(t1, a.dtype.type(value), out=_tmp(1, a))
    t *= t2
    a += t


def _adam_moments(m, v, g, beta1, beta2):
    """Adam's running moments: m.lerp_(g, 1 - beta1), v = beta2 * v + (1 - beta2) * g * g."""
    _lerp_(m, g, 1 - beta1)
    v *= v.dtype.type(beta2)
    _addcmul_(v, g, g, 1 - beta2)


def _addcdiv_(a, t1, t2, value):
    """a += value * t1 / t2, in PyTorch's addcdiv kernel order (scratch slot 2)."""
    t = np.multiply(t1, a.dtype.type(value), out=_tmp(2, a))
    t /= t2
    a += t

# ---- the primitives ---------------------------------------------------------------------------------
def sgd_update(params, grads, momentum_bufs, hp):
    bufs = list(momentum_bufs) if hp.momentum != 0 else None
    for i, p in enumerate(params):
        c = p.dtype.type
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize)
        if hp.momentum != 0:
            buf = bufs[i]
            if buf is None:
                buf = bufs[i] = np.array(g, copy=True)
            else:
                buf *= c(hp.momentum)
                t = np.multiply(g, c(1 - hp.dampening), out=_tmp(1, p))
                buf += t
            if hp.nesterov:
                t = np.multiply(buf, c(hp.momentum), out=_tmp(1, p))
                g = np.add(g, t, out=t)
            else:
                g = buf
        t = np.multiply(g, c(-hp.lr), out=_tmp(2, p))
        p += t
    return bufs


def adam_update(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, hp):
    for i, p in enumerate(params):
        c = p.dtype.type
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize, hp.lr, hp.decoupled)
        m, v = exp_avgs[i], exp_avg_sqs[i]
        _adam_moments(m, v, g, hp.beta1, hp.beta2)
        if hp.amsgrad:
            np.maximum(max_exp_avg_sqs[i], v, out=max_exp_avg_sqs[i])
            v = max_exp_avg_sqs[i]
        denom = np.sqrt(v, out=_tmp(1, p))
        step = steps[i]
        if isinstance(step, np.ndarray):  # capturable: count the step tensor, PyTorch's float32 order from it
            f = step.dtype.type
            np.add(step, f(1), out=step)
            nss = -(f(hp.lr) / (f(1) - f(hp.beta1) ** step))
            denom /= (np.sqrt(f(1) - f(hp.beta2) ** step) * nss).astype(p.dtype)
            denom += (f(hp.eps) / nss).astype(p.dtype)
            _addcdiv_(p, m, denom, 1)
        else:
            denom /= c((1 - hp.beta2 ** step) ** 0.5)
            denom += c(hp.eps)
            _addcdiv_(p, m, denom, -hp.lr / (1 - hp.beta1 ** step))


def rmsprop_update(params, grads, square_avgs, grad_avgs, momentum_bufs, hp):
    for i, p in enumerate(params):
        c = p.dtype.type
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize)
        v = square_avgs[i]
        v *= c(hp.alpha)
        _addcmul_(v, g, g, 1 - hp.alpha)
        avg = _tmp(3, p)
        if hp.centered:
            ga = grad_avgs[i]
            _lerp_(ga, g, 1 - hp.alpha)
            np.multiply(ga, c(-1), out=avg)
            avg *= ga
            avg += v
            np.sqrt(avg, out=avg)
        else:
            np.sqrt(v, out=avg)
        avg += c(hp.eps)
        if hp.momentum > 0:
            buf = momentum_bufs[i]
            buf *= c(hp.momentum)
            _addcdiv_(buf, g, avg, 1)
            t = np.multiply(buf, c(-hp.lr), out=_tmp(1, p))
            p += t
        else:
            _addcdiv_(p, g, avg, -hp.lr)


def adagrad_update(params, grads, state_sums, steps, hp):
    for i, p in enumerate(params):
        c = p.dtype.type
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize)
        clr = hp.lr / (1 + (steps[i] - 1) * hp.lr_decay)
        s = state_sums[i]
        _addcmul_(s, g, g, 1)
        std = np.sqrt(s, out=_tmp(3, p))
        std += c(hp.eps)
        _addcdiv_(p, g, std, -clr)


def adadelta_update(params, grads, square_avgs, acc_deltas, hp):
    for i, p in enumerate(params):
        c = p.dtype.type
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize)
        sq, acc = square_avgs[i], acc_deltas[i]
        sq *= c(hp.rho)
        _addcmul_(sq, g, g, 1 - hp.rho)
        std = np.add(sq, c(hp.eps), out=_tmp(2, p))
        np.sqrt(std, out=std)
        delta = np.add(acc, c(hp.eps), out=_tmp(3, p))
        np.sqrt(delta, out=delta)
        delta /= std
        delta *= g
        acc *= c(hp.rho)
        _addcmul_(acc, delta, delta, 1 - hp.rho)
        delta *= c(-hp.lr)
        p += delta


def adamax_update(params, grads, exp_avgs, exp_infs, steps, hp):
    for i, p in enumerate(params):
        c = p.dtype.type
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize)
        m, u = exp_avgs[i], exp_infs[i]
        _lerp_(m, g, 1 - hp.beta1)
        u *= c(hp.beta2)
        t = np.abs(g, out=_tmp(3, p))
        t += c(hp.eps)
        np.maximum(u, t, out=u)
        _addcdiv_(p, m, u, -hp.lr / (1 - hp.beta1 ** steps[i]))


def nadam_update(params, grads, exp_avgs, exp_avg_sqs, steps, mu_products, hp):
    for i, p in enumerate(params):
        c = p.dtype.type
        step = steps[i]
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize, hp.lr, hp.decoupled)
        mu = hp.beta1 * (1.0 - 0.5 * 0.96 ** (step * hp.momentum_decay))
        mu_next = hp.beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * hp.momentum_decay))
        m, v = exp_avgs[i], exp_avg_sqs[i]
        _adam_moments(m, v, g, hp.beta1, hp.beta2)
        denom = np.divide(v, c(1 - hp.beta2 ** step), out=_tmp(3, p))
        np.sqrt(denom, out=denom)
        denom += c(hp.eps)
        mu_product = mu_products[i]
        _addcdiv_(p, g, denom, -hp.lr * (1.0 - mu) / (1.0 - mu_product))
        _addcdiv_(p, m, denom, -hp.lr * mu_next / (1.0 - mu_product * mu_next))


def radam_update(params, grads, exp_avgs, exp_avg_sqs, steps, hp):
    rho_inf = 2 / (1 - hp.beta2) - 1
    for i, p in enumerate(params):
        c = p.dtype.type
        step = steps[i]
        g = _grad(grads[i], p, hp.weight_decay, hp.maximize, hp.lr, hp.decoupled)
        m, v = exp_avgs[i], exp_avg_sqs[i]
        _adam_moments(m, v, g, hp.beta1, hp.beta2)
        bias_correction2 = 1 - hp.beta2 ** step
        update = np.divide(m, c(1 - hp.beta1 ** step), out=_tmp(2, p))
        update *= c(hp.lr)
        rho_t = rho_inf - 2 * step * hp.beta2 ** step / bias_correction2
        if rho_t > 5.0:
            adaptive = np.sqrt(v, out=_tmp(3, p))
            adaptive += c(hp.eps)
            np.divide(c(bias_correction2 ** 0.5), adaptive, out=adaptive)
            update *= adaptive
            update *= c(((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5)
        p -= update
