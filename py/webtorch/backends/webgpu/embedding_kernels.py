"""WGSL kernels of the embedding primitives: row gather (embedding_gather.wgsl), the weight gradient as a
compare-and-swap scatter-add (embedding_backward.wgsl, with embedding_count.wgsl for scale_grad_by_freq),
and embedding_renorm_ (embedding_count.wgsl marks the named rows, embedding_renorm.wgsl rescales them)."""
import struct

from ... import _dtype as D
from . import creation, index_kernels
from .elementwise_kernels import cast, copy_
from .index_kernels import index32
from .kernel_launch import dense, grid256, pack, source


def embedding(rec, weight, indices):
    if weight.dtype is D.float16:  # the kernel moves 32-bit words (int64 runs on the host: host_rules.py)
        return cast(rec, embedding(rec, cast(rec, weight, D.float32), indices), D.float16)
    indices, _ = index_kernels.check_index(rec, indices, weight.shape[0], 0, False, "embedding")
    dim = weight.shape[1]
    out = rec.new(indices.shape + (dim,), weight.dtype)
    total = out.numel
    if total:
        idx = dense(rec, index32(rec, indices), offset_ok=True)
        groups, width = grid256(total)
        words = [(total, dim, width, 0), (weight.strides[0], weight.strides[1], weight.offset, idx.offset)]
        rec.record_kernel("embedding_gather", source("embedding_gather"), pack(words), groups,
                          [weight.st.buf, idx.st.buf, out.st.buf], [weight.st.buf, idx.st.buf], [out.st.buf])
    return out


def _row_counts(rec, idx, num_weights):
    """int32 (num_weights,) occurrences of each row among the (contiguous) indices idx."""
    counts = creation.full(rec, (num_weights,), 0, D.int32)
    n = idx.numel
    if n:
        groups, width = grid256(n)
        rec.record_kernel("embedding_count", source("embedding_count"), pack([(n, width, idx.offset, 0)]),
                          groups, [idx.st.buf, counts.st.buf], [idx.st.buf], [counts.st.buf])
    return counts


def embedding_backward(rec, g, indices, num_weights, padding_idx, scale_grad_by_freq):
    if g.dtype is D.float16:
        return cast(rec, embedding_backward(rec, cast(rec, g, D.float32), indices, num_weights, padding_idx,
                                            scale_grad_by_freq), D.float16)
    indices, _ = index_kernels.check_index(rec, indices, num_weights, 0, False, "embedding_backward")
    dim = g.shape[-1]
    out = creation.full(rec, (num_weights, dim), 0.0, D.float32)
    total = indices.numel * dim
    if total:
        idx = dense(rec, index32(rec, indices), offset_ok=True)
        gc = dense(rec, g)
        counts = _row_counts(rec, idx, num_weights) if scale_grad_by_freq else idx
        groups, width = grid256(total)
        words = [(total, dim, width, -1 if padding_idx is None else int(padding_idx)), (idx.offset, 0, 0, 0)]
        rec.record_kernel("embedding_backward",
                          source("embedding_backward", SCALE_BY_FREQ=bool(scale_grad_by_freq)), pack(words),
                          groups, [gc.st.buf, idx.st.buf, counts.st.buf, out.st.buf],
                          [gc.st.buf, idx.st.buf, counts.st.buf], [out.st.buf])
    return out


def embedding_renorm_(rec, weight, indices, max_norm, norm_type):
    if weight.dtype is D.float16:
        w32 = cast(rec, weight, D.float32)
        embedding_renorm_(rec, w32, indices, max_norm, norm_type)
        copy_(rec, weight, w32)
        return weight
    num = weight.shape[0]
    indices, _ = index_kernels.check_index(rec, indices, num, 0, False, "embedding")
    if not indices.numel or not num:
        return weight
    counts = _row_counts(rec, dense(rec, index32(rec, indices), offset_ok=True), num)
    groups, width = grid256(num)
    fbits = struct.unpack("<2i", struct.pack("<2f", float(max_norm), float(norm_type)))
    words = [(num, weight.shape[1], width, 0), (weight.strides[0], weight.strides[1], weight.offset, 0),
             fbits + (0, 0)]
    rec.record_kernel("embedding_renorm", source("embedding_renorm"), pack(words), groups,
                      [counts.st.buf, weight.st.buf], [counts.st.buf, weight.st.buf], [weight.st.buf])
    return weight
