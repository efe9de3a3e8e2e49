"""Adagrad: per-coordinate learning rates from the accumulated squared gradients."""
from .. import full_like
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import Optimizer, _bump_steps, _check_no_differentiable, _get_value, _new_step, _run_closure

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

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = _new_step(p, bool(group["fused"]), fused=group["fused"])
                state["sum"] = full_like(p, initial_accumulator_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
        self._restore_step_tensors("step", on_param_device=lambda g: bool(g["fused"]))

    def _init_group(self, group, params, grads, state_sums, state_steps):
        for p in group["params"]:
            if p.grad is not None:
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _new_step(p, bool(group["fused"]), fused=group["fused"])
                    state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])
                state_sums.append(state["sum"])
                state_steps.append(state["step"])

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            self._init_group(group, params, grads, state_sums, state_steps)
            adagrad(params, grads, state_sums, state_steps, lr=group["lr"], weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"], eps=group["eps"], foreach=group["foreach"],
                    maximize=group["maximize"], fused=group["fused"])
        return loss


def adagrad(params, grads, state_sums, state_steps, fused=None, grad_scale=None, found_inf=None,
            has_sparse_grad=False, foreach=None, differentiable=False, has_complex=False, *, lr, weight_decay,
            lr_decay, eps, maximize):
    """Functional Adagrad: updates ``params`` and ``state_sums`` in place. See :class:`Adagrad`."""
    if grad_scale is not None or found_inf is not None:
        raise ValueError("grad_scale/found_inf (AMP gradient scaling) are not supported in webtorch")
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    func = _multi_tensor_adagrad if use_fused("adagrad_update", params, foreach, fused) else _single_tensor_adagrad
    func(params, grads, state_sums, state_steps, lr=lr, weight_decay=weight_decay, lr_decay=lr_decay, eps=eps,
         maximize=maximize)


def _single_tensor_adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize):
    lr = _get_value(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t.add_(1)
        step = _get_value(step_t)
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


def _multi_tensor_adagrad(params, grads, state_sums, state_steps, *, lr, weight_decay, lr_decay, eps, maximize):
    steps = _bump_steps(state_steps)
    fused_update("adagrad_update", params, grads, state_sums, steps, lr=_get_value(lr), lr_decay=lr_decay,
                 weight_decay=weight_decay, eps=eps, maximize=maximize)
