"""F.embedding_bag: sums, means or maxes of bags of embedding rows, composed of gather/scatter ops.

2-D input (bags of equal length) reduces (bags, length, dim) rows over the length dim. 1-D input finds each
element's bag by a searchsorted of its position in the offsets and reduces with index_add (scatter_reduce
picks max mode's elements). padding_idx elements are masked out (means divide by the non-padding count).
The webgpu device reads nothing back except for argument checks whose values the backend does not already
know (uploaded index tensors and searchsorted results carry their value ranges).
"""
import warnings

from .. import _dtype as D
from ..autograd.graph import apply_op
from ..autograd.grad_mode import no_grad
from .creation import arange, full
from ._core.dispatch import check_same_device
from .embedding import EmbeddingBackward0, _check_indices, embedding_renorm_
from .sorting import searchsorted
from . import publish


def _check_args(input, weight, offsets, mode, scale_grad_by_freq, sparse, per_sample_weights):
    """PyTorch's Python-level checks, in its order."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights (torch.Size({list(per_sample_weights.shape)})) is "
                         f"not None, then it must have the same shape as the input "
                         f"(torch.Size({list(input.shape)}))")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")


def _check_tensors(input, weight, offsets, per_sample_weights, padding_idx):
    """ATen's checks: dtypes, padding_idx's range (returned made non-negative)."""
    check_same_device(*(t for t in (input, weight, offsets, per_sample_weights) if t is not None))
    _check_indices(input, "embedding_bag")
    if offsets is not None:
        _check_indices(offsets, "embedding_bag")
    if not weight.dtype.is_floating_point:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the following scalar types: "
                           f"Half, BFloat16, Float, Double; but got {weight.type()} instead (while checking "
                           "arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {weight.type()} does not equal "
                           f"{per_sample_weights.type()} (while checking arguments for embedding_bag)")
    num = weight.shape[0]
    if padding_idx is None:
        return None
    if not isinstance(padding_idx, int) or isinstance(padding_idx, bool):
        raise TypeError(f"embedding_bag(): argument 'padding_idx' (position 9) must be int, not "
                        f"{type(padding_idx).__name__}")
    if not -num <= padding_idx < num:
        raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, but got "
                           f"{padding_idx}")
    return padding_idx % num


def _check_offsets(offsets, n, include_last_offset):
    if include_last_offset and not offsets.numel():
        raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if not offsets.numel():
        return
    known = offsets._be.known_range(offsets._data)
    if known is not None and known[0] == 0 and known[1] <= n:
        return  # sorted offsets start at their minimum 0: the webgpu device need not be waited on here
    first, last = offsets[0].item(), offsets[-1].item()
    if first != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {first}")
    if last > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of {last}")


def _check_range(flat, num):
    if not flat.numel():
        return
    known = flat._be.known_range(flat._data)
    if known is not None and 0 <= known[0] and known[1] < num:
        return
    bad = (flat < 0) | (flat >= num)
    if bad.any().item():
        pos = bad.to(D.int32).argmax().item()  # the first bad position, as PyTorch reports
        raise RuntimeError(f"Index {pos} of input takes value {flat[pos].item()} which is not in the valid range "
                           f"[0, {num})")


def _fixed_bags(rows, keep, mode, shape):
    """Bags of equal length (2-D input): plain reductions over the bag dim of (bags, length, dim) rows."""
    rows = rows.reshape(shape[0], shape[1], rows.shape[-1])
    if mode == "max":
        if keep is None:
            return rows.max(1)[0]
        keep = keep.reshape(shape[0], shape[1], 1)
        top = rows.masked_fill(keep.logical_not(), float("-inf")).max(1)[0]
        return top.masked_fill(keep.any(1).logical_not(), 0.0)  # a bag of padding only gives 0
    if keep is not None:
        keep = keep.reshape(shape[0], shape[1], 1).to(rows.dtype)
        rows = rows * keep
    total = rows.sum(1)
    if mode == "sum":
        return total
    return total / (shape[1] if keep is None else keep.sum(1).clamp(min=1))


def _offset_bags(rows, keep, mode, offsets, include_last_offset):
    """Bags given by offsets (1-D input). Each element's row of the (bags + 2, dim) result is the number of
    offsets <= its position: row 0 takes what lies before offsets[0] and row bags + 1 what lies at or past
    the last offset with include_last_offset; both are dropped. Every index tensor here comes straight from
    searchsorted, whose value range the webgpu backend knows, so the scatters check it without a read."""
    n, dim = rows.shape
    bags = offsets.shape[0] - (1 if include_last_offset else 0)
    slot = searchsorted(offsets, arange(n, dtype=offsets.dtype, device=rows.device), right=True)
    weight = None if keep is None else keep.to(rows.dtype).unsqueeze(1)
    if mode == "max":
        with no_grad():
            idx = slot.unsqueeze(1).expand(n, dim)
            cand = rows if keep is None else rows.masked_fill(weight == 0, float("-inf"))
            top = rows.new_zeros((bags + 2, dim)).scatter_reduce(0, idx, cand, "amax", include_self=False)
            not_top = cand != top.gather(0, idx)
            if keep is not None:
                not_top = not_top | (weight == 0)
            pos = arange(n, dtype=D.int32, device=rows.device).unsqueeze(1).expand(n, dim).masked_fill(not_top, n)
            first = full((bags + 2, dim), n, dtype=D.int32, device=rows.device)
            first = first.scatter_reduce(0, idx, pos, "amin", include_self=True)
            # PyTorch's max_indices: the first element holding each bag's maximum gets the gradient
            weight = ((pos == first.gather(0, idx)) & not_top.logical_not()).to(rows.dtype)
    if weight is not None:
        rows = rows * weight
    out = rows.new_zeros((bags + 2, dim)).index_add(0, slot, rows)
    if mode == "mean":
        size = rows.new_zeros((bags + 2,)).index_add(0, slot, rows.new_ones((n,)) if keep is None else
                                                     keep.to(rows.dtype))
        out = out / size.clamp(min=1).unsqueeze(1)
    return out[1:bags + 1]


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """F.embedding_bag: (bags, embedding_dim) sums / means / maxes of the rows of ``weight`` named by each bag
    of ``input`` (2-D: one bag per row; 1-D: bags start at ``offsets``)."""
    if weight.dtype is D.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.",
                      stacklevel=2)
        weight, input = input, weight
    _check_args(input, weight, offsets, mode, scale_grad_by_freq, sparse, per_sample_weights)
    if max_norm is not None:
        with no_grad():
            embedding_renorm_(weight, input.reshape(-1), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    padding_idx = _check_tensors(input, weight, offsets, per_sample_weights, padding_idx)
    flat = input.reshape(-1)
    n = flat.numel()
    if offsets is not None:
        _check_offsets(offsets, n, include_last_offset)
    _check_range(flat, weight.shape[0])
    rows = apply_op(EmbeddingBackward0, weight, flat, padding_idx, scale_grad_by_freq, sparse)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    keep = None if padding_idx is None else flat != padding_idx
    if input.dim() == 2:
        if input.shape[1] == 0:
            raise RuntimeError("step must be nonzero (embedding_bag: a 2-D input of shape "
                               f"{list(input.shape)} has bags of length 0; use 1-D input with offsets)")
        return _fixed_bags(rows, keep, mode, tuple(input.shape))
    return _offset_bags(rows, keep, mode, offsets, include_last_offset)


FUNCTIONAL = {"embedding_bag": embedding_bag}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
