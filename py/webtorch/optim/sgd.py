"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""
from .._tensor import Tensor
from ._fused import fused_update, use_fused
from .optimizer import Optimizer, _check_no_differentiable, _check_no_grad_scaling, _decayed_grad, _get_value

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Implements stochastic gradient descent (optionally with momentum), PyTorch's formulation:
    ``b = momentum * b + (1 - dampening) * g`` (b = g on the first step), ``p -= lr * b``
    (Nesterov: ``p -= lr * (g + momentum * b)``).

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-3).
        momentum (float, optional): momentum factor (default: 0).
        dampening (float, optional): dampening for momentum (default: 0).
        weight_decay (float, optional): L2 penalty (default: 0).
        nesterov (bool, optional): Nesterov momentum (default: False).
        maximize (bool, optional): maximize the objective instead (default: False).
        foreach (bool, optional): True/None use the backend's fused update, False the per-tensor loop.
        differentiable (bool, optional): must be False in webtorch.
        fused (bool, optional): as foreach=True (default: None).

    Example::

        >>> opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        >>> loss_fn(model(x), y).backward(); opt.step(); opt.zero_grad()
    """

    _setstate_defaults = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False,
                          "fused": False}
    _sparse_grad_error = None  # the per-tensor update adds a sparse gradient (and momentum buffer) as it is

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        # PyTorch's SGD checks with `<` (a NaN passes), unlike the other optimizers' _check_options
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def _check_capture(self):
        # capturable as it is (lr is baked in, as in PyTorch) once the momentum buffers exist: a first step
        # inside the capture would make every replay start the buffers afresh
        for group in self.param_groups:
            if group["momentum"] != 0 and any(p.grad is not None and self.state[p].get("momentum_buffer") is None
                                              for p in group["params"]):
                raise RuntimeError("SGD with momentum: the momentum buffers are created by the first step, which "
                                   "a webtorch.webgpu graph would replay every time; run a warm-up step before "
                                   "capturing")

    def _state_keys(self, group):
        # no state before the first update, which creates the momentum buffers
        return ("momentum_buffer" if group["momentum"] != 0 else None,)

    def _update(self, group, params, grads, momentum_buffer_list):
        sgd(params, grads, momentum_buffer_list, any(g.is_sparse for g in grads), weight_decay=group["weight_decay"],
            momentum=group["momentum"],
            lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"], maximize=group["maximize"],
            foreach=group["foreach"], fused=group["fused"])
        if group["momentum"] != 0:
            for p, buf in zip(params, momentum_buffer_list):
                self.state[p]["momentum_buffer"] = buf


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad=False, foreach=None, fused=None, grad_scale=None,
        found_inf=None, *, weight_decay, momentum, lr, dampening, nesterov, maximize):
    """Functional SGD: updates ``params`` in place; fills None entries of ``momentum_buffer_list``."""
    _check_no_grad_scaling(grad_scale, found_inf)
    if has_sparse_grad and fused:
        raise RuntimeError("`_fused_sgd` does not support sparse gradients")
    func = _multi_tensor_sgd if use_fused(params, foreach, fused) and not has_sparse_grad else _single_tensor_sgd
    func(params, d_p_list, momentum_buffer_list, weight_decay=weight_decay, momentum=momentum, lr=lr,
         dampening=dampening, nesterov=nesterov, maximize=maximize)


def _single_tensor_sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov,
                       maximize):
    lr = _get_value(lr)
    for i, param in enumerate(params):
        grad = _decayed_grad(param, grads[i], maximize, weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        param.add_(grad, alpha=-lr)


def _multi_tensor_sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov,
                      maximize):
    bufs = fused_update("sgd_update", params, grads, momentum_buffer_list if momentum != 0 else None,
                        lr=_get_value(lr), momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize)
    if momentum != 0:
        momentum_buffer_list[:] = bufs
