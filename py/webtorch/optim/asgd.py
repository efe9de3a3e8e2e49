"""ASGD (Polyak & Juditsky): SGD with a decaying step size and a running average ``ax`` of the iterates."""
from ..ops.creation import zeros_like
from .optimizer import Optimizer, _check_no_differentiable, _check_options, _get_value, _keep_host_copy, \
    _rounded, _update_scalar

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """Implements averaged stochastic gradient descent: ``p = p * (1 - lambd * eta) - eta * g``; ``ax``
    averages the iterates once ``step > t0``; ``eta = lr / (1 + lambd * lr * step) ** alpha``.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): learning rate (default: 1e-2).
        lambd (float, optional): decay term (default: 1e-4).
        alpha (float, optional): power for the eta update (default: 0.75).
        t0 (float, optional): the step at which averaging starts (default: 1e6).
        weight_decay (float, optional): L2 penalty (default: 0).
        foreach (bool, optional): accepted for PyTorch compatibility; both paths run the same Tensor ops.
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.
        capturable (bool, optional): accepted for PyTorch compatibility (the scalar state always lives
            beside the parameter, as PyTorch keeps it).

    Example::

        >>> opt = torch.optim.ASGD(model.parameters(), lr=0.01, t0=100)
    """

    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}
    _step_keys = ("step", "eta", "mu")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None, maximize=False,
                 differentiable=False, capturable=False):
        _check_options(lr=lr, weight_decay=weight_decay)
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _steps_on_param_device(self, group):
        return True

    def _init_state(self, group, p):
        return {"step": self._step_tensor(group, p), "eta": self._step_tensor(group, p, _get_value(group["lr"])),
                "mu": self._step_tensor(group, p, 1.0), "ax": zeros_like(p)}

    def _state_keys(self, group):
        return "ax", "mu", "eta", "step"

    def _update(self, group, params, grads, axs, mus, etas, state_steps):
        asgd(params, grads, axs, mus, etas, state_steps, lambd=group["lambd"], lr=group["lr"], t0=group["t0"],
             alpha=group["alpha"], weight_decay=group["weight_decay"], foreach=group["foreach"],
             maximize=group["maximize"], capturable=group["capturable"])


def _set_scalar(t, value):
    """Store ``value`` in the 0-dim state tensor ``t``, keeping its host-side copy current."""
    t.fill_(value)
    _keep_host_copy(t, _rounded(t, value))


def asgd(params, grads, axs, mus, etas, state_steps, foreach=None, maximize=False, differentiable=False,
         capturable=False, has_complex=False, *, lambd, lr, t0, alpha, weight_decay):
    """Functional ASGD: updates ``params`` and the state lists in place. See :class:`ASGD`."""
    _check_no_differentiable(differentiable)
    lr = _get_value(lr)
    for param, grad, ax, mu, eta, step_t in zip(params, grads, axs, mus, etas, state_steps):
        if maximize:
            grad = -grad
        step = _update_scalar(step_t, "add", 1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        # the scalars are read from their host-side copies: no device read per parameter
        eta_value = _get_value(eta)
        param.mul_(1 - lambd * eta_value)
        param.add_(grad, alpha=-eta_value)
        mu_value = _get_value(mu)
        if mu_value != 1:
            ax.add_(param.sub(ax).mul_(mu_value))
        else:
            ax.copy_(param)
        _set_scalar(eta, lr / ((1 + lambd * lr * step) ** alpha))
        _set_scalar(mu, 1 / max(1, step - t0))
