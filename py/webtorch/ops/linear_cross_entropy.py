"""F.linear_cross_entropy: cross_entropy(linear(input, linear_weight, linear_bias), target) (PyTorch 2.13).

options=None is the reference path (the two ops composed). With a LinearCrossEntropyOptions the batch is cut
into chunks and a chunk's (rows, C) logits are the only logits alive at once: a language-model head (C = a
vocabulary) trains without the (N, C) tensor. As PyTorch's chunked op: the mean/sum losses compute their
gradients during the forward (one pass over the chunks) and scale them by the upstream gradient in backward;
reduction='none' recomputes them chunk by chunk in backward, weighted by the upstream gradient of each row.
"""
import math
import warnings

from .. import _dtype as D
from ..autograd.graph import Node, apply_op
from .creation import arange
from .linalg import linear
from .loss import cross_entropy
from .shape import cat
from .softmax import softmax
from .where_clamp import where

_TWICE = ("linear_cross_entropy chunked backward called twice; retain_graph=True / double backward are not "
          "supported.")


def _row_weights(target, weight, ignore_index, acc_dtype):
    """(each row's class weight, 0 where ignored; the targets with ignored rows pointing at class 0)."""
    valid = target != ignore_index
    safe = where(valid, target, 0)
    keep = valid.to(acc_dtype)
    return (keep if weight is None else weight.to(acc_dtype)[safe] * keep), safe


def _chunked_pass(x, W, b, rows_of, chunk, acc_dtype, row_scale, want):
    """Per-row losses (N,) and, for the flags in ``want`` (input, weight, bias), the gradients of
    sum(row_scale * loss): one chunk of logits at a time. rows_of: _row_weights' pair; row_scale: a number or
    0-dim tensor, or one per row."""
    n, c = x.shape[0], W.shape[0]
    row_weight, safe = rows_of
    Wa = W.to(acc_dtype)
    ba = None if b is None else b.to(acc_dtype)
    classes = arange(c, device=x.device)
    losses, grad_x = [], []
    grad_W = Wa.new_zeros(Wa.shape) if want[1] else None
    grad_b = Wa.new_zeros((c,)) if want[2] else None
    for start in range(0, n, chunk):
        rows = slice(start, min(start + chunk, n))
        xa = x[rows].to(acc_dtype)
        logits = linear(xa, Wa, ba)
        lse = logits.logsumexp(1)
        picked = logits.gather(1, safe[rows].unsqueeze(1)).squeeze(1)
        losses.append((lse - picked) * row_weight[rows])
        if not any(want):
            continue
        per_row = getattr(row_scale, "dim", None) is not None and row_scale.dim() == 1
        scale = row_weight[rows] * (row_scale[rows].to(acc_dtype) if per_row else row_scale)
        g = (softmax(logits, 1) - (classes == safe[rows].unsqueeze(1)).to(acc_dtype)) * scale.unsqueeze(1)
        if want[0]:
            grad_x.append(g.matmul(Wa))
        if want[1]:
            grad_W.add_(g.T.matmul(xa))
        if want[2]:
            grad_b.add_(g.sum(0))
    loss = cat(losses) if losses else x.new_zeros((0,), dtype=acc_dtype)
    gx = (cat(grad_x) if grad_x else x.new_zeros(x.shape, dtype=acc_dtype)) if want[0] else None
    return loss, (gx, grad_W, grad_b)


def _cast(grads, like):
    return tuple(None if g is None else g.to(t.dtype) for g, t in zip(grads, like))


def _wants(ctx, b):
    needs = getattr(ctx, "needs_input_grad", None)
    if needs is None:
        return (False, False, False)
    return (needs[0], needs[1], b is not None and needs[3])


class LinearCrossEntropyBatchChunked(Node):
    """mean/sum: the gradients come out of the forward's pass and are scaled in backward."""

    @staticmethod
    def forward(ctx, x, W, target, b, weight, reduction, ignore_index, chunk, acc_dtype, allow_retain_graph):
        want = _wants(ctx, b)
        rows_of = _row_weights(target, weight, ignore_index, acc_dtype)
        # mean divides by the rows' total class weight, known before the pass (a device scalar: no readback)
        scale = 1.0 / rows_of[0].sum() if reduction == "mean" else 1.0
        loss, grads = _chunked_pass(x, W, b, rows_of, chunk, acc_dtype, scale, want)
        total = loss.sum() * scale
        if getattr(ctx, "needs_input_grad", None) is not None:
            ctx.grads = _cast(grads, (x, W, W if b is None else b))
            ctx.allow_retain_graph = allow_retain_graph
            ctx.present = (b is not None, weight is not None)
        return total.to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        grads = ctx.grads
        if grads is None:
            raise RuntimeError(_TWICE)
        if not ctx.allow_retain_graph:
            ctx.grads = None
        gx, gW, gb = (None if t is None else t * g for t in grads)
        has_b, has_w = ctx.present
        return (gx, gW, None) + ((gb,) if has_b else ()) + ((None,) if has_w else ())


