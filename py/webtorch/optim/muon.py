"""Muon (Jordan et al.): SGD with Nesterov momentum whose update of a 2-D parameter is orthogonalized by a quintic
Newton-Schulz iteration, with decoupled weight decay and a shape-dependent learning-rate scale.

PyTorch runs the iteration in bfloat16; webtorch has no bfloat16 on cpu and runs it in the gradient's dtype
(float32): the updates agree with PyTorch's to bfloat16's precision (about 3 significant digits)."""
import math

from ..ops.creation import zeros_like
from ..ops.linalg import addmm
from .optimizer import Optimizer, _to_scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    """An approximate orthogonalization U S' V^T of G = U S V^T (S' roughly uniform in [0.5, 1.5]): ns_steps of
    X <- a X + (b A + c A^2) X with A = X X^T, from X = G / ||G|| (transposed so that X is wide)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = grad.size(0) > grad.size(1)
    x = grad.T if tall else grad
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x.matmul(x.T)
        x = addmm(x, addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjust_lr(lr, adjust_lr_fn, param_shape):
    """"original" (Keller Jordan's): sqrt(max(1, A/B)); "match_rms_adamw" (Moonshot's): 0.2 sqrt(max(A, B))."""
    rows, cols = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """Implements Muon for 2-D parameters (hidden layers' weights; optimize biases and embeddings with AdamW):
    ``B = mu B + g`` (as ``B.lerp_(g, 1 - mu)``), the update ``g.lerp(B, mu)`` (Nesterov) or ``B``
    orthogonalized by Newton-Schulz, ``p *= 1 - lr * weight_decay``, ``p -= adjusted_lr * O``.

    Args:
        params (iterable): 2-D parameters (or named parameters, or param-group dicts) to optimize.
        lr (float, Tensor, optional): learning rate (default: 1e-3).
        weight_decay (float, optional): decoupled weight decay (default: 0.1).
        momentum (float, optional): momentum factor (default: 0.95).
        nesterov (bool, optional): Nesterov momentum (default: True).
        ns_coefficients (tuple of three floats, optional): the Newton-Schulz polynomial's (a, b, c)
            (default: (3.4445, -4.7750, 2.0315)).
        eps (float, optional): floor of the norm the iteration starts by dividing by (default: 1e-7).
        ns_steps (int, optional): Newton-Schulz iterations (default: 5).
        adjust_lr_fn (str, optional): "original" (the default when None) or "match_rms_adamw".

    Example::

        >>> opt = torch.optim.Muon([p for p in model.parameters() if p.ndim == 2], lr=0.02)
        >>> loss_fn(model(x), y).backward(); opt.step(); opt.zero_grad()
    """

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def _init_state(self, group, p):
        return {"momentum_buffer": zeros_like(p.grad)}

    def _state_keys(self, group):
        return ("momentum_buffer",)

    def _update(self, group, params, grads, momentum_bufs):
        muon(params, grads, momentum_bufs, lr=group["lr"], weight_decay=group["weight_decay"],
             momentum=group["momentum"], nesterov=group["nesterov"], ns_coefficients=group["ns_coefficients"],
             ns_steps=group["ns_steps"], eps=group["eps"], adjust_lr_fn=group["adjust_lr_fn"], has_complex=False)


def muon(params, grads, muon_momentum_bufs, *, foreach=None, lr, weight_decay, momentum, nesterov, ns_coefficients,
         ns_steps, eps, adjust_lr_fn, has_complex):
    """Functional Muon: updates ``params`` and the momentum buffers in place. See :class:`Muon`."""
    if foreach is not None and foreach:
        raise RuntimeError("Foreach is not supported for Muon yet")
    if has_complex:
        raise ValueError("Complex parameters are not supported")
    lr = _to_scalar(lr)
    for param, grad, buf in zip(params, grads, muon_momentum_bufs):
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if nesterov else buf
        update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        adjusted_lr = _adjust_lr(lr, adjust_lr_fn, param.shape)
        param.mul_(1 - lr * weight_decay)
        param.add_(update, alpha=-adjusted_lr)
