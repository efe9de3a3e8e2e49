"""RMSprop (Hinton), optionally centered and with momentum."""
from .. import zeros_like
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import Optimizer, _bump_steps, _check_no_differentiable, _get_value, _new_step, _run_closure

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """Implements RMSprop: ``v = alpha * v + (1 - alpha) * g^2``, ``p -= lr * g / (sqrt(v) + eps)``
    (centered: v minus the squared running mean of g; momentum: a buffer of those steps).

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-2).
        alpha (float, optional): smoothing constant (default: 0.99).
        eps (float, optional): added to the denominator (default: 1e-8).
        weight_decay (float, optional): L2 penalty (default: 0).
        momentum (float, optional): momentum factor (default: 0).
        centered (bool, optional): normalize by an estimate of the gradient's variance (default: False).
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
        self._restore_step_tensors("step", on_param_device=lambda g: g["capturable"])

    def _init_group(self, group, params, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps):
        for p in group["params"]:
            if p.grad is None:
                continue
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _new_step(p, group["capturable"])
                state["square_avg"] = zeros_like(p)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = zeros_like(p)
                if group["centered"]:
                    state["grad_avg"] = zeros_like(p)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps = [], [], [], [], [], []
            self._init_group(group, params, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps)
            rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, lr=group["lr"],
                    alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum=group["momentum"], centered=group["centered"], foreach=group["foreach"],
                    maximize=group["maximize"])
        return loss


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, foreach=None,
            maximize=False, differentiable=False, capturable=False, has_complex=False, *, lr, alpha, eps,
            weight_decay, momentum, centered):
    """Functional RMSprop: updates ``params`` and the state lists in place. See :class:`RMSprop`."""
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    func = _multi_tensor_rmsprop if use_fused("rmsprop_update", params, foreach, None) else _single_tensor_rmsprop
    func(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, lr=lr, alpha=alpha, eps=eps,
         weight_decay=weight_decay, momentum=momentum, centered=centered, maximize=maximize)


def _single_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr, alpha,
                           eps, weight_decay, momentum, centered, maximize):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        state_steps[i].add_(1)
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg = square_avgs[i]
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


def _multi_tensor_rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, *, lr, alpha,
                          eps, weight_decay, momentum, centered, maximize):
    _bump_steps(state_steps)
    fused_update("rmsprop_update", params, grads, square_avgs, grad_avgs if centered else None,
                 momentum_buffer_list if momentum > 0 else None, lr=_get_value(lr), alpha=alpha, eps=eps,
                 weight_decay=weight_decay, momentum=momentum, centered=centered, maximize=maximize)
