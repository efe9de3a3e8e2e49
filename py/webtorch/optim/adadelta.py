"""Adadelta (Zeiler): step sizes from running averages of squared gradients and squared updates."""
from ..ops.creation import zeros_like
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_options, _check_singleton_lists,
                        _decayed_grad, _get_value)

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Implements Adadelta: ``v = rho v + (1 - rho) g^2``, ``d = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho u + (1 - rho) d^2``, ``p -= lr * d``.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): coefficient scaling delta (default: 1.0).
        rho (float, optional): running-average coefficient (default: 0.9).
        eps (float, optional): added inside the square roots (default: 1e-6).
        weight_decay (float, optional): L2 penalty (default: 0).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.Adadelta(model.parameters())
    """

    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}
    _step_keys = ("step",)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        _check_options(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        return {"step": self._step_tensor(group, p), "square_avg": zeros_like(p), "acc_delta": zeros_like(p)}

    def _state_keys(self, group):
        return "square_avg", "acc_delta", "step"

    def _update(self, group, params, grads, square_avgs, acc_deltas, state_steps):
        adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"], rho=group["rho"],
                 eps=group["eps"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                 maximize=group["maximize"])


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False, foreach=None,
             differentiable=False, has_complex=False, *, lr, rho, eps, weight_decay, maximize):
    """Functional Adadelta: updates ``params`` and the state lists in place. See :class:`Adadelta`."""
    _check_singleton_lists(state_steps=state_steps)
    func = _multi_tensor_adadelta if use_fused(params, foreach, None) else \
        _single_tensor_adadelta
    func(params, grads, square_avgs, acc_deltas, state_steps, lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
         maximize=maximize)


def _single_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay,
                            maximize):
    lr = _get_value(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps):
        step.add_(1)
        grad = _decayed_grad(param, grad, maximize, weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)


def _multi_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay,
                           maximize):
    _bump_steps(state_steps)
    fused_update("adadelta_update", params, grads, square_avgs, acc_deltas, lr=_get_value(lr), rho=rho, eps=eps,
                 weight_decay=weight_decay, maximize=maximize)
