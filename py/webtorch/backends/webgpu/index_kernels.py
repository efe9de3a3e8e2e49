"""WGSL kernels of the indexing primitives (index, index_put_, gather, scatter_, nonzero, flip).

Functions of the device's Recorder (recorder.py), bound by WebGPUBackend (backend.py). Every index tensor is first
folded by fused elementwise ops into one int32 "linear offset" tensor (index * the indexed dim's stride,
negatives wrapped); then one dispatch of webgpu-shaders/index_take.wgsl (reads) or index_scatter.wgsl (writes,
atomics for the reductions) moves the data. Index ranges must be checked before anything is written (PyTorch
raises at the call): free when the index storage's bounds are known on the host (index_bounds.py), else one
flush and a readback of its min/max; nonzero reads back its count (its shape is data dependent). flip is a copy
through negative strides (the generated elementwise kernel).
int64 index tensors are read after that check through their low words (LIN bound as i32 with doubled strides and
offset: no copy) or folded into int32 offsets by the arithmetic above; int64 values are taken
as two words (vec2<u32>); they are scattered (no 64-bit atomics, and a word-wise store could mix duplicates) by
the int32 kernels when the values and any sums of them fit int32 (known bounds, else their range read back),
else on the host (counted).
"""
import itertools
import struct

from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from . import binding_windows, codegen, creation, device_checks, dtypes as T, reduce_kernels, transfer, views
from .elementwise_kernels import EXPANDED_WRITE, cast, contiguous, copy_, elementwise
from .fallback import host_fallback
from .handles import View
from .index_bounds import keep_bounds, known_bounds
from .kernel_launch import MAX_RANK, dims, source
from ..._geometry import expand_strides as broadcast_strides
from ..op_facts import reduce_identity

_TYPE = {D.float32: ("f32", 0), D.int32: ("i32", 1), D.int64: (T.I64, None), D.uint32: ("u32", 2),
         D.bool_: ("u32", 2), D.uint8: ("i32", 1), D.int8: ("i32", 1), D.int16: ("i32", 1)}
_MODES = {None: 0, "sum": 1, "mean": 1, "prod": 2, "amax": 3, "amin": 4}
_BOOL_MODES = {None: 0, "sum": 3, "prod": 4, "amax": 3, "amin": 4}  # or, and


def _bits(value, dtype):
    if dtype.is_floating_point:
        return struct.unpack("<I", struct.pack("<f", float(value)))[0]
    if dtype in T.SMALL_INTS:
        return T.wrap_int(int(value), dtype) & 0xFFFFFFFF
    return int(value) & 0xFFFFFFFF


def _low_words(lin, ls):
    """(offset, strides) at which the kernels' LIN (an i32 array) reads the offsets ``lin`` seen with strides ``ls``:
    an int64 lin (a range-checked index used as is) through the low word of each element (little-endian)."""
    w = 2 if lin.dtype is D.int64 else 1
    return lin.offset * w, tuple(s * w for s in ls)


def _dtype_range(dtype):
    """(lowest, highest) value of ``dtype`` (not of the i32 word a narrower integer is kept in: a value written
    there wraps into the dtype's range, so the i32 extremes would become 0 and -1)."""
    if dtype.is_floating_point:
        return float("-inf"), float("inf")
    if dtype is D.bool_:
        return 0, 1
    info = D.iinfo(dtype)
    return info.min, info.max


# ---- helpers -------------------------------------------------------------------------------------------
def _value_range(rec, h):
    """(min, max) of the non-empty integer view h: its storage's known bounds, else reduced on the device and
    read back (only int64 scatters and pooling of computed values need it, to stay on the device)."""
    known = known_bounds(h.st.buf, h.st.dtype)
    if known is not None:
        return known
    return (transfer.item(rec, reduce_kernels.reduce(rec, "amin", h, None, False, h.dtype)),
            transfer.item(rec, reduce_kernels.reduce(rec, "amax", h, None, False, h.dtype)))


def fits_int32(rec, terms):
    """Whether sums of values of integer views -- ``terms``: (view or Python int, count of its values in a sum) --
    are known to fit int32 (host-known bounds, else each view's range read back): then an int64 computation may
    run through an int32 kernel exactly (its result widened back)."""
    total = 0
    for h, count in terms:
        if isinstance(h, int):
            total += abs(h) * count
        elif h.numel:
            lo, hi = _value_range(rec, h)
            total += max(-lo, hi) * count
    return total <= (1 << 31) - 1


