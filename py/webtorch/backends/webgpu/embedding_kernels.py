"""WGSL kernels of the embedding primitives: row gather (embedding_gather.wgsl), the weight gradient as a
compare-and-swap scatter-add (embedding_backward.wgsl, with embedding_count.wgsl for scale_grad_by_freq),
and embedding_renorm_ (embedding_count.wgsl marks the named rows, embedding_renorm.wgsl rescales them)."""
import struct

from ... import _dtype as D
from . import binding_windows, creation, index_kernels
from .elementwise_kernels import cast, copy_
from .handles import View
from .index_kernels import index32
from .kernel_launch import dense, grid256, pack, source


def embedding(rec, weight, indices):
    if weight.dtype is D.float16:  # the kernel moves 32-bit words (int64 runs on the host: host_rules.py)
        return cast(rec, embedding(rec, cast(rec, weight, D.float32), indices), D.float16)
    indices, _ = index_kernels.check_index(rec, indices, weight.shape[0], 0, False, "embedding")
    num, dim = weight.shape
    out = rec.new(indices.shape + (dim,), weight.dtype)
    if out.numel:
        idx = _flat(dense(rec, index32(rec, indices), offset_ok=True))
        for (p0, p1), (r0, r1) in _blocks(out, weight, idx.numel, dim, rec.limits):
            (w, i, o), bound = binding_windows.bind([binding_windows.narrowed(weight, 0, r0, r1),
                                                     binding_windows.narrowed(idx, 0, p0, p1),
                                                     View(out.st, (p1 - p0, dim), (dim, 1), p0 * dim)])
            total = o.numel
            groups, width = grid256(total, rec.limits)
            words = [(total, dim, width, o.offset), (weight.strides[0], weight.strides[1], w.offset - r0 * weight.strides[0],
                                              i.offset), (r0, r1, 0, 0)]
            rec.record_kernel("embedding_gather", source("embedding_gather"), pack(words), groups, bound,
                              [weight.st.buf, idx.st.buf], [out.st.buf])
    return out


def _flat(h):
    """A contiguous view as one dimension."""
    return View(h.st, (h.numel,), (1,), h.offset)


def _blocks(table, weight, n, dim, limits):
    """[((first position, end), (first row, end))]: the launches of an embedding kernel over n positions (rows of
    the (n, dim) ``table``: the gathered output or the incoming gradient) and the rows of ``weight`` (the table or
    its gradient), each side in runs that fit one binding (binding_windows.py); one launch when both fit."""
    positions = [(0, n)] if binding_windows.fits([table]) else binding_windows.row_ranges(n, dim * 4, limits)
    rows = [(0, weight.shape[0])] if binding_windows.fits([weight]) else \
        binding_windows.row_ranges(weight.shape[0], abs(weight.strides[0]) * 4, limits)
    return [(p, r) for p in positions for r in rows]


def _row_counts(rec, idx, num_weights):
    """int32 (num_weights,) occurrences of each row among the (contiguous) indices idx."""
    counts = creation.full(rec, (num_weights,), 0, D.int32)
    n = idx.numel
    if n:
        groups, width = grid256(n, rec.limits)
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
    n = indices.numel
    if n * dim:
        idx = _flat(dense(rec, index32(rec, indices), offset_ok=True))
        gc = dense(rec, g)
        gc = View(gc.st, (n, dim), (dim, 1), 0)
        counts = _row_counts(rec, idx, num_weights) if scale_grad_by_freq else idx
        pad = -1 if padding_idx is None else int(padding_idx)
        src = source("embedding_backward", SCALE_BY_FREQ=bool(scale_grad_by_freq))
        for (p0, p1), (r0, r1) in _blocks(gc, out, n, dim, rec.limits):
            (gv, i, c, o), bound = binding_windows.bind([
                binding_windows.narrowed(gc, 0, p0, p1), binding_windows.narrowed(idx, 0, p0, p1), _flat(counts),
                binding_windows.narrowed(out, 0, r0, r1)])
            total = gv.numel
            groups, width = grid256(total, rec.limits)
            words = [(total, dim, width, pad), (i.offset, r0, r1, o.offset - r0 * dim), (gv.offset, 0, 0, 0)]
            rec.record_kernel("embedding_backward", src, pack(words), groups, bound,
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
    fbits = struct.unpack("<2i", struct.pack("<2f", float(max_norm), float(norm_type)))
    rows = [(0, num)] if binding_windows.fits([weight, counts]) else \
        binding_windows.row_ranges(num, max(abs(weight.strides[0]), 1) * 4, rec.limits)  # runs of a large table's rows
    for r0, r1 in rows:
        (c, w), bound = binding_windows.bind([binding_windows.narrowed(counts, 0, r0, r1),
                                              binding_windows.narrowed(weight, 0, r0, r1)])
        groups, width = grid256(r1 - r0, rec.limits)
        words = [(r1 - r0, weight.shape[1], width, c.offset), (weight.strides[0], weight.strides[1], w.offset, 0),
                 fbits + (0, 0)]
        rec.record_kernel("embedding_renorm", source("embedding_renorm"), pack(words), groups, bound,
                          [counts.st.buf, weight.st.buf], [weight.st.buf])
    return weight
