"""scaled_dot_product_attention, composed of matmul, the fused softmax and dropout (PyTorch's math path).

Rows whose every key is masked out give zeros (PyTorch's _safe_softmax), not NaN.
"""
import math

from .creation import arange, zeros
from .dropout import dropout
from .where_clamp import where
from .softmax import softmax
from . import publish


def _repeat_heads(t, rep):
    """repeat_interleave(rep, dim=-3) as an expand + reshape (one copy)."""
    shape = tuple(t.shape)
    lead, h = shape[:-3], shape[-3]
    e = t.unsqueeze(-3).expand(lead + (h, rep) + shape[-2:])
    return e.reshape(lead + (h * rep,) + shape[-2:])


def _dtype_name(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half"}.get(dt.name, dt.name)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value over the last two dims; leading dims are batch dims.

    attn_mask: bool (True = attend) or float (added to the scores), broadcast to (..., L, S).
    is_causal: query i attends to keys j <= i (top-left aligned), cannot be combined with attn_mask.
    enable_gqa: key/value with fewer heads (dim -3) are shared by groups of query heads.
    """
    if query.dtype is not key.dtype or query.dtype is not value.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_dtype_name(query.dtype)} key.dtype: {_dtype_name(key.dtype)} and value.dtype: "
                           f"{_dtype_name(value.dtype)} instead.")
    if min(query.dim(), key.dim(), value.dim()) < 2:
        raise RuntimeError("Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
                           f"{query.dim()} key.dim: {key.dim()} and value.dim: {value.dim()} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if enable_gqa and query.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
        if hk != hq:
            key = _repeat_heads(key, hq // hk)
        if hv != hq:
            value = _repeat_heads(value, hq // hv)
    if query.shape[-2] == 0 or value.numel() == 0:
        # PyTorch's shortcut (no query row, or no value): zeros of (..., L, Ev), key's shape unchecked; every
        # input's sum times 0 is added, so gradients (zeros) reach all three and a NaN/inf anywhere gives NaN
        out = zeros(tuple(query.shape[:-1]) + (value.shape[-1],), dtype=query.dtype, device=query.device)
        return out + (query.sum() + key.sum() + value.sum()) * 0
    L, S = query.shape[-2], key.shape[-2]
    scores = query.matmul(key.transpose(-2, -1))
    if query.shape[-1]:  # a zero-width head's scores are the empty dot product, 0, whatever the scale
        scores = scores * (1.0 / math.sqrt(query.shape[-1]) if scale is None else scale)
    if is_causal:
        keep = arange(S, device=query.device).unsqueeze(0) <= arange(L, device=query.device).unsqueeze(1)
        scores = where(keep, scores, -math.inf)
    elif attn_mask is not None:
        scores = where(attn_mask, scores, -math.inf) if attn_mask.dtype.name == "bool" else scores + attn_mask
    if attn_mask is None:
        weights = softmax(scores, -1)  # causal rows always keep key 0: never empty
    else:
        # _safe_softmax: a row with no key to attend to gives zeros (and zero gradients) instead of NaN
        empty = (scores == -math.inf).all(-1, keepdim=True)
        weights = where(empty, 0.0, softmax(where(empty, 0.0, scores), -1))
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


FUNCTIONAL = {"scaled_dot_product_attention": scaled_dot_product_attention}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
