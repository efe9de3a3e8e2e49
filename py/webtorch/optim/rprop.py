"""Rprop (Riedmiller & Braun): per-coordinate step sizes that grow while the gradient keeps its sign."""
from ..ops.creation import full_like, zeros_like
from ..ops.where_clamp import where
from .optimizer import Optimizer, _bump_steps, _check_no_differentiable, _check_options, _check_singleton_lists, \
    _get_value

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Implements the resilient backpropagation algorithm: where ``g * g_prev > 0`` the step size grows by
    ``etaplus`` (up to ``step_sizes[1]``), where it is ``< 0`` it shrinks by ``etaminus`` (down to
    ``step_sizes[0]``) and that coordinate skips this step; ``p -= step_size * sign(g)``.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, optional): initial step size (default: 1e-2).
        etas (Tuple[float, float], optional): (etaminus, etaplus), the decrease and increase factors
            (default: (0.5, 1.2)).
        step_sizes (Tuple[float, float], optional): minimal and maximal step size (default: (1e-6, 50)).
        capturable (bool, optional): keep the step counters on the parameters' device (default: False).
        foreach (bool, optional): accepted for PyTorch compatibility; both paths run the same Tensor ops.
        maximize (bool, optional): maximize the objective instead (default: False).
        differentiable (bool, optional): must be False in webtorch.

    Example::

        >>> opt = torch.optim.Rprop(model.parameters(), lr=0.01)
    """

    _setstate_defaults = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}
    _step_keys = ("step",)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        _check_options(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_no_differentiable(differentiable)
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, group, p):
        return {"step": self._step_tensor(group, p), "prev": zeros_like(p),
                "step_size": full_like(p, _get_value(group["lr"]))}

    def _state_keys(self, group):
        return "prev", "step_size", "step"

    def _update(self, group, params, grads, prevs, step_sizes, state_steps):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        rprop(params, grads, prevs, step_sizes, state_steps, step_size_min=step_size_min,
              step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus, foreach=group["foreach"],
              maximize=group["maximize"])


def rprop(params, grads, prevs, step_sizes, state_steps, foreach=None, capturable=False, maximize=False,
          differentiable=False, has_complex=False, *, step_size_min, step_size_max, etaminus, etaplus):
    """Functional Rprop: updates ``params`` and the state lists in place. See :class:`Rprop`."""
    _check_singleton_lists(state_steps=state_steps)
    _check_no_differentiable(differentiable)
    _bump_steps(state_steps)
    for param, grad, prev, step_size in zip(params, grads, prevs, step_sizes):
        if maximize:
            grad = -grad
        sign = grad.mul(prev).sign()
        # 0 < etaminus < 1 < etaplus, so "sign < 0" is PyTorch's "factor == etaminus" mask
        flipped = sign < 0
        step_size.mul_(where(sign > 0, etaplus, where(flipped, etaminus, 1.0))).clamp_(step_size_min, step_size_max)
        grad = where(flipped, 0.0, grad)
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
