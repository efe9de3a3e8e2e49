"""WGSL kernels of the indexing primitives (index, index_put_, gather, scatter_, nonzero, flip).

Mixed into WebGPUBackend. Every index tensor is first folded by fused elementwise ops into one int32
"linear offset" tensor (index * the indexed dim's stride, negatives wrapped); then one dispatch of
webgpu-shaders/index_take.wgsl (reads) or index_scatter.wgsl (writes, atomics for the reductions) moves
the data. Index ranges must be checked before anything is written (PyTorch raises at the call): free when
the index storage's bounds are known on the host (index_bounds.py), else one flush and a readback of its
min/max; nonzero reads back its count (its shape is data dependent). flip is a copy through negative strides (the generated elementwise kernel).
int64 index tensors are read after that check through their low words (LIN bound as i32 with doubled strides and
offset: no copy) or folded into int32 offsets by the arithmetic above; int64 values are taken
as two words (vec2<u32>); they are scattered (no 64-bit atomics, and a word-wise store could mix duplicates) by
the int32 kernels when the values and any sums of them fit int32 (known bounds, else their range read back),
else on the host (counted).
"""
import struct

from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from . import codegen, device_checks, dtypes as T, wgsl_loader
from .graph import View
from .index_bounds import fits_int32, keep_bounds
from ..._geometry import expand_strides

MAX_RANK = 8
_TYPE = {D.float32: ("f32", 0), D.int32: ("i32", 1), D.int64: (T.I64, None), D.uint32: ("u32", 2),
         D.bool_: ("u32", 2), D.uint8: ("i32", 1), D.int8: ("i32", 1), D.int16: ("i32", 1)}
_MODES = {None: 0, "sum": 1, "mean": 1, "prod": 2, "amax": 3, "amin": 4}
_BOOL_MODES = {None: 0, "sum": 3, "prod": 4, "amax": 3, "amin": 4}  # or, and
_SOURCES = {}


def _source(name, **values):
    key = (name,) + tuple(sorted(values.items()))
    s = _SOURCES.get(key)
    if s is None:
        s = _SOURCES[key] = wgsl_loader.specialize(name, **values)
    return s


def _dims(values):
    """Eight uint32 words (two vec4 rows) of per-dim values, negatives as their 32-bit pattern."""
    return tuple(int(v) & 0xFFFFFFFF for v in values) + (0,) * (MAX_RANK - len(values))


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


