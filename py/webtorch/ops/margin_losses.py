"""Margin losses beyond ops/loss.py: multilabel_margin_loss (a Node, as PyTorch's kernel) and
triplet_margin_with_distance_loss (composed in Python, as PyTorch composes it)."""
from .. import _dtype as D
from ..autograd.graph import Node, apply_op, recording
from .creation import arange
from .loss import reduction_name, reduce_loss, _host_reduce
from .normalization import pairwise_distance
from .where_clamp import minimum, where


def _multilabel_pairs(x, target):
    """For (N, C) scores and (N, C) class lists ending at the first -1: the hinge terms z[n, j, i] =
    1 - x[n, y_j] + x[n, i] and the mask of pairs (valid target j, non-target class i) that count."""
    c = x.shape[1]
    # a target slot is valid while no -1 has been seen before it (cumsum of the -1 marks is still 0)
    valid = (target < 0).long().cumsum(1) == 0
    onehot = (where(valid, target, 0).unsqueeze(2) == arange(c, device=x.device)) & valid.unsqueeze(2)  # (N, T, C)
    is_target = onehot.any(1)
    x_y = where(onehot, x.unsqueeze(1), 0.0).sum(2)  # (N, T): the score of each target class
    z = 1 - x_y.unsqueeze(2) + x.unsqueeze(1)
    pairs = valid.unsqueeze(2) & ~is_target.unsqueeze(1)
    return z, pairs, onehot


class MultilabelMarginLossBackward0(Node):
    @staticmethod
    def forward(ctx, input, target, reduction):
        c = input.shape[-1] if input.dim() else 1
        x = input.reshape(-1, c)
        z, pairs, onehot = _multilabel_pairs(x, target.reshape(x.shape))
        active = pairs & (z > 0)
        loss = where(active, z, 0.0).sum((1, 2)) / c
        if recording(ctx):
            ctx.meta = (active, onehot, tuple(input.shape), c, reduction)
        if reduction == "none":
            return loss.reshape(input.shape[:-1] if input.dim() == 2 else ())
        return reduce_loss(loss, reduction)

    @staticmethod
    def backward(ctx, g):
        active, onehot, shape, c, reduction = ctx.meta
        n = active.shape[0]
        if reduction == "none":
            g = g.reshape(n, 1)
        elif reduction == "mean":
            g = g / n
        act = active.to(g.dtype)
        # d z[j, i] / d x[i] = 1 and d z[j, i] / d x[y_j] = -1, for the active pairs
        per_target = act.sum(2)
        gx = act.sum(1) - where(onehot, per_target.unsqueeze(2), 0.0).sum(1)
        return (gx * g / c).reshape(shape), None


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Per sample: sum over target classes y_j (the entries before the first -1) and non-target classes i of
    max(0, 1 - (x[y_j] - x[i])), divided by C."""
    red = reduction_name(reduction, size_average, reduce)
    nd = input.dim()
    if nd > 2 or (nd == 1 and input.shape[0] == 0) or (nd == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if target.dtype != D.int64:
        from .._dtype import scalar_type_name
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(target.dtype)}")
    c = input.shape[-1] if nd else 1
    known = target._be.known_range(target._data) if target.numel() else (0, 0)
    if not (known is not None and -1 <= known[0] and known[1] < c) and \
            _host_reduce((target < -1) | (target >= c), "any"):
        raise RuntimeError("argument #2 'target' is out of range")
    return apply_op(MultilabelMarginLossBackward0, input, target, red)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with any distance function (default: pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    return reduce_loss((margin + dist_pos - dist_neg).clamp_min(0), reduction)


FUNCTIONAL = {"multilabel_margin_loss": multilabel_margin_loss,
              "triplet_margin_with_distance_loss": triplet_margin_with_distance_loss}