def index32(rec, h):
    """The int32 view a kernel binds for the range-checked integer index view h (int64: one narrowing cast to
    its low words, exact because the values were checked to lie within a 32-bit size)."""
    return cast(rec, h, D.int32) if h.dtype is D.int64 else h


def check_index(rec, idx, size, dim, negative, op):
    """(idx, whether negative values may occur): idx as is when the host knows its values lie in
    [-size, size) (negative) or [0, size) (index_bounds.py), else idx through a range check on the device
    that reports to the error word (device_checks.py: raised at the next read, naming ``op``) and clamps,
    so no kernel reads or writes out of bounds. Never a readback."""
    if not idx.numel:
        return idx, False
    lo_ok = -size if negative else 0
    known = known_bounds(idx.st.buf, idx.st.dtype)
    if known is not None and lo_ok <= known[0] and known[1] < size:
        return idx, known[0] < 0
    code = device_checks.code(op, device_checks.INDEX, dim)
    if known is not None and idx.is_whole():  # the bounds are values of this very view: raise now
        raise device_checks.error((code, known[0] if known[0] < lo_ok else known[1], size, 0), checked=False)
    checked = rec.ew("index_check", [idx, ("c", lo_ok), ("c", size - 1), ("c", code)], D.int32, D.int32,
                     idx.shape)
    keep_bounds(checked, (lo_ok, size - 1))
    return checked, negative


def check_classes(rec, h, n, ignore, op):
    if not h.numel:
        return h
    known = known_bounds(h.st.buf, h.st.dtype)
    if known is not None and 0 <= known[0] and known[1] < n:
        return h
    if known is not None and h.is_whole() and (ignore is None or not known[0] <= ignore <= known[1]):
        raise IndexError(f"Target {known[1] if known[1] >= n else known[0]} is out of bounds.")  # values of h
    ignore = -(1 << 31) if ignore is None or not -(1 << 31) <= ignore < 1 << 31 else ignore
    code = device_checks.code(op, device_checks.INDEX)
    return rec.ew("index_check", [h, ("c", 0), ("c", n - 1), ("c", code), ("c", ignore)], D.int32, h.dtype,
                  h.shape)


def _offsets(rec, idx, stride, size, wrap):
    """int32 linear offsets idx * stride (idx + size where negative, when ``wrap``): idx itself (int32 or int64)
    when no arithmetic is needed (no dispatch)."""
    if stride == 1 and not wrap:
        return idx
    lin = elementwise(rec, "mul", [idx, stride], D.int32)
    if wrap:
        neg = elementwise(rec, "lt", [idx, 0], D.int32)
        lin = elementwise(rec, "add", [lin, elementwise(rec, "mul", [neg, size * stride], D.int32)], D.int32)
    return lin


def _writable(rec, h):
    if any(st == 0 and s > 1 for s, st in zip(h.shape, h.strides)):
        raise RuntimeError(EXPANDED_WRITE)


def _advanced(rec, h, indices, op):
    """Geometry of h[indices]: (result shape, h strides per result dim, lin handle, lin strides per result
    dim), after range-checking every index."""
    idx_dims = [d for d, ix in enumerate(indices) if ix is not None]
    checked = [check_index(rec, indices[d], h.shape[d], k, True, op) for k, d in enumerate(idx_dims)]
    indices = list(indices)
    for d, (ix, _) in zip(idx_dims, checked):
        indices[d] = ix
    wraps = [w for _, w in checked]
    bshape = broadcast_shapes(*(indices[d].shape for d in idx_dims))
    lin = None
    for d, wrap in zip(idx_dims, wraps):
        term = _offsets(rec, indices[d], h.strides[d], h.shape[d], wrap)
        lin = term if lin is None else elementwise(rec, "add", [lin, term], D.int32)
    lstr = broadcast_strides(lin.shape, lin.strides, bshape)
    rest = [d for d in range(len(h.shape)) if d not in idx_dims]
    adjacent = idx_dims == list(range(idx_dims[0], idx_dims[-1] + 1))
    before = [d for d in rest if d < idx_dims[0]] if adjacent else []
    after = [d for d in rest if d not in before]
    shape = tuple(h.shape[d] for d in before) + bshape + tuple(h.shape[d] for d in after)
    xs = tuple(h.strides[d] for d in before) + (0,) * len(bshape) + tuple(h.strides[d] for d in after)
    ls = (0,) * len(before) + lstr + (0,) * len(after)
    return shape, xs, lin, ls


