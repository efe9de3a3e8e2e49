"""SparseAdam: Adam's moments and step applied only at the entries a sparse gradient names (embedding(sparse=True))."""
import math

from ..ops.creation import zeros_like
from .._tensor import Tensor
from .optimizer import Optimizer, _to_scalar

__all__ = ["SparseAdam"]


class SparseAdam(Optimizer):
    """Implements the masked Adam of PyTorch's SparseAdam: parameters are dense, gradients sparse COO (as
    ``nn.Embedding(sparse=True)`` makes them); only the moments and parameter entries the (coalesced) gradient
    names are updated, each by Adam's rule with its bias corrections.

    Args:
        params (iterable): parameters (or named parameters, or param-group dicts) to optimize; dense tensors.
        lr (float, optional): learning rate (default: 1e-3).
        betas (tuple[float, float], optional): running-average coefficients (default: (0.9, 0.999)).
        eps (float, optional): added to the denominator (default: 1e-8).
        maximize (bool, optional): maximize the objective instead (default: False).

    Example::

        >>> emb = torch.nn.Embedding(1000, 16, sparse=True)
        >>> opt = torch.optim.SparseAdam(emb.parameters(), lr=1e-2)
        >>> emb(torch.tensor([1, 5, 1])).sum().backward(); opt.step()
    """

    _sparse_grad_error = None

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse = [[g, i] for g, group in enumerate(self.param_groups) for i, p in enumerate(group["params"])
                  if p.is_sparse]
        if sparse:
            raise ValueError(f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors")

    def _check_grad_layout(self, grad):
        if not grad.is_sparse:
            raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")

    def _init_state(self, group, p):
        return {"step": 0, "exp_avg": zeros_like(p), "exp_avg_sq": zeros_like(p)}

    def _state_keys(self, group):
        return "exp_avg", "exp_avg_sq"

    def _update(self, group, params, grads, exp_avgs, exp_avg_sqs):
        steps = []
        for p in params:
            self.state[p]["step"] += 1  # a plain int, as PyTorch keeps it
            steps.append(self.state[p]["step"])
        beta1, beta2 = group["betas"]
        sparse_adam(params, grads, exp_avgs, exp_avg_sqs, steps, eps=group["eps"], beta1=beta1, beta2=beta2,
                    lr=_to_scalar(group["lr"]), maximize=group.get("maximize", False))


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps, beta1, beta2, lr, maximize):
    """Functional SparseAdam: updates ``params``, ``exp_avgs`` and ``exp_avg_sqs`` in place at the entries of the
    sparse ``grads`` (coalesced first: the update is not linear in the gradient)."""
    for param, grad, exp_avg, exp_avg_sq, step in zip(params, grads, exp_avgs, exp_avg_sqs, state_steps):
        grad = (-grad if maximize else grad).coalesce()
        values = grad._values()
        if values.numel() == 0:
            continue
        where = tuple(grad._indices())
        # old <- b * old + (1 - b) * new, written as old += (1 - b) * (new - old) at the named entries
        old_avg = exp_avg[where]
        avg_step = (values - old_avg).mul_(1 - beta1)
        exp_avg.index_put_(where, avg_step, accumulate=True)
        old_sq = exp_avg_sq[where]
        sq_step = values.pow(2).sub_(old_sq).mul_(1 - beta2)
        exp_avg_sq.index_put_(where, sq_step, accumulate=True)
        # the new moments of those entries, from the same sums PyTorch forms (not read back from the state)
        numer = avg_step.add_(old_avg)
        denom = sq_step.add_(old_sq).sqrt_().add_(eps)
        step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        param.index_put_(where, -step_size * numer.div_(denom), accumulate=True)
