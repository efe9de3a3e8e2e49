"""Adafactor (Shazeer & Stern), PyTorch's variant: the second moment of a matrix gradient kept as its row and
column means (memory O(n + m) instead of O(nm)), a relative step size min(lr, 1/sqrt(t)) scaled by the
parameter's RMS, update clipping by RMS, decoupled weight decay lr * weight_decay."""
from .._dtype import finfo
from ..ops.creation import zeros_like
from ..ops.linalg import matmul
from .optimizer import Optimizer, _get_value

__all__ = ["Adafactor", "adafactor"]


class Adafactor(Optimizer):
    """Implements Adafactor.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): the largest relative step size, also the weight decay's coefficient (default: 1e-2).
        beta2_decay (float, optional): the second moment's averaging weight at step t is t ** beta2_decay
            (default: -0.8).
        eps (tuple, optional): (epsilon1: floor of the second moment's square root, None for the parameter dtype's
            machine epsilon; epsilon2: floor of the parameter RMS that scales the step) (default: (None, 1e-3)).
        d (float, optional): clipping threshold of the update's RMS (default: 1.0).
        weight_decay (float, optional): decoupled weight decay coefficient (default: 0).
        foreach (bool, optional): accepted for PyTorch compatibility; the per-tensor loop always runs.
        maximize (bool, optional): maximize the objective instead (default: False).

    Example::

        >>> opt = torch.optim.Adafactor(model.parameters(), lr=1e-2)
    """

    _setstate_defaults = {"foreach": None, "maximize": False}
    _step_keys = ("step",)

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        # PyTorch keeps Adafactor's step on the host (a float32 0-dim tensor on the cpu)
        state = {"step": self._step_tensor(group, p)}
        if p.grad.dim() > 1:
            state["row_var"] = p.grad.new_zeros(tuple(p.grad.shape[:-1]) + (1,))
            state["col_var"] = p.grad.new_zeros(tuple(p.grad.shape[:-2]) + (1, p.grad.shape[-1]))
        else:
            state["variance"] = zeros_like(p.grad)
        return state

    def _state_keys(self, group):
        return "row_var", "col_var", "variance", "step"

    def _update(self, group, params, grads, row_vars, col_vars, variances, state_steps):
        eps1, eps2 = group["eps"]
        adafactor(params, grads, row_vars, col_vars, variances, state_steps, d=group["d"], lr=group["lr"],
                  beta2_decay=group["beta2_decay"], weight_decay=group["weight_decay"], eps1=eps1, eps2=eps2,
                  foreach=group["foreach"], maximize=group["maximize"])


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach=None, grad_scale=None,
              found_inf=None, has_complex=False, *, d, lr, beta2_decay, weight_decay, eps1, eps2, maximize):
    """Functional Adafactor: updates ``params`` and the state lists in place. See :class:`Adafactor`."""
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Grad scaling should occur outside of optimizer.step()")
    lr = _get_value(lr)
    for param, grad, row_var, col_var, variance, step in zip(params, grads, row_vars, col_vars, variances,
                                                             state_steps):
        grad = -grad if maximize else grad
        if eps1 is None:  # PyTorch fixes it from the first parameter's dtype for the rest of the list too
            eps1 = finfo(param.dtype).eps
        step += 1
        t = step.item()
        weight = t ** beta2_decay  # the new square's weight in the running means (1 - beta2_t)
        rho = min(lr, 1 / t ** 0.5)
        alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * rho
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.shape[-1]), weight)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.shape[-2]), weight)
            var_estimate = matmul(row_var, col_var)
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            variance.lerp_(grad * grad, weight)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_().mul_(grad)
        denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
        param.add_(update, alpha=-alpha / denom)
