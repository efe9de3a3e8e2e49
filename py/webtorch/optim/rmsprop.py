"""RMSprop (Hinton), optionally centered and with momentum."""
from ..ops.creation import zeros_like
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_options, _check_singleton_lists,
                        _decayed_grad, _get_value)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """Implements RMSprop: ``v = alpha * v + (1 - alpha) * g^2``, ``p -= lr * g / (sqrt(v) + eps)``
    (centered: v minus the squared running mean of g; momentum: a buffer of those steps).

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-2).
        alpha (float, optional): smoothing constant (default: 0.99).
        eps (float, optional): added to the denominator (default: 1e-8).
        weight_decay (float, optional): L2 penalty (default: 0).
        momentum (float, optional): momentum factor (default: 0).
        centered (bool, optional): normalize by an estimate of the gradient's variance (default: False).
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
    """

    _setstate_defaults = {"momentum": 0, "centered": False, "foreach": None, "maximize": False,
                          "differentiable": False, "capturable": False}
    _step_keys = ("step",)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check_options(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        state = {"step": self._step_tensor(group, p), "square_avg": zeros_like(p)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = zeros_like(p)
        return state

    def _state_keys(self, group):
        return ("square_avg", "grad_avg" if group["centered"] else None,
                "momentum_buffer" if group["momentum"] > 0 else None, "step")

    def _update(self, group, params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps):
        rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, lr=group["lr"],
                alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                momentum=group["momentum"], centered=group["centered"], foreach=group["foreach"],
                maximize=group["maximize"])


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, foreach=None,
            maximize=False, differentiable=False, capturable=False, has_complex=False, *, lr, alpha, eps,
            weight_decay, momentum, centered):
    """Functional RMSprop: updates ``params`` and the state lists in place. See :class:`RMSprop`."""
    _check_singleton_lists(state_steps=state_steps)
    func = _multi_tensor_rmsprop if use_fused(params, foreach, None) else _single_tensor_rmsprop
    func(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, lr=lr, alpha=alpha, eps=eps,
         weight_decay=weight_decay, momentum=momentum, centered=centered, maximize=maximize)


def _single_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr, alpha,
                           eps, weight_decay, momentum, centered, maximize):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        state_steps[i].add_(1)
        grad = _decayed_grad(param, grads[i], maximize, weight_decay)
        square_avg = square_avgs[i]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


def _multi_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr, alpha,
                          eps, weight_decay, momentum, centered, maximize):
    _bump_steps(state_steps)
    fused_update("rmsprop_update", params, grads, square_avgs, grad_avgs if centered else None,
                 momentum_buffer_list if momentum > 0 else None, lr=_get_value(lr), alpha=alpha, eps=eps,
                 weight_decay=weight_decay, momentum=momentum, centered=centered, maximize=maximize)
