"""NAdam: Adam with Nesterov momentum and a momentum-decay schedule (Dozat)."""
from ..ops.creation import zeros_like
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_options, _check_singleton_lists,
                        _decayed_grad, _get_value, _update_scalar)

__all__ = ["NAdam", "nadam"]


def _mu(beta1, step, momentum_decay):
    """The momentum coefficient of step ``step`` (PyTorch's 0.96 ** (t * psi) schedule)."""
    return beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))


class NAdam(Optimizer):
    """Implements NAdam; state holds ``step``, ``mu_product`` (0-dim tensors), ``exp_avg``, ``exp_avg_sq``.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 2e-3).
        betas (tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): added to the denominator (default: 1e-8).
        weight_decay (float, optional): weight decay (default: 0).
        momentum_decay (float, optional): psi of the momentum schedule (default: 4e-3).
        decoupled_weight_decay (bool, optional): AdamW-style decay (default: False).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        maximize (bool, optional): maximize the objective instead (default: False).
        capturable (bool, optional): keep step/mu_product on the parameters' device (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.NAdam(model.parameters(), lr=2e-3)
    """

    _setstate_defaults = {"maximize": False, "foreach": None, "capturable": False, "differentiable": False,
                          "decoupled_weight_decay": False}
    _step_keys = ("step", "mu_product")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay, momentum_decay=momentum_decay)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        return {"step": self._step_tensor(group, p), "mu_product": self._step_tensor(group, p, 1.0),
                "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}

    def _state_keys(self, group):
        return "exp_avg", "exp_avg_sq", "mu_product", "step"

    def _update(self, group, params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps):
        beta1, beta2 = group["betas"]
        nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2,
              lr=group["lr"], weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
              eps=group["eps"], maximize=group["maximize"], decoupled_weight_decay=group["decoupled_weight_decay"],
              foreach=group["foreach"])


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, decoupled_weight_decay=False,
          foreach=None, capturable=False, differentiable=False, has_complex=False, maximize=False, *, beta1, beta2,
          lr, weight_decay, momentum_decay, eps):
    """Functional NAdam: updates ``params`` and the state lists in place. See :class:`NAdam`."""
    _check_singleton_lists(state_steps=state_steps, mu_products=mu_products)
    func = _multi_tensor_nadam if use_fused(params, foreach, None) else _single_tensor_nadam
    func(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, momentum_decay=momentum_decay, eps=eps, maximize=maximize,
         decoupled_weight_decay=decoupled_weight_decay)


def _single_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
                         weight_decay, momentum_decay, eps, maximize, decoupled_weight_decay):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, mu_product, step_t = exp_avgs[i], exp_avg_sqs[i], mu_products[i], state_steps[i]
        step = _update_scalar(step_t, "add", 1)
        bias_correction2 = 1 - beta2 ** step
        grad = _decayed_grad(param, grads[i], maximize, weight_decay, lr, decoupled_weight_decay)
        mu = _mu(beta1, step, momentum_decay)
        mu_next = _mu(beta1, step + 1, momentum_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_value = _update_scalar(mu_product, "mul", mu)
        mu_product_next = mu_product_value * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))


def _multi_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
                        weight_decay, momentum_decay, eps, maximize, decoupled_weight_decay):
    steps = _bump_steps(state_steps)
    products = []
    for mu_product, step in zip(mu_products, steps):
        products.append(_update_scalar(mu_product, "mul", _mu(beta1, step, momentum_decay)))
    fused_update("nadam_update", params, grads, exp_avgs, exp_avg_sqs, steps, products, lr=_get_value(lr),
                 beta1=beta1, beta2=beta2, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                 decoupled=decoupled_weight_decay, maximize=maximize)
