"""Adam (and, with decoupled weight decay, AdamW): the optimizer class and the ``adam`` function."""
from ..ops.where_clamp import maximum
from ..ops.creation import zeros_like
from .._dtype import float32
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_no_grad_scaling, _check_options,
                        _check_singleton_lists, _decayed_grad, _get_value, _to_scalar, _update_scalar)

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

    _setstate_defaults = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                          "differentiable": False, "decoupled_weight_decay": False, "fused": None}
    _step_keys = ("step",)
    _capturable_update = True
    _sparse_grad_error = "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check_options(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
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

    def _init_state(self, group, p):
        state = {"step": self._step_tensor(group, p), "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def _state_keys(self, group):
        return "exp_avg", "exp_avg_sq", "max_exp_avg_sq" if group["amsgrad"] else None, "step"

    def _update(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps):
        beta1, beta2 = group["betas"]
        adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=group["foreach"],
             fused=group["fused"], capturable=group["capturable"],
             decoupled_weight_decay=group["decoupled_weight_decay"],
             amsgrad=group["amsgrad"], beta1=beta1, beta2=beta2, lr=group["lr"],
             weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"])


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=None, capturable=False,
         differentiable=False, fused=None, grad_scale=None, found_inf=None, has_complex=False,
         decoupled_weight_decay=False, *, amsgrad, beta1, beta2, lr, weight_decay, eps, maximize):
    """Functional Adam: updates ``params`` and the state lists in place. See :class:`Adam`."""
    _check_no_grad_scaling(grad_scale, found_inf)
    _check_singleton_lists(state_steps=state_steps)
    if capturable:
        # float lr/betas, float32 params and steps: what the fused update runs on the device (another dtype
        # would take the webgpu backend's host fallback, which a capture refuses; per tensor it stays there)
        fused_ok = not any(isinstance(x, Tensor) for x in (lr, beta1, beta2)) and \
            all(t.dtype is float32 for t in [*params, *state_steps])
        func = _fused_capturable_adam if fused_ok and use_fused(params, foreach, fused) \
            else _capturable_adam
    else:
        func = _multi_tensor_adam if use_fused(params, foreach, fused) else _single_tensor_adam
    func(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=amsgrad, beta1=beta1,
         beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize,
         decoupled_weight_decay=decoupled_weight_decay)


def _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                        beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    lr, beta1, beta2 = _get_value(lr), _get_value(beta1), _get_value(beta2)
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        step = _update_scalar(step_t, "add", 1)
        grad = _decayed_grad(param, grads[i], maximize, weight_decay, lr, decoupled_weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if amsgrad:
            maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


def _capturable_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                     beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    """PyTorch's capturable=True update: the step count stays a tensor beside the param and the bias
    corrections are computed from it on the device, so a captured step (webtorch.webgpu.graph) replays right."""
    for i, param in enumerate(params):
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        _check_step_device(param, step_t)
        step_t.add_(1)
        grad = _decayed_grad(param, grads[i], maximize, weight_decay, lr, decoupled_weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_size_neg = (lr / (1 - beta1 ** step_t)).neg()
        bias_correction2_sqrt = (1 - beta2 ** step_t).sqrt()
        if amsgrad:
            maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            second = max_exp_avg_sqs[i]
        else:
            second = exp_avg_sq
        denom = (second.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
        param.addcdiv_(exp_avg, denom)


def _check_step_device(param, step_t):
    if step_t.device != param.device:
        raise RuntimeError(f"If capturable=True, params and state_steps must be on the same device: a param on "
                           f"{param.device} has its step on {step_t.device}")


def _fused_capturable_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                           beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    """capturable=True through the fused primitive: it counts the step tensors on the device and computes the
    bias corrections there (float lr and betas; a Tensor one takes the per-tensor path)."""
    for param, step_t in zip(params, state_steps):
        _check_step_device(param, step_t)
    fused_update("adam_update", params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else None,
                 list(state_steps), lr=lr, beta1=beta1, beta2=beta2, eps=eps, weight_decay=weight_decay,
                 amsgrad=amsgrad, maximize=maximize, decoupled=decoupled_weight_decay)


def _multi_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                       beta2, lr, weight_decay, eps, maximize, decoupled_weight_decay):
    steps = _bump_steps(state_steps)
    fused_update("adam_update", params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else None, steps,
                 lr=_get_value(lr), beta1=_get_value(beta1), beta2=_get_value(beta2), eps=eps,
                 weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize, decoupled=decoupled_weight_decay)
