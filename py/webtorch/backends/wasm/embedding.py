"""Embedding on the wasm backend (wasm-kernels/embedding.c): embedding (row gather, any dtype), embedding_backward
(row scatter-add) and embedding_renorm_ (in place), the last two float32 / float64 (float16 and bfloat16 through
float32). Indices are checked against the table before any kernel reads a row."""
from ... import _dtype as D
from .operands import SUFFIX, Written, address, dense, first_out_of_range, float_instance, result


def _rows(ctx, indices, n):
    """indices as a contiguous int64 View, each checked to lie in [0, n)."""
    idx = dense(ctx, indices, D.int64)
    if first_out_of_range(ctx, idx, 0, n) is not None:
        raise IndexError("index out of range in self")
    return idx


def embedding(ctx, weight, indices):
    V, dim = weight.shape
    idx = _rows(ctx, indices, V)
    wc = dense(ctx, weight)
    out = ctx.new(tuple(indices.shape) + (dim,), weight.dtype)
    ctx.call("embedding", wc.addr, idx.addr, out.addr, idx.numel, dim * weight.dtype.itemsize)
    return out


def embedding_backward(ctx, g, indices, num_weights, padding_idx, scale_grad_by_freq):
    ct = float_instance(g.dtype)
    idx = _rows(ctx, indices, num_weights)
    dim = g.shape[-1]
    gc = dense(ctx, g, ct)
    gw = ctx.new((num_weights, dim), ct)
    counts = ctx.new((num_weights,), D.int32) if scale_grad_by_freq else None
    ctx.call("embedding_backward_" + SUFFIX[ct], gc.addr, idx.addr, gw.addr, address(counts),
             idx.numel, num_weights, dim, -1 if padding_idx is None else padding_idx)
    return result(ctx, gw, g.dtype)


def embedding_renorm_(ctx, weight, indices, max_norm, norm_type):
    ct = float_instance(weight.dtype)
    idx = _rows(ctx, indices, weight.shape[0])
    w = Written(ctx, weight, ct)
    ctx.call("embedding_renorm_" + SUFFIX[ct], w.view.addr, idx.addr, idx.numel, weight.shape[1], float(max_norm),
             float(norm_type))
    w.done(ctx)
    return weight
