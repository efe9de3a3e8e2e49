"""Reductions of the webgpu device (reduce, arg_reduce): one reduce node per call, rows longer than one
invocation's loop budget (limits.py) split into chunks whose partials are reduced again."""
import functools

from ... import _dtype as D
from ..._geometry import contiguous_strides
from . import binding_windows, codegen, creation, dtypes as T, views
from .elementwise_kernels import cast, contiguous
from .handles import DeviceOp, Src, View
from .index_bounds import keep_bounds
from .recorder import numel

CHUNK_MIN = 1 << 15  # rows longer than this are reduced in two passes (more workgroups in flight)
CHUNK_LEN = 1 << 12
CPU_CHUNK_LEN = 1 << 9  # on a CPU adapter, rows longer than this are reduced in chunks of this length


def reduce(rec, op, h, dims, keepdim, dtype):
    T.check(dtype, rec.features)
    dims = tuple(dims) if dims else tuple(range(len(h.shape)))
    return _reduce(rec, op, h, dims, keepdim, dtype)


def _reduce(rec, op, h, dims, keepdim, dtype):
    big = binding_windows.is_big(h.st.buf)
    if big and not binding_windows.fits([h]):  # past one binding: halves, then their results combined
        if op in ("argmax", "argmin"):
            return _arg_reduce_long(rec, op, h, dims, keepdim)
        return binding_windows.reduce_in_halves(rec, _reduce, op, h, dims, keepdim, dtype)
    record = functools.partial(binding_windows.record_reduction, rec) if big else rec.record_node
    r_len = numel(tuple(h.shape[d] for d in dims))
    n_out = numel(h.shape) // r_len if r_len else 0
    # a CPU adapter reduces one output or chunk per invocation (barriers cost there), in chunks of at most
    # CPU_CHUNK_LEN (a pass per factor of it: serial sums stay short, as accurate as a tree's)
    cpu = rec.rt.cpu_adapter
    # loop iterations of one invocation (limits.py): a row per invocation, or per workgroup of WG
    per_thread = cpu or n_out >= 2048 or r_len <= 64
    budget = rec.limits.loop_trips() * (1 if per_thread else codegen.WG)
    if op in ("argmax", "argmin") and r_len > budget:
        return _arg_reduce_long(rec, op, h, dims, keepdim)
    if ((r_len > CPU_CHUNK_LEN if cpu else r_len > CHUNK_MIN and n_out < 64) or r_len > budget) and \
            op not in ("argmax", "argmin"):
        # split long rows: one workgroup (CPU: invocation) per (output, chunk), then reduce the partials
        chunk = CPU_CHUNK_LEN if cpu else max(CHUNK_LEN, -(-r_len // 1024))
        chunk = max(2, min(chunk, rec.limits.loop_trips() * (1 if cpu else codegen.WG)))
        n_chunks = -(-r_len // chunk)
        part = rec.new((n_out, n_chunks), dtype)
        record(DeviceOp("reduce", h.shape, Src(part.st.buf, part.strides, 0, dtype),
                             [Src(h.st.buf, h.strides, h.offset, h.dtype)],
                             {"op": "sum" if op == "mean" else op, "dims": dims, "dt": dtype,
                               "chunks": n_chunks, "chunk_len": chunk, "per_thread": cpu}))
        out = _reduce(rec, op, part, (1,), False, dtype) if op != "mean" else _mean_of_partials(rec, 
            part, r_len, dtype)
        if keepdim:
            shape = tuple((1 if d in dims else s) for d, s in enumerate(h.shape))
            return View(out.st, shape, contiguous_strides(shape), 0)
        return View(out.st, tuple(s for d, s in enumerate(h.shape) if d not in dims),
                    contiguous_strides(tuple(s for d, s in enumerate(h.shape) if d not in dims)), 0)
    out_shape = tuple((1 if d in dims else s) for d, s in enumerate(h.shape)) if keepdim else \
        tuple(s for d, s in enumerate(h.shape) if d not in dims)
    out = rec.new(out_shape, dtype)
    node = DeviceOp("argreduce" if op in ("argmax", "argmin") else "reduce", h.shape,
                Src(out.st.buf, out.strides, 0, dtype), [Src(h.st.buf, h.strides, h.offset, h.dtype)],
                {"op": op, "dims": dims, "dt": dtype, "per_thread": cpu})
    record(node)
    if op in ("argmax", "argmin") and r_len:
        keep_bounds(out, (0, r_len - 1))
    return out


def _arg_reduce_long(rec, op, h, dims, keepdim):
    """argmax/argmin over rows past one invocation's loop budget, from reductions that split: the
    extremum, then the first position holding it (a NaN, when the extremum is NaN, as PyTorch's)."""
    if len(dims) > 1:  # over every dim: positions of the flattened tensor
        flat = views.reshaped(contiguous(rec, h), (h.numel,))
        r = _arg_reduce_long(rec, op, flat, (0,), False)
        return views.reshaped(r, (1,) * len(h.shape)) if keepdim else r
    (d,) = dims
    ext = _reduce(rec, "amax" if op == "argmax" else "amin", h, dims, True, h.dtype)
    hit = rec.ew("eq", [h, ext], h.dtype, D.bool_, h.shape)
    if h.dtype.is_floating_point:
        both_nan = rec.ew("logical_and", [rec.ew("isnan", [h], h.dtype, D.bool_, h.shape),
                                          rec.ew("isnan", [ext], h.dtype, D.bool_, ext.shape)],
                          D.bool_, D.bool_, h.shape)
        hit = rec.ew("logical_or", [hit, both_nan], D.bool_, D.bool_, h.shape)
    pos = creation.arange(rec, 0, h.shape[d], 1, D.int32)
    pos = View(pos.st, h.shape, tuple(1 if i == d else 0 for i in range(len(h.shape))), 0)
    first = rec.ew("where", [hit, pos, ("c", h.shape[d])], D.int32, D.int32, h.shape)
    out = cast(rec, _reduce(rec, "amin", first, dims, keepdim, D.int32), D.int64)
    keep_bounds(out, (0, h.shape[d] - 1))
    return out


def _mean_of_partials(rec, part, r_len, dtype):
    out = rec.new((part.shape[0],), dtype)
    rec.record_node(DeviceOp("reduce", part.shape, Src(out.st.buf, out.strides, 0, dtype),
                         [Src(part.st.buf, part.strides, 0, dtype)],
                         {"op": "mean", "dims": (1,), "dt": dtype, "denom": r_len,
                           "per_thread": rec.rt.cpu_adapter}))
    return out


def arg_reduce(rec, op, h, dim, keepdim):
    if dim is None:
        r = _reduce(rec, op, h, tuple(range(len(h.shape))), False, D.int64)
        return views.reshaped(r, (1,) * len(h.shape)) if keepdim else r
    return _reduce(rec, op, h, (dim,), keepdim, D.int64)



