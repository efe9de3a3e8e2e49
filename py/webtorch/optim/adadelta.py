"""Adadelta (Zeiler): step sizes from running averages of squared gradients and squared updates."""
from .. import zeros_like
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import Optimizer, _bump_steps, _check_no_differentiable, _get_value, _new_step, _run_closure

__all__ = ["Adadelta", "adadelta"]


class Adadelta(Optimizer):
    """Implements Adadelta: ``v = rho v + (1 - rho) g^2``, ``d = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho u + (1 - rho) d^2``, ``p -= lr * d``.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): coefficient scaling delta (default: 1.0).
        rho (float, optional): running-average coefficient (default: 0.9).
        eps (float, optional): added inside the square roots (default: 1e-6).
        weight_decay (float, optional): L2 penalty (default: 0).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.Adadelta(model.parameters())
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        self._restore_step_tensors("step", on_param_device=lambda g: g["capturable"])

    def _init_group(self, group, params, grads, square_avgs, acc_deltas, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(p, group["capturable"])
                state["square_avg"] = zeros_like(p)
                state["acc_delta"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, state_steps = [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, acc_deltas, state_steps)
            adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"], rho=group["rho"],
                     eps=group["eps"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                     maximize=group["maximize"])
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable=False, foreach=None,
             differentiable=False, has_complex=False, *, lr, rho, eps, weight_decay, maximize):
    """Functional Adadelta: updates ``params`` and the state lists in place. See :class:`Adadelta`."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    func = _multi_tensor_adadelta if use_fused("adadelta_update", params, foreach, None) else \
        _single_tensor_adadelta
    func(params, grads, square_avgs, acc_deltas, state_steps, lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
         maximize=maximize)


def _single_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay,
                            maximize):
    lr = _get_value(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps):
        step.add_(1)
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        param.add_(delta, alpha=-lr)


def _multi_tensor_adadelta(params, grads, square_avgs, acc_deltas, state_steps, *, lr, rho, eps, weight_decay,
                           maximize):
    _bump_steps(state_steps)
    fused_update("adadelta_update", params, grads, square_avgs, acc_deltas, lr=_get_value(lr), rho=rho, eps=eps,
                 weight_decay=weight_decay, maximize=maximize)
