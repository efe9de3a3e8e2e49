"""Adamax: Adam with the infinity norm in place of the second moment."""
from .. import maximum, zeros_like
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import Optimizer, _bump_steps, _check_no_differentiable, _get_value, _new_step, _run_closure

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

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
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
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        self._restore_step_tensors("step", on_param_device=lambda g: g["capturable"])

    def _init_group(self, group, params, grads, exp_avgs, exp_infs, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(p, group["capturable"])
                state["exp_avg"] = zeros_like(p)
                state["exp_inf"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_infs.append(state["exp_inf"])
            state_steps.append(state["step"])

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_infs, state_steps)
            beta1, beta2 = group["betas"]
            adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"], beta1=beta1, beta2=beta2,
                   lr=group["lr"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                   maximize=group["maximize"])
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach=None, maximize=False, differentiable=False,
           capturable=False, has_complex=False, *, eps, beta1, beta2, lr, weight_decay):
    """Functional Adamax: updates ``params`` and the state lists in place. See :class:`Adamax`."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    func = _multi_tensor_adamax if use_fused("adamax_update", params, foreach, None) else _single_tensor_adamax
    func(params, grads, exp_avgs, exp_infs, state_steps, eps=eps, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, maximize=maximize)


def _single_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
                          maximize):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        step_t.add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        clr = lr / (1 - beta1 ** _get_value(step_t))
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


def _multi_tensor_adamax(params, grads, exp_avgs, exp_infs, state_steps, *, eps, beta1, beta2, lr, weight_decay,
                         maximize):
    steps = _bump_steps(state_steps)
    fused_update("adamax_update", params, grads, exp_avgs, exp_infs, steps, lr=_get_value(lr), beta1=beta1,
                 beta2=beta2, eps=eps, weight_decay=weight_decay, maximize=maximize)
