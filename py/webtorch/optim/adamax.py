"""Adamax: Adam with the infinity norm in place of the second moment."""
from ..ops.where_clamp import maximum
from ..ops.creation import zeros_like
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_options, _check_singleton_lists,
                        _decayed_grad, _get_value, _update_scalar)

__all__ = ["Adamax", "adamax"]


class Adamax(Optimizer):
    """Implements Adamax (Kingma & Ba): ``u = max(beta2 * u, |g| + eps)``, ``p -= lr / (1 - beta1^t) * m / u``.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 2e-3).
        betas (tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): added to |g| (default: 1e-8).
        weight_decay (float, optional): L2 penalty (default: 0).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).

    Example::

        >>> opt = torch.optim.Adamax(model.parameters())
    """

    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}
    _step_keys = ("step",)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        return {"step": self._step_tensor(group, p), "exp_avg": zeros_like(p), "exp_inf": zeros_like(p)}

    def _state_keys(self, group):
        return "exp_avg", "exp_inf", "step"

    def _update(self, group, params, grads, exp_avgs, exp_infs, state_steps):
        beta1, beta2 = group["betas"]
        adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"], beta1=beta1, beta2=beta2,
               lr=group["lr"], weight_decay=group["weight_decay"], foreach=group["foreach"],
               maximize=group["maximize"])


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False, differentiable=False,
           capturable=False, has_complex=False, *, eps, beta1, beta2, lr, weight_decay):
    """Functional Adamax: updates ``params`` and the state lists in place. See :class:`Adamax`."""
    _check_singleton_lists(state_steps=state_steps)
    func = _multi_tensor_adamax if use_fused(params, foreach, None) else _single_tensor_adamax
    func(params, grads, exp_avgs, exp_infs, state_steps, eps=eps, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, maximize=maximize)


def _single_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
                          maximize):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        step = _update_scalar(step_t, "add", 1)
        grad = _decayed_grad(param, grads[i], maximize, weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        clr = lr / (1 - beta1 ** step)
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


def _multi_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
                         maximize):
    steps = _bump_steps(state_steps)
    fused_update("adamax_update", params, grads, exp_avgs, exp_infs, steps, lr=_get_value(lr), beta1=beta1,
                 beta2=beta2, eps=eps, weight_decay=weight_decay, maximize=maximize)