class LinearCrossEntropyBatchChunkedNoReduction(Node):
    """reduction='none': the backward recomputes the chunked gradients weighted by each row's upstream grad."""

    @staticmethod
    def forward(ctx, x, W, target, b, weight, ignore_index, chunk, acc_dtype):
        loss, _ = _chunked_pass(x, W, b, _row_weights(target, weight, ignore_index, acc_dtype), chunk, acc_dtype,
                                1.0, (False,) * 3)
        if getattr(ctx, "needs_input_grad", None) is not None:
            ctx.save_for_backward(x, W, target, *([] if b is None else [b]), *([] if weight is None else [weight]))
            ctx.options = (b is not None, weight is not None, ignore_index, chunk, acc_dtype, _wants(ctx, b))
        return loss.to(x.dtype)

    @staticmethod
    def backward(ctx, g):
        has_b, has_w, ignore_index, chunk, acc_dtype, want = ctx.options
        saved = list(ctx.saved_tensors)
        x, W, target = saved[:3]
        b = saved[3] if has_b else None
        weight = saved[-1] if has_w else None
        _, grads = _chunked_pass(x, W, b, _row_weights(target, weight, ignore_index, acc_dtype), chunk, acc_dtype,
                                 g, want)
        gx, gW, gb = _cast(grads, (x, W, W if b is None else b))
        return (gx, gW, None) + ((gb,) if has_b else ()) + ((None,) if has_w else ())


def _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options):
    batched = input.dim() == 2
    x = input if batched else input.unsqueeze(0)
    t = target if batched else target.unsqueeze(0)
    n, d = x.shape
    c = linear_weight.shape[0]
    opts = options._adjust(num_batches=n, in_features=d, num_classes=c, dtype=input.dtype, device=input.device)
    acc = opts.acc_dtype
    if input.dtype is not acc and not (input.dtype in (D.float16, D.bfloat16) and acc is D.float32):
        raise RuntimeError("linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 inputs, but got "
                           f"{acc} acc_dtype and {input.dtype} inputs.")
    if reduction == "none":
        out = apply_op(LinearCrossEntropyBatchChunkedNoReduction, x, linear_weight, t, linear_bias, weight,
                       ignore_index, opts.batch_chunk_size, acc)
    else:
        out = apply_op(LinearCrossEntropyBatchChunked, x, linear_weight, t, linear_bias, weight, reduction,
                       ignore_index, opts.batch_chunk_size, acc, opts.allow_retain_graph)
    return out if batched else out.squeeze(0)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``; ``linear_weight`` of shape
    (C, d_1, ..., d_K, in_features) gives a K-dimensional loss. ``ignore_index`` None means -100 for class
    indices (it must stay None when ``target`` holds probabilities). ``options``: a
    :class:`~torch.nn.LinearCrossEntropyOptions` to compute in batch chunks without the whole logits (class
    indices, int64 targets, no label smoothing, no K dims; otherwise it warns and takes the reference path).

    Example::

        >>> loss = F.linear_cross_entropy(hidden, lm_head.weight, tokens, options=LinearCrossEntropyOptions())
    """
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}")
    num_batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions (in_features), "
                           f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, "
                           f"got {tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} requires"
                           f" batched input, (N, {in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunkable = (not out_features and reduction in ("mean", "sum", "none") and label_smoothing == 0.0
                     and target.dtype is D.int64)
        if chunkable:
            return _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index, options)
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                      "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, out_features == (). Got "
                      f"reduction={reduction!r}, label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}, tracing=False, linear_bias.shape="
                      f"{tuple(linear_bias.shape) if linear_bias is not None else None}.", stacklevel=2)
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


FUNCTIONAL = {"linear_cross_entropy": linear_cross_entropy}
