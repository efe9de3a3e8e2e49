"""NAdam: Adam with Nesterov momentum and a momentum-decay schedule (Dozat)."""
from .. import zeros_like
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import Optimizer, _bump_steps, _check_no_differentiable, _get_value, _new_step, _run_closure

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

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
        self._restore_step_tensors("step", "mu_product", on_param_device=lambda g: g["capturable"])

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(p, group["capturable"])
                state["mu_product"] = _new_step(p, group["capturable"], value=1.0)
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            mu_products.append(state["mu_product"])
            state_steps.append(state["step"])

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps)
            beta1, beta2 = group["betas"]
            nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2,
                  lr=group["lr"], weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
                  eps=group["eps"], maximize=group["maximize"],
                  decoupled_weight_decay=group["decoupled_weight_decay"], foreach=group["foreach"])
        return loss


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, decoupled_weight_decay=False,
          foreach=None, capturable=False, differentiable=False, has_complex=False, maximize=False, *, beta1, beta2,
          lr, weight_decay, momentum_decay, eps):
    """Functional NAdam: updates ``params`` and the state lists in place. See :class:`NAdam`."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    if not all(isinstance(t, Tensor) for t in mu_products):
        raise RuntimeError("API has changed, `mu_products` argument must contain a list of singleton tensors")
    func = _multi_tensor_nadam if use_fused("nadam_update", params, foreach, None) else _single_tensor_nadam
    func(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, momentum_decay=momentum_decay, eps=eps, maximize=maximize,
         decoupled_weight_decay=decoupled_weight_decay)


def _single_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
                         weight_decay, momentum_decay, eps, maximize, decoupled_weight_decay):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, mu_product, step_t = exp_avgs[i], exp_avg_sqs[i], mu_products[i], state_steps[i]
        step_t.add_(1)
        step = _get_value(step_t)
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = _mu(beta1, step, momentum_decay)
        mu_next = _mu(beta1, step + 1, momentum_decay)
        mu_product.mul_(mu)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_value = _get_value(mu_product)
        mu_product_next = mu_product_value * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - mu_product_value))
        param.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - mu_product_next))


def _multi_tensor_nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, *, beta1, beta2, lr,
                        weight_decay, momentum_decay, eps, maximize, decoupled_weight_decay):
    steps = _bump_steps(state_steps)
    products = []
    for mu_product, step in zip(mu_products, steps):
        mu_product.mul_(_mu(beta1, step, momentum_decay))
        products.append(mu_product.item())
    fused_update("nadam_update", params, grads, exp_avgs, exp_avg_sqs, steps, products, lr=_get_value(lr),
                 beta1=beta1, beta2=beta2, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                 decoupled=decoupled_weight_decay, maximize=maximize)
