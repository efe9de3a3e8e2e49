"""RAdam: Adam with a rectified adaptive learning rate (Liu et al.)."""
from ..ops.creation import zeros_like
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_options, _check_singleton_lists,
                        _decayed_grad, _get_value, _update_scalar)

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    """Implements RAdam: while the variance estimate is intractable (rho_t <= 5) it steps with the
    bias-corrected momentum alone, afterwards with Adam's adaptive rate times the rectification term.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-3).
        betas (tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): added to the denominator (default: 1e-8).
        weight_decay (float, optional): weight decay (default: 0).
        decoupled_weight_decay (bool, optional): AdamW-style decay (default: False).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        maximize (bool, optional): maximize the objective instead (default: False).
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.RAdam(model.parameters())
    """

    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False,
                          "decoupled_weight_decay": False, "capturable": False}
    _step_keys = ("step",)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        return {"step": self._step_tensor(group, p), "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}

    def _state_keys(self, group):
        return "exp_avg", "exp_avg_sq", "step"

    def _update(self, group, params, grads, exp_avgs, exp_avg_sqs, state_steps):
        beta1, beta2 = group["betas"]
        radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, beta1=beta1, beta2=beta2, lr=group["lr"],
              weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
              foreach=group["foreach"], decoupled_weight_decay=group["decoupled_weight_decay"])


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, decoupled_weight_decay=False, foreach=None,
          differentiable=False, capturable=False, has_complex=False, maximize=False, *, beta1, beta2, lr,
          weight_decay, eps):
    """Functional RAdam: updates ``params`` and the state lists in place. See :class:`RAdam`."""
    _check_singleton_lists(state_steps=state_steps)
    func = _multi_tensor_radam if use_fused(params, foreach, None) else _single_tensor_radam
    func(params, grads, exp_avgs, exp_avg_sqs, state_steps, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize, decoupled_weight_decay=decoupled_weight_decay)


def _single_tensor_radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr, weight_decay, eps,
                         maximize, decoupled_weight_decay):
    lr = _get_value(lr)
    rho_inf = 2 / (1 - beta2) - 1
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        step = _update_scalar(step_t, "add", 1)
        grad = _decayed_grad(param, grads[i], maximize, weight_decay, lr, decoupled_weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / (1 - beta1 ** step)
        rho_t = rho_inf - 2 * step * beta2 ** step / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = bias_correction2 ** 0.5 / exp_avg_sq.sqrt().add_(eps)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


def _multi_tensor_radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, beta1, beta2, lr, weight_decay, eps,
                        maximize, decoupled_weight_decay):
    steps = _bump_steps(state_steps)
    fused_update("radam_update", params, grads, exp_avgs, exp_avg_sqs, steps, lr=_get_value(lr), beta1=beta1,
                 beta2=beta2, eps=eps, weight_decay=weight_decay, decoupled=decoupled_weight_decay,
                 maximize=maximize)
