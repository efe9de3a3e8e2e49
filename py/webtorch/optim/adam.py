"""Adam (and, with decoupled weight decay, AdamW): the optimizer class and the ``adam`` function."""
from .. import maximum, zeros_like
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _get_value, _new_step, _run_closure,
                        _to_scalar)

__all__ = ["Adam", "adam"]


class Adam(Optimizer):
    """Implements Adam (Kingma & Ba), optionally AMSGrad; PyTorch 2.13's update rule and options.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-3).
        betas (tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): added to the denominator (default: 1e-8).
        weight_decay (float, optional): L2 penalty (default: 0).
        amsgrad (bool, optional): use the AMSGrad variant (default: False).
        foreach (bool, optional): True/None use the backend's fused multi-tensor update when it has one,
            False the per-tensor loop (default: None).
        maximize (bool, optional): maximize the objective instead (default: False).
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        differentiable (bool, optional): must be False in webtorch.
        fused (bool, optional): as foreach=True (default: None).
        decoupled_weight_decay (bool, optional): AdamW's decay, param *= 1 - lr * weight_decay (default: False).

    Example::

        >>> opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        >>> loss_fn(model(x), y).backward(); opt.step(); opt.zero_grad()
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor):
            if foreach and not capturable:
                raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
            if lr.numel() != 1:
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
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, b in enumerate(betas):
            if isinstance(b, Tensor):
                if not capturable and foreach:
                    raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
                if b.numel() != 1:
                    raise ValueError(f"Tensor betas[{i}] must be 1-element")
        _check_no_differentiable(differentiable)
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            group.setdefault("fused", None)
        self._restore_step_tensors("step", on_param_device=lambda g: g["capturable"] or g["fused"])

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(p, group["capturable"] or group["fused"], fused=group["fused"])
                state["exp_avg"] = zeros_like(p)
                state["exp_avg_sq"] = zeros_like(p)
                if group["amsgrad"]:
                    state["max_exp_avg_sq"] = zeros_like(p)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            state_steps.append(state["step"])

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps)
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=group["foreach"],
                 fused=group["fused"], decoupled_weight_decay=group["decoupled_weight_decay"],
                 amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None, capturable=False,
         differentiable=False, fused=None, grad_scale=None, found_inf=None, has_complex=False,
         decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """Functional Adam: updates ``params`` and the state lists in place. See :class:`Adam`."""
    if grad_scale is not None or found_inf is not None:
        raise ValueError("grad_scale/found_inf (AMP gradient scaling) are not supported in webtorch")
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    func = _multi_tensor_adam if use_fused("adam_update", params, foreach, fused) else _single_tensor_adam
    func(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=amsgrad, beta1=beta1,
         beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize,
         decoupled_weight_decay=decoupled_weight_decay)


def _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                        beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    lr, beta1, beta2 = _get_value(lr), _get_value(beta1), _get_value(beta2)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        step_t.add_(1)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = _get_value(step_t)
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if amsgrad:
            maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


def _multi_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                       beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    steps = _bump_steps(state_steps)
    fused_update("adam_update", params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else None, steps,
                 lr=_get_value(lr), beta1=_get_value(beta1), beta2=_get_value(beta2), eps=eps,
                 weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize, decoupled=decoupled_weight_decay)
