"""Adagrad: per-coordinate learning rates from the accumulated squared gradients."""
from ..ops.creation import full_like
from ._fused import fused_update, use_fused
from .optimizer import (Optimizer, _bump_steps, _check_no_differentiable, _check_no_grad_scaling, _check_options,
                        _check_singleton_lists, _decayed_grad, _get_value, _update_scalar)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Implements Adagrad: ``s += g^2``, ``p -= clr * g / (sqrt(s) + eps)``, clr = lr / (1 + (t - 1) * lr_decay).

    The state (step and sum) of every parameter is created in the constructor, as PyTorch does.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-2).
        lr_decay (float, optional): learning rate decay (default: 0).
        weight_decay (float, optional): L2 penalty (default: 0).
        initial_accumulator_value (float, optional): starting value of the sums (default: 0).
        eps (float, optional): added to the denominator (default: 1e-10).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.
        fused (bool, optional): as foreach=True (default: None).

    Example::

        >>> opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
    """

    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}
    _step_keys = ("step",)
    _sparse_grad_error = None  # a sparse gradient updates the rows it names (weight_decay refused)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_options(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                       initial_accumulator_value=initial_accumulator_value, eps=eps)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._init_state(group, p))

    def _init_state(self, group, p):
        # the constructor's initial_accumulator_value, not the group's (as PyTorch)
        return {"step": self._step_tensor(group, p), "sum": full_like(p, self.defaults["initial_accumulator_value"])}

    def _state_keys(self, group):
        return "sum", "step"

    def _update(self, group, params, grads, state_sums, state_steps):
        adagrad(params, grads, state_sums, state_steps, has_sparse_grad=any(g.is_sparse for g in grads),
                lr=group["lr"], weight_decay=group["weight_decay"],
                lr_decay=group["lr_decay"], eps=group["eps"], foreach=group["foreach"], maximize=group["maximize"],
                fused=group["fused"])


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None, found_inf=None,
            has_sparse_grad=False, foreach=None, differentiable=False, has_complex=False, *, lr, weight_decay,
            lr_decay, eps, maximize):
    """Functional Adagrad: updates ``params`` and ``state_sums`` in place. See :class:`Adagrad`."""
    _check_no_grad_scaling(grad_scale, found_inf)
    _check_singleton_lists(state_steps=state_steps)
    if has_sparse_grad and fused:
        raise RuntimeError("`fused` does not support sparse grad or complex param")
    func = _multi_tensor_adagrad if use_fused(params, foreach, fused) and not has_sparse_grad else \
        _single_tensor_adagrad
    func(params, grads, state_sums, state_steps, lr=lr, weight_decay=weight_decay, lr_decay=lr_decay, eps=eps,
         maximize=maximize)


def _single_tensor_adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize):
    lr = _get_value(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step = _update_scalar(step_t, "add", 1)
        clr = lr / (1 + (step - 1) * lr_decay)
        if grad.is_sparse:
            _sparse_adagrad_step(param, grad, state_sum, clr, eps, maximize, weight_decay)
            continue
        grad = _decayed_grad(param, grad, maximize, weight_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


def _sparse_adagrad_step(param, grad, state_sum, clr, eps, maximize, weight_decay):
    """PyTorch's sparse Adagrad: the sum and the parameter change only at the gradient's (coalesced) indices."""
    if weight_decay != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    grad = (-grad if maximize else grad).coalesce()
    where, values = tuple(grad._indices()), grad._values()
    state_sum.index_put_(where, values.pow(2), accumulate=True)
    std = state_sum[where].sqrt_().add_(eps)
    param.index_put_(where, (values / std) * -clr, accumulate=True)


def _multi_tensor_adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize):
    steps = _bump_steps(state_steps)
    fused_update("adagrad_update", params, grads, state_sums, steps, lr=_get_value(lr), lr_decay=lr_decay,
                 weight_decay=weight_decay, eps=eps, maximize=maximize)