def _identity(reduce, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.is_floating_point:
        return float("-inf") if reduce == "amax" else float("inf")
    if dtype in (D.bool_, D.uint32):
        return 0 if reduce == "amax" else (1 if dtype is D.bool_ else (1 << 32) - 1)
    return -(1 << 31) if reduce == "amax" else (1 << 31) - 1


class WebGPUIndexMixin:
    """index, index_put_, gather, scatter_, nonzero and flip as WGSL dispatches."""

    # ---- helpers -------------------------------------------------------------------------------------------
    def _on_device(self, h):
        """h as a View of this device: a handle of another backend (a cpu index tensor) is uploaded."""
        if h is None or isinstance(h, (View, bool, int, float)):
            return h
        from .backend import _host_array
        return self.from_numpy(_host_array(h), True)

    def _check_index(self, idx, size, dim, negative, op):
        """(idx, whether negative values may occur): idx as is when the host knows its values lie in
        [-size, size) (negative) or [0, size) (index_bounds.py), else idx through a range check on the device
        that reports to the error word (device_checks.py: raised at the next read, naming ``op``) and clamps,
        so no kernel reads or writes out of bounds. Never a readback."""
        if not idx.numel:
            return idx, False
        lo_ok = -size if negative else 0
        known = idx.st.buf.bounds
        if known is not None and lo_ok <= known[0] and known[1] < size:
            return idx, known[0] < 0
        code = device_checks.code(op, device_checks.INDEX, dim)
        if known is not None and idx.is_whole():  # the bounds are values of this very view: raise now
            raise device_checks.error((code, known[0] if known[0] < lo_ok else known[1], size, 0), checked=False)
        checked = self._ew("index_check", [idx, ("c", lo_ok), ("c", size - 1), ("c", code)], D.int32, D.int32,
                           idx.shape)
        keep_bounds(checked, (lo_ok, size - 1))
        return checked, negative

    def check_classes(self, h, n, ignore, op):
        if not h.numel:
            return h
        known = h.st.buf.bounds
        if known is not None and 0 <= known[0] and known[1] < n:
            return h
        if known is not None and h.is_whole() and (ignore is None or not known[0] <= ignore <= known[1]):
            raise IndexError(f"Target {known[1] if known[1] >= n else known[0]} is out of bounds.")  # values of h
        ignore = -(1 << 31) if ignore is None or not -(1 << 31) <= ignore < 1 << 31 else ignore
        code = device_checks.code(op, device_checks.INDEX)
        return self._ew("index_check", [h, ("c", 0), ("c", n - 1), ("c", code), ("c", ignore)], D.int32, h.dtype,
                        h.shape)

    def _offsets(self, idx, stride, size, wrap):
        """int32 linear offsets idx * stride (idx + size where negative, when ``wrap``): idx itself (int32 or int64)
        when no arithmetic is needed (no dispatch)."""
        if stride == 1 and not wrap:
            return idx
        lin = self.elementwise("mul", [idx, stride], D.int32)
        if wrap:
            neg = self.elementwise("lt", [idx, 0], D.int32)
            lin = self.elementwise("add", [lin, self.elementwise("mul", [neg, size * stride], D.int32)], D.int32)
        return lin

    def _writable(self, h):
        if any(st == 0 and s > 1 for s, st in zip(h.shape, h.strides)):
            from .backend import _EXPANDED_WRITE
            raise RuntimeError(_EXPANDED_WRITE)

    def _advanced(self, h, indices, op):
        """Geometry of h[indices]: (result shape, h strides per result dim, lin handle, lin strides per result
        dim), after range-checking every index."""
        idx_dims = [d for d, ix in enumerate(indices) if ix is not None]
        checked = [self._check_index(indices[d], h.shape[d], k, True, op) for k, d in enumerate(idx_dims)]
        indices = list(indices)
        for d, (ix, _) in zip(idx_dims, checked):
            indices[d] = ix
        wraps = [w for _, w in checked]
        bshape = broadcast_shapes(*(indices[d].shape for d in idx_dims))
        lin = None
        for d, wrap in zip(idx_dims, wraps):
            term = self._offsets(indices[d], h.strides[d], h.shape[d], wrap)
            lin = term if lin is None else self.elementwise("add", [lin, term], D.int32)
        lstr = expand_strides(lin.shape, lin.strides, bshape)
        rest = [d for d in range(len(h.shape)) if d not in idx_dims]
        adjacent = idx_dims == list(range(idx_dims[0], idx_dims[-1] + 1))
        before = [d for d in rest if d < idx_dims[0]] if adjacent else []
        after = [d for d in rest if d not in before]
        shape = tuple(h.shape[d] for d in before) + bshape + tuple(h.shape[d] for d in after)
        xs = tuple(h.strides[d] for d in before) + (0,) * len(bshape) + tuple(h.strides[d] for d in after)
        ls = (0,) * len(before) + lstr + (0,) * len(after)
        return shape, xs, lin, ls

    def _take(self, x, x_offset, xs, lin, ls, shape):
        out = self._new(shape, x.dtype)
        n = out.numel
        if n:
            lin_offset, ls = _low_words(lin, ls)
            words = (n, len(shape), x_offset, lin_offset) + _dims(shape) + _dims(xs) + _dims(ls)
            self._record_kernel("index_take", _source("index_take", T=_TYPE[x.dtype][0]),
                                struct.pack("<28I", *words), codegen.grid(-(-n // 256)),
                                [x.st.buf, lin.st.buf, out.st.buf], [x.st.buf, lin.st.buf], [out.st.buf])
            keep_bounds(out, x.st.buf.bounds)  # every value taken is a value of x
        return out

    def _scatter(self, h, os, lin, ls, shape, src, mode):
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
            a >= b for a, b in zip(src.shape, shape)) else expand_strides(src.shape, src.strides, shape)
        lin_offset, ls = _low_words(lin, ls)
        words = (n, len(shape), _bits(src, h.dtype) if scalar else 0, 0,
                 h.offset, lin_offset, 0 if scalar else src.offset, 0) \
            + _dims(shape) + _dims(os) + _dims(ls) + _dims(ss)
        sbuf = lin.st.buf if scalar else src.st.buf
        self._record_kernel("index_scatter", _source("index_scatter", MODE=f"{mode}u",
                                                     KIND=f"{_TYPE[h.dtype][1]}u", SCALAR=scalar),
                            struct.pack("<40I", *words), codegen.grid(-(-n // 256)),
                            [h.st.buf, lin.st.buf, sbuf], [h.st.buf, lin.st.buf, sbuf], [h.st.buf])
        if mode in (1, 2) and h.dtype in T.SMALL_INTS:  # the atomics summed/multiplied in i32: wrap
            self._ew("copy", [h], h.dtype, h.dtype, h.shape, out=h)

    def _native_index(self, h, rank, *others, write=False):
        """Whether the kernels handle h: a dtype they know (to write: one that fits a 32-bit word), at most
        MAX_RANK dims, src handles on this device."""
        return h.dtype in _TYPE and not (write and h.dtype is D.int64) and rank <= MAX_RANK and all(isinstance(o, View) or o is None or
                                                             isinstance(o, (bool, int, float)) for o in others)

    # ---- the primitives -------------------------------------------------------------------------------------
    def index(self, h, indices):
        indices = [self._on_device(ix) for ix in indices]
        idx_dims = [d for d, ix in enumerate(indices) if ix is not None]
        out_rank = len(h.shape) - len(idx_dims) + (max(len(indices[d].shape) for d in idx_dims) if idx_dims else 0)
        if not idx_dims or not self._native_index(h, out_rank):
            from .fallback import host_fallback
            return host_fallback(self, "index", h, indices)
        shape, xs, lin, ls = self._advanced(h, indices, "index")
        return self._take(h, h.offset, xs, lin, ls, shape)

    def _as_int32(self, h, src, reduce, n):
        """An int32 copy of int64 target h and src (a View or a Python int) when scattering ``n`` values with
        ``reduce`` (None, "sum", "mean", "amax", "amin") keeps every result inside int32; else None."""
        if h.dtype is not D.int64 or reduce == "prod" or (isinstance(src, View) and src.dtype not in (D.int64, D.int32)):
            return None
        if not fits_int32(self, [(h, 1), (int(src) if not isinstance(src, View) else src,
                                          n if reduce in ("sum", "mean") else 1)]):
            return None
        return self.cast(h, D.int32), self.cast(src, D.int32) if isinstance(src, View) else int(src)

    def index_put_(self, h, indices, values, accumulate):
        self._writable(h)
        indices, values = [self._on_device(ix) for ix in indices], self._on_device(values)
        n = 1
        for s in broadcast_shapes(*(ix.shape for ix in indices if ix is not None)):
            n *= s  # values accumulated into one element at most
        narrow = self._as_int32(h, values, "sum" if accumulate else None, n)
        if narrow is not None:
            self.copy_(h, self.index_put_(narrow[0], indices, narrow[1], accumulate))
            return h
        idx_dims = [d for d, ix in enumerate(indices) if ix is not None]
        out_rank = len(h.shape) - len(idx_dims) + (max(len(indices[d].shape) for d in idx_dims) if idx_dims else 0)
        if not idx_dims or not self._native_index(h, out_rank, values, write=True):
            from .fallback import host_fallback
            return host_fallback(self, "index_put_", h, indices, values, accumulate)
        shape, xs, lin, ls = self._advanced(h, indices, "index_put_")
        if isinstance(values, View):
            broadcast_shapes(values.shape, shape)
            if values.st is h.st:  # reading what this kernel overwrites: snapshot first
                values = self.contiguous(values)
        self._scatter(h, xs, lin, ls, shape, values, (3 if h.dtype is D.bool_ else 1) if accumulate else 0)
        return h

    def gather(self, h, dim, index):
        index = self._on_device(index)
        if not self._native_index(h, len(index.shape)):
            from .fallback import host_fallback
            return host_fallback(self, "gather", h, dim, index)
        index, _ = self._check_index(index, h.shape[dim], dim, False, "gather")
        lin = self._offsets(index, h.strides[dim], h.shape[dim], False)
        xs = tuple(0 if d == dim else s for d, s in enumerate(h.strides))
        return self._take(h, h.offset, xs, lin, lin.strides, index.shape)

    def scatter_(self, h, dim, index, src, reduce, include_self):
        self._writable(h)
        index, src = self._on_device(index), self._on_device(src)
        narrow = self._as_int32(h, src, reduce, index.numel)
        if narrow is not None:
            self.copy_(h, self.scatter_(narrow[0], dim, index, narrow[1], reduce, include_self))
            return h
        if not self._native_index(h, len(index.shape), src, write=True) or (reduce == "mean" and h.dtype is D.bool_):
            from .fallback import host_fallback
            return host_fallback(self, "scatter_", h, dim, index, src, reduce, include_self)
        index, _ = self._check_index(index, h.shape[dim], dim, False, "scatter")
        if isinstance(src, View) and src.st is h.st:
            src = self.contiguous(src)
        lin = self._offsets(index, h.strides[dim], h.shape[dim], False)
        os = tuple(0 if d == dim else s for d, s in enumerate(h.strides))
        shape = index.shape
        if reduce is not None and not include_self:
            self._scatter(h, os, lin, lin.strides, shape, _identity(reduce, h.dtype), 0)
        self._scatter(h, os, lin, lin.strides, shape, src, _BOOL_MODES[reduce] if h.dtype is D.bool_ else _MODES[reduce])
        if reduce == "mean":
            count = self.full(h.shape, 1 if include_self else 0, D.int32)
            clin = self._offsets(index, count.strides[dim], h.shape[dim], False)
            cos = tuple(0 if d == dim else s for d, s in enumerate(count.strides))
            self._scatter(count, cos, clin, clin.strides, shape, 1, 1)
            op = "div" if h.dtype.is_floating_point else "floor_divide"
            mean = self.elementwise(op, [h, self.elementwise("maximum", [count, 1], D.int32)], h.dtype)  # no x // 0
            self.copy_(h, self.elementwise("where", [self.elementwise("gt", [count, 0], D.int32), mean, h], h.dtype))
        return h

    def nonzero(self, h):
        rank = len(h.shape)
        n = h.numel
        if rank > MAX_RANK or n >= 1 << 31:
            from .fallback import host_fallback
            return host_fallback(self, "nonzero", h)
        flags = self.cast(self.elementwise("ne", [h, 0], h.dtype), D.int32)
        flat = View(flags.st, (n,), (1,), 0)
        cum = self.cumulative("sum", flat, 0, D.int32) if n else flat
        count = self.item(self.slice(cum, (slice(n - 1, n, 1),))) if n else 0
        out = self._new((count, rank), D.int32)
        if count and rank:
            words = (n, rank, 0, 0) + _dims(h.shape)
            self._record_kernel("index_nonzero", wgsl_loader.template("index_nonzero"), struct.pack("<12I", *words),
                                codegen.grid(-(-n // 256)), [cum.st.buf, out.st.buf], [cum.st.buf], [out.st.buf])
        return self.cast(out, D.int64)

    def flip(self, h, dims):
        offset = h.offset + sum((h.shape[d] - 1) * h.strides[d] for d in dims if h.shape[d])
        strides = tuple(-s if d in dims else s for d, s in enumerate(h.strides))
        return self.contiguous(View(h.st, h.shape, strides, offset))