def _take(rec, x, x_offset, xs, lin, ls, shape):
    out = rec.new(shape, x.dtype)
    n = out.numel
    if n:
        flat = View(out.st, (n,), (1,), 0)
        if binding_windows.is_big(lin.st.buf):  # offsets past one binding: laid out as out is, cut as out is
            lin = cast(rec, View(lin.st, shape, ls, lin.offset), D.int32)
            ls = lin.strides
        lin_offset, ls = _low_words(lin, ls)
        flat_lin = View(lin.st, (n,), (1,), lin_offset)
        runs = [(0, n)] if binding_windows.fits([flat, flat_lin]) else \
            binding_windows.row_ranges(n, max(T.device_itemsize(x.dtype), 4), rec.limits)
        # x past one binding: a dispatch per window of it; out (and its offsets) past one: per run of it
        for (i0, i1), (bound, start, size) in itertools.product(runs, binding_windows.tiles(x)):
            (o, lv), (obound, lbound) = binding_windows.bind([binding_windows.narrowed(flat, 0, i0, i1),
                                                              binding_windows.narrowed(flat_lin, 0, i0, i1)])
            if lbound is not lin.st.buf:
                lin_offset = (lv.offset - i0) & 0xFFFFFFFF
            words = (i1 - i0, len(shape), (x_offset - start) & 0xFFFFFFFF, lin_offset) + dims(shape) + dims(xs) + \
                dims(ls) + (size, i0, o.offset, 0)
            rec.record_kernel("index_take", source("index_take", T=_TYPE[x.dtype][0]),
                              struct.pack("<32I", *words), codegen.grid(-(-(i1 - i0) // 256), rec.limits),
                              [bound, lbound, obound], [x.st.buf, lin.st.buf], [out.st.buf])
        keep_bounds(out, known_bounds(x.st.buf, x.st.dtype))  # every value taken is a value of x
    return out


def _scatter(rec, h, os, lin, ls, shape, src, mode):
    """One index_scatter dispatch over index space ``shape``: src a handle (strides over ``shape``) or a
    Python scalar."""
    n = 1
    for s in shape:
        n *= s
    if not n:
        return
    scalar = not isinstance(src, View)
    # scatter_'s src may be larger than the index in any dim: same rank, read through its own strides
    ss = (0,) * len(shape) if scalar else src.strides if len(src.shape) == len(shape) and all(
        a >= b for a, b in zip(src.shape, shape)) else broadcast_strides(src.shape, src.strides, shape)
    if binding_windows.is_big(lin.st.buf):  # offsets in a storage past one binding: this launch's own copy
        lin = cast(rec, View(lin.st, shape, ls, lin.offset), D.int32)
        ls = lin.strides
    if not scalar and binding_windows.is_big(src.st.buf):
        src = contiguous(rec, View(src.st, shape, ss, src.offset))
        ss = src.strides
    lin_offset, ls = _low_words(lin, ls)
    flat_lin = View(lin.st, (n,), (1,), lin_offset)
    flat_src = flat_lin if scalar else View(src.st, (n,), (1,), src.offset)
    runs = [(0, n)] if binding_windows.fits([flat_lin]) and binding_windows.fits([flat_src]) else \
        binding_windows.row_ranges(n, 4, rec.limits)
    # duplicates assigned (mode 0) from a tensor: the last one wins, as PyTorch's CPU (every run claims, then each
    # run resolves the claims it won, reading src through its own binding); a scalar writes one value whoever wins
    last_wins = mode == 0 and not scalar

    def launch(mode, n, first, window, out_offset, lo, so, buffers, reads, writes):
        words = (n, len(shape), _bits(src, h.dtype) if scalar else 0, window, out_offset & 0xFFFFFFFF, lo, so,
                 first) + dims(shape) + dims(os) + dims(ls) + dims(ss)
        rec.record_kernel("index_scatter", source("index_scatter", MODE=f"{mode}u",
                                                  KIND=f"{_TYPE[h.dtype][1]}u", SCALAR=scalar),
                          struct.pack("<40I", *words), codegen.grid(-(-n // 256), rec.limits), buffers, reads, writes)

    def bound_run(i0, i1):  # (lin offset, src offset, lin binding, src binding) of the run [i0, i1)
        (lv, sv), (lbound, sbound) = binding_windows.bind([binding_windows.narrowed(flat_lin, 0, i0, i1),
                                                          binding_windows.narrowed(flat_src, 0, i0, i1)])
        return (lin_offset if lbound is lin.st.buf else (lv.offset - i0) & 0xFFFFFFFF,
                0 if scalar else src.offset if sbound is src.st.buf else (sv.offset - i0) & 0xFFFFFFFF, lbound, sbound)

    # h past one binding: a dispatch per window of it; the index space (its offsets, src) past one: per run of it
    for bound, start, size in binding_windows.tiles(h):
        if not last_wins:
            for i0, i1 in runs:
                lo, so, lbound, sbound = bound_run(i0, i1)
                launch(mode, i1 - i0, i0, size, h.offset - start, lo, so, [bound, lbound, sbound],
                       [h.st.buf, lin.st.buf, flat_src.st.buf], [h.st.buf])
            continue
        claims = creation.full(rec, (size if size != 0xFFFFFFFF else h.st.numel,), 0, D.int32)
        for i0, i1 in runs:  # each claim is the index (+1) of the last element writing there, over every run
            lo, so, lbound, sbound = bound_run(i0, i1)
            launch(5, i1 - i0, i0, size, h.offset - start, lo, so, [claims.st.buf, lbound, sbound],
                   [claims.st.buf, lin.st.buf, flat_src.st.buf], [claims.st.buf])
        for i0, i1 in runs:  # ... then the run holding a claim's element writes its value (the lin slot: run length)
            _, so, _, sbound = bound_run(i0, i1)
            launch(6, claims.numel, i0, size, 0, i1 - i0, so, [bound, claims.st.buf, sbound],
                   [h.st.buf, claims.st.buf, flat_src.st.buf], [h.st.buf])
    if mode in (1, 2) and h.dtype in T.SMALL_INTS:  # the atomics summed/multiplied in i32: wrap
        rec.ew("copy", [h], h.dtype, h.dtype, h.shape, out=h)


def native_index(h, rank, *others, write=False):
    """Whether the kernels handle h: a dtype they know (to write: one that fits a 32-bit word), at most
    MAX_RANK dims, src handles on this device; else the host computes."""
    return h.dtype in _TYPE and not (write and h.dtype is D.int64) and rank <= MAX_RANK and all(
        isinstance(o, View) or o is None or isinstance(o, (bool, int, float)) for o in others)


# ---- the primitives -------------------------------------------------------------------------------------
def advanced_rank(h, indices):
    """The rank of h[indices] (advanced indexing), or None when no index is given (nothing for the kernels)."""
    idx_dims = [d for d, ix in enumerate(indices) if ix is not None]
    if not idx_dims:
        return None
    return len(h.shape) - len(idx_dims) + max(len(indices[d].shape) for d in idx_dims)


def index(rec, h, indices):
    indices = [transfer.on_device(rec, ix) for ix in indices]
    shape, xs, lin, ls = _advanced(rec, h, indices, "index")
    return _take(rec, h, h.offset, xs, lin, ls, shape)


def _as_int32(rec, h, src, reduce, n):
    """An int32 copy of int64 target h and src (a View or a Python int) when scattering ``n`` values with
    ``reduce`` (None, "sum", "mean", "amax", "amin") keeps every result inside int32; else None."""
    if h.dtype is not D.int64 or reduce == "prod" or (isinstance(src, View) and src.dtype not in (D.int64, D.int32)):
        return None
    if not fits_int32(rec, [(h, 1), (int(src) if not isinstance(src, View) else src,
                                     n if reduce in ("sum", "mean") else 1)]):
        return None
    return cast(rec, h, D.int32), cast(rec, src, D.int32) if isinstance(src, View) else int(src)


def index_put_(rec, h, indices, values, accumulate):
    _writable(rec, h)
    indices, values = [transfer.on_device(rec, ix) for ix in indices], transfer.on_device(rec, values)
    n = 1
    for s in broadcast_shapes(*(ix.shape for ix in indices if ix is not None)):
        n *= s  # values accumulated into one element at most
    narrow = _as_int32(rec, h, values, "sum" if accumulate else None, n)
    if narrow is not None:
        copy_(rec, h, index_put_(rec, narrow[0], indices, narrow[1], accumulate))
        return h
    rank = advanced_rank(h, indices)
    if rank is None or not native_index(h, rank, values, write=True):
        return host_fallback(rec, "index_put_", h, indices, values, accumulate)
    shape, xs, lin, ls = _advanced(rec, h, indices, "index_put_")
    if isinstance(values, View):
        broadcast_shapes(values.shape, shape)
        if values.st.buf is h.st.buf:  # reading what this kernel overwrites (under any dtype): snapshot first
            values = contiguous(rec, values)
    _scatter(rec, h, xs, lin, ls, shape, values, (3 if h.dtype is D.bool_ else 1) if accumulate else 0)
    return h


def gather(rec, h, dim, index):
    index = transfer.on_device(rec, index)
    index, _ = check_index(rec, index, h.shape[dim], dim, False, "gather")
    lin = _offsets(rec, index, h.strides[dim], h.shape[dim], False)
    xs = tuple(0 if d == dim else s for d, s in enumerate(h.strides))
    return _take(rec, h, h.offset, xs, lin, lin.strides, index.shape)


def scatter_(rec, h, dim, index, src, reduce, include_self):
    _writable(rec, h)
    index, src = transfer.on_device(rec, index), transfer.on_device(rec, src)
    narrow = _as_int32(rec, h, src, reduce, index.numel)
    if narrow is not None:
        copy_(rec, h, scatter_(rec, narrow[0], dim, index, narrow[1], reduce, include_self))
        return h
    if not native_index(h, len(index.shape), src, write=True) or (reduce == "mean" and h.dtype is D.bool_):
        return host_fallback(rec, "scatter_", h, dim, index, src, reduce, include_self)
    index, _ = check_index(rec, index, h.shape[dim], dim, False, "scatter")
    if isinstance(src, View) and src.st.buf is h.st.buf:
        src = contiguous(rec, src)
    lin = _offsets(rec, index, h.strides[dim], h.shape[dim], False)
    os = tuple(0 if d == dim else s for d, s in enumerate(h.strides))
    shape = index.shape
    if reduce is not None and not include_self:
        _scatter(rec, h, os, lin, lin.strides, shape, reduce_identity(reduce, *_dtype_range(h.dtype)), 0)
    _scatter(rec, h, os, lin, lin.strides, shape, src, _BOOL_MODES[reduce] if h.dtype is D.bool_ else _MODES[reduce])
    if reduce == "mean":
        count = creation.full(rec, h.shape, 1 if include_self else 0, D.int32)
        clin = _offsets(rec, index, count.strides[dim], h.shape[dim], False)
        cos = tuple(0 if d == dim else s for d, s in enumerate(count.strides))
        _scatter(rec, count, cos, clin, clin.strides, shape, 1, 1)
        op = "div" if h.dtype.is_floating_point else "floor_divide"
        mean = elementwise(rec, op, [h, elementwise(rec, "maximum", [count, 1], D.int32)], h.dtype)  # no x // 0
        copy_(rec, h, elementwise(rec, "where", [elementwise(rec, "gt", [count, 0], D.int32), mean, h], h.dtype))
    return h


def nonzero(rec, h):
    rank = len(h.shape)
    n = h.numel
    flags = cast(rec, elementwise(rec, "ne", [h, 0], h.dtype), D.int32)
    flat = View(flags.st, (n,), (1,), 0)
    from .scan_sort_kernels import cumulative  # (a family loaded at its first call: backend.py)
    cum = cumulative(rec, "sum", flat, 0, D.int32) if n else flat
    count = transfer.item(rec, views.sliced(cum, (slice(n - 1, n, 1),))) if n else 0
    out = rec.new((count, rank), D.int32)
    if count and rank:
        # past one binding: runs of elements (with the scan's value before each) times windows tiling out
        runs = [(0, n)] if binding_windows.fits([cum]) else binding_windows.row_ranges(n, 4, rec.limits)
        for (i0, i1), (bound, o0, o_count) in itertools.product(runs, binding_windows.tiles(out)):
            (c,), (cbound,) = binding_windows.bind([binding_windows.narrowed(cum, 0, max(i0 - 1, 0), i1)])
            shift = c.offset - max(i0 - 1, 0)  # the bound index of element i is i + shift
            words = (i1 - i0, rank, i0, shift & 0xFFFFFFFF, o0, o_count, 0, 0) + dims(h.shape)
            rec.record_kernel("index_nonzero", source("index_nonzero"), struct.pack("<16I", *words),
                              codegen.grid(-(-(i1 - i0) // 256), rec.limits), [cbound, bound], [cum.st.buf],
                              [out.st.buf])
    return cast(rec, out, D.int64)


def flip(rec, h, dims):
    offset = h.offset + sum((h.shape[d] - 1) * h.strides[d] for d in dims if h.shape[d])
    strides = tuple(-s if d in dims else s for d, s in enumerate(h.strides))
    return contiguous(rec, View(h.st, h.shape, strides, offset))
