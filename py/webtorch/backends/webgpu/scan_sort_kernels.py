"""WGSL kernels of scans (cumulative), small-row sort/topk and searchsorted.

Functions of the device's Recorder (recorder.py), bound by WebGPUBackend (backend.py). ``cumulative`` is one
dispatch of webgpu-shaders/scan_cumulative.wgsl (a workgroup scan per row, or an invocation per row when rows
are short); ``sort``/``topk`` one dispatch of
sort_bitonic.wgsl for rows up to SORT_MAX_N elements (longer rows take the counted host path);
``searchsorted`` one dispatch of sort_searchsorted.wgsl. All stay lazy. int64 values run the same kernels with
64-bit value functions (``kernel_source``); the kernels write int32 indices, widened to int64 by one cast.
"""
import struct

from ... import _dtype as D
from . import binding_windows, block_split, codegen, creation, dtypes as T, wgsl_loader
from .block_split import Out
from .dtypes import DEVICE_ITEMSIZE
from .elementwise_kernels import cast, contiguous
from .handles import View
from .index_bounds import keep_bounds
from .kernel_launch import MAX_RANK, dims, source
from .wgsl_ops import helper_sources

SORT_MAX_N = 2048
SEQUENTIAL_MAX = 32  # rows up to this long are scanned by one invocation each
SCAN_TYPES = {D.float32: "f32", D.int32: "i32", D.int64: T.I64, D.uint32: "u32", D.bool_: "u32", D.uint8: "i32",
      D.int8: "i32", D.int16: "i32"}
# the value functions of each kernel for int64 (two's complement vec2<u32>): no NaN, signed 64-bit order/arithmetic
_I64_VALUES = {
    "scan_cumulative": ("""fn is_nan(v: T) -> bool { return false; }
fn to_f32(v: T) -> f32 { return 0.0; }
fn from_f32(v: f32) -> T { return T(); }
fn right_wins(l: T, r: T) -> bool { return select(!wt_i64_lt(l, r), !wt_i64_lt(r, l), OP == 3u); }
fn combine(l: T, r: T) -> T {
  switch OP {
    case 0u: { return wt_i64_add(l, r); }
    case 1u: { return wt_i64_mul(l, r); }
    default: { return select(l, r, right_wins(l, r)); }
  }
}""", ("wt_i64_lt", "wt_i64_add", "wt_i64_mul")),
    "sort_bitonic": ("fn is_nan(v: T) -> bool { return false; }\nfn less(a: T, b: T) -> bool { return wt_i64_lt(a, b); }",
                     ("wt_i64_lt",)),
    "sort_searchsorted": ("fn past(s: T, v: T) -> bool { return select(wt_i64_lt(s, v), !wt_i64_lt(v, s), RIGHT); }",
                          ("wt_i64_lt",)),
}
_SOURCES = {}


def kernel_source(name, **values):
    """Kernel ``name`` specialized; its int64 variant (T = vec2<u32>) with the 64-bit value functions."""
    if values.get("T") != T.I64:
        return source(name, **values)
    key = (name,) + tuple(sorted(values.items()))
    s = _SOURCES.get(key)
    if s is None:
        fns, helpers = _I64_VALUES[name]
        s = _SOURCES[key] = wgsl_loader.with_values(source(name, **values), helper_sources(helpers) + "\n" + fns)
    return s
_OPS = {"sum": 0, "prod": 1, "logsumexp": 2, "max": 3, "min": 4}


def _narrow(v, dim, start, length):
    """View v restricted to [start, start + length) along dim."""
    return View(v.st, v.shape[:dim] + (length,) + v.shape[dim + 1:], v.strides, v.offset + start * v.strides[dim])


def _row_geometry(x, out, dim):
    """Uniform rows [0]..[7] minus row 0's first words: (x offset, x stride, out offset, out stride) and the
    sizes / x strides / out strides of the dims other than ``dim``."""
    keep = [d for d in range(len(x.shape)) if d != dim]
    return ((x.offset, x.strides[dim], out.offset, out.strides[dim]) + dims([x.shape[d] for d in keep])
            + dims([x.strides[d] for d in keep]) + dims([out.strides[d] for d in keep])), len(keep)


def _scan_dummy(rec):
    """A tiny int32 buffer bound as the unused index output of the value-only scans."""
    d = rec.scratch.get("scan_dummy")
    if d is None:
        d = rec.scratch["scan_dummy"] = rec.new((1,), D.int32)
    return d


_ROW_HINT = "smaller tensors (fewer rows), or a shorter dim to scan or sort"


def _by_rows(rec, fn, ins, dim, outs, name):
    """Run a row primitive along ``dim`` in blocks of rows when a tensor it binds is past one binding
    (block_split.py); None when none is. ``ins``: the inputs shaped as the rows; ``outs``: (shape, dtype)."""
    axes, kept = block_split.kept_axes(ins[0].shape, dim)
    ins = [(v, kept) for v in ins]
    outs = [Out(shape, dt, kept) for shape, dt in outs]
    if not block_split.needed(ins, outs, rec.limits):
        return None
    return block_split.in_blocks(rec, fn, ins, outs, axes, name, "row", _ROW_HINT)


def cumulative(rec, op, h, dim, dtype, reverse=False):
    if h.shape and h.shape[dim] * _scan_itemsize(op, dtype) > rec.limits.binding_size() - binding_windows.ALIGN:
        return _long_rows(rec, op, h, dim, dtype, reverse)
    split = _by_rows(rec, lambda h: cumulative(rec, op, h, dim, dtype, reverse), [h], dim,
                     [(h.shape, dtype)] + ([(h.shape, D.int64)] if op in ("max", "min") else []), f"cum{op}")
    if split is not None:
        return split
    x = h if h.dtype is dtype else cast(rec, h, dtype)
    out = rec.new(h.shape, dtype)
    L = h.shape[dim]
    # a workgroup scans its row 256 elements per step of 10 loop iterations (limits.py; measured on
    # lavapipe: the Hillis-Steele loop runs 8 times and counts once more on exit): a longer row is
    # scanned in segments, each then combined with the running value where the one before it ended
    seg = L if L <= SEQUENTIAL_MAX else max(256, rec.limits.loop_trips() // 10 * 256)
    # a float32 sum in segments: each segment starts in the kernel from the float-float pair where the one before
    # it ended, its low words kept in an int32 buffer bound where max/min bind their indices
    compensated = op == "sum" and dtype is D.float32
    paired = compensated and L > seg
    idx = rec.new(h.shape, D.int32) if op in ("max", "min") or paired else None
    if h.numel:
        starts = list(range(0, L, seg))
        prev = None
        for s0 in (reversed(starts) if reverse else starts):
            part = [_narrow(v, dim, s0, min(seg, L - s0)) if v is not None else None for v in (x, out, idx)]
            _scan_dispatch(rec, op, *part, dim, dtype, reverse, carry=paired and prev is not None, store_lo=paired)
            if prev is not None and not compensated:
                _scan_carry(rec, op, part[1], part[2], prev, s0)
            edge = 0 if reverse else part[1].shape[dim] - 1  # where this segment ends in scan order
            prev = [_narrow(v, dim, edge, 1) if v is not None else None for v in part[1:]]
        if dtype in T.SMALL_INTS and op in ("sum", "prod"):  # the scan ran in i32: wrap
            rec.ew("copy", [out], dtype, dtype, out.shape, out=out)
    if paired:
        return out
    return (out, cast(rec, idx, D.int64)) if idx is not None else out


def _scan_itemsize(op, dtype):
    """Bytes per element of a scan's widest result: max/min's int64 indices, else its values."""
    return 8 if op in ("max", "min") else max(DEVICE_ITEMSIZE[dtype], 4)


def _long_rows(rec, op, h, dim, dtype, reverse):
    """The scan of rows longer than one binding shows: segments of the rows, each scanned as a tensor of its own
    (in blocks of rows: block_split.py), then combined with the running value where the segment before it (in scan
    order) ended, as the kernel's own segments are. A float32 sum's carry adds one float32 rounding per segment
    (tens of millions of elements each)."""
    L = h.shape[dim]
    seg = max(1, (rec.limits.binding_size() - binding_windows.ALIGN) // _scan_itemsize(op, dtype))
    out = rec.new(h.shape, dtype)
    idx = rec.new(h.shape, D.int64) if op in ("max", "min") else None
    starts = range(0, L, seg)
    prev = None
    for s0 in (reversed(starts) if reverse else starts):
        n = min(seg, L - s0)
        r = cumulative(rec, op, _narrow(h, dim, s0, n), dim, dtype, reverse)
        part, part_i = r if idx is not None else (r, None)
        if prev is not None:
            _scan_carry(rec, op, part, part_i, prev, s0)
        elif part_i is not None and s0:
            rec.ew("add", [part_i, ("c", s0)], D.int64, D.int64, part_i.shape, out=part_i)
        edge = 0 if reverse else n - 1  # where this segment ends in scan order
        prev = [_narrow(v, dim, edge, 1) if v is not None else None for v in (part, part_i)]
        for whole, v in ((out, part), (idx, part_i)):
            if v is not None:
                rec.ew("copy", [v], v.dtype, v.dtype, v.shape, out=_narrow(whole, dim, s0, n))
    return out if idx is None else (out, idx)


def _scan_dispatch(rec, op, x, out, idx, dim, dtype, reverse, carry=False, store_lo=False):
    """One scan_cumulative.wgsl dispatch over views x -> out (and idx: positions within these views, or the low
    words of a compensated sum: ``store_lo`` writes them, ``carry`` starts from the pair before the segment)."""
    L = x.shape[dim]
    rows = x.numel // L
    geom, rank = _row_geometry(x, out, dim)
    seq = L <= SEQUENTIAL_MAX
    words = (rows, L, rank, 1 if reverse else 0) + geom
    ibuf = (idx if idx is not None else _scan_dummy(rec)).st.buf
    writes = [out.st.buf] + ([idx.st.buf] if idx is not None else [])
    src = kernel_source("scan_cumulative", T=SCAN_TYPES[dtype], FLOAT=dtype is D.float32, OP=f"{_OPS[op]}u",
                        SEQUENTIAL=seq, CARRY=carry, STORE_LO=store_lo)
    rec.record_kernel(f"scan_{op}", src, struct.pack("<32I", *words),
                      codegen.grid(-(-rows // 256) if seq else rows, rec.limits),
                      [x.st.buf, out.st.buf, ibuf], [x.st.buf], writes)


def _scan_carry(rec, op, out, idx, prev, s0):
    """Combine the scanned segment ``out`` (``idx``: its positions, from 0) with the running value
    ``prev`` = (value, index) where the previous segment ended, in place."""
    dt = out.dtype
    carry, carry_i = prev
    if op in ("sum", "prod", "logsumexp"):
        name = {"sum": "add", "prod": "mul", "logsumexp": "logaddexp"}[op]
        rec.ew(name, [carry, out], dt, dt, out.shape, out=out)
        return
    rec.ew("add", [idx, ("c", s0)], D.int32, idx.dtype, idx.shape, out=idx)
    # the segment's value wins ties (the later one in scan order) and NaN wins, as in the kernel
    wins = rec.ew("ge" if op == "max" else "le", [out, carry], dt, D.bool_, out.shape)
    if dt is D.float32:
        nan_r = rec.ew("isnan", [out], dt, D.bool_, out.shape)
        num_l = rec.ew("logical_not", [rec.ew("isnan", [carry], dt, D.bool_, carry.shape)],
                       D.bool_, D.bool_, carry.shape)
        wins = rec.ew("logical_or", [nan_r, rec.ew("logical_and", [num_l, wins], D.bool_, D.bool_, out.shape)],
                      D.bool_, D.bool_, out.shape)
    rec.ew("where", [wins, idx, carry_i], D.int32, idx.dtype, idx.shape, out=idx)
    rec.ew("where", [wins, out, carry], dt, dt, out.shape, out=out)


def sortable(h, dim):
    """Whether the bitonic kernel sorts h's rows along dim (a dtype it knows, rows up to SORT_MAX_N long);
    else the host sorts (host_rules.py)."""
    return h.dtype in SCAN_TYPES and len(h.shape) <= MAX_RANK and h.shape[dim] <= SORT_MAX_N


def _sorted_rows(rec, h, dim, descending, k):
    """(values, int64 indices) of the first k of each row sorted along dim."""
    L = h.shape[dim]
    shape = h.shape[:dim] + (k,) + h.shape[dim + 1:]
    out = rec.new(shape, h.dtype)
    idx = rec.new(shape, D.int32)
    rows = h.numel // L if L else 0
    if rows and k:
        n = 2
        while n < L:
            n *= 2
        geom, rank = _row_geometry(h, out, dim)
        words = (rows, L, rank, k) + geom + (n, 0, 0, 0)
        src = kernel_source("sort_bitonic", T=SCAN_TYPES[h.dtype], FLOAT=h.dtype is D.float32, DESCENDING=bool(descending))
        rec.record_kernel("sort_bitonic", src, struct.pack("<36I", *words), codegen.grid(rows, rec.limits),
                          [h.st.buf, out.st.buf, idx.st.buf], [h.st.buf], [out.st.buf, idx.st.buf])
    return out, cast(rec, idx, D.int64)


def sort(rec, h, dim, descending, stable):
    if not h.shape:
        return contiguous(rec, h), creation.full(rec, (), 0, D.int64)
    return topk(rec, h, h.shape[dim], dim, descending, True)


def topk(rec, h, k, dim, largest, sorted):
    if not h.shape:
        return contiguous(rec, h), creation.full(rec, (), 0, D.int64)
    shape = h.shape[:dim] + (k,) + h.shape[dim + 1:]
    split = _by_rows(rec, lambda h: topk(rec, h, k, dim, largest, sorted), [h], dim,
                     [(shape, h.dtype), (shape, D.int64)], "sort" if k == h.shape[dim] else "topk")
    if split is not None:
        return split
    return _sorted_rows(rec, h, dim, largest, k)


def search_type(a, b):
    """The dtype sort_searchsorted compares seq (dtype a) and values (dtype b) in, or None: the host searches
    (host_rules.py)."""
    if SCAN_TYPES.get(a) is None or SCAN_TYPES.get(b) is None:
        return None
    if SCAN_TYPES[a] == SCAN_TYPES[b]:
        return a
    return D.float32 if D.float32 in (a, b) else D.int64 if D.int64 in (a, b) else None


def searchsorted(rec, seq, values, right, out_int32):
    # rows: every values element of a 1-D seq, else the leading dims both share (the last dim is searched)
    lead = len(values.shape) if len(seq.shape) == 1 else len(values.shape) - 1
    axes, dims = tuple(values.shape[:lead]), tuple(range(lead))
    ins = [(seq, dims if len(seq.shape) > 1 else (None,) * lead), (values, dims)]
    outs = [Out(values.shape, D.int32 if out_int32 else D.int64, dims)]
    if block_split.needed(ins, outs, rec.limits):
        return block_split.in_blocks(rec, lambda s, v: searchsorted(rec, s, v, right, out_int32), ins, outs, axes,
                                     "searchsorted", "row", _ROW_HINT)
    if SCAN_TYPES[seq.dtype] != SCAN_TYPES[values.dtype]:  # compare in the promoted type, as PyTorch does
        common = search_type(seq.dtype, values.dtype)
        seq, values = cast(rec, seq, common), cast(rec, values, common)
    seq = seq if seq.is_contiguous() else contiguous(rec, seq)
    values = values if values.is_contiguous() else contiguous(rec, values)
    out = rec.new(values.shape, D.int32)
    n = values.numel
    if n:
        length = seq.shape[-1]
        m = 0 if len(seq.shape) == 1 else (values.shape[-1] if values.shape else 1)
        words = (n, m, length, 0, seq.offset, values.offset, 0, 0)
        t = SCAN_TYPES[seq.dtype]
        src = kernel_source("sort_searchsorted", T=t, FLOAT=t == "f32", RIGHT=bool(right))
        rec.record_kernel("sort_searchsorted", src, struct.pack("<8I", *words), codegen.grid(-(-n // 256), rec.limits),
                          [seq.st.buf, values.st.buf, out.st.buf], [seq.st.buf, values.st.buf], [out.st.buf])
        keep_bounds(out, (0, length))  # insertion points: index checks on them need no readback
    return out if out_int32 else cast(rec, out, D.int64)
