"""WGSL kernels of scans (cumulative), small-row sort/topk and searchsorted.

Mixed into WebGPUBackend. ``cumulative`` is one dispatch of webgpu-shaders/scan_cumulative.wgsl (a
workgroup scan per row, or an invocation per row when rows are short); ``sort``/``topk`` one dispatch of
sort_bitonic.wgsl for rows up to SORT_MAX_N elements (longer rows take the counted host path);
``searchsorted`` one dispatch of sort_searchsorted.wgsl. All stay lazy.
"""
import struct

from ... import _dtype as D
from . import codegen, dtypes as T, limits
from .graph import View
from .index_kernels import MAX_RANK, _dims, _source
from .index_bounds import keep_bounds

SORT_MAX_N = 2048
SEQUENTIAL_MAX = 32  # rows up to this long are scanned by one invocation each
_T = {D.float32: "f32", D.int32: "i32", D.int64: "i32", D.uint32: "u32", D.bool_: "u32", D.uint8: "i32",
      D.int8: "i32", D.int16: "i32"}
_OPS = {"sum": 0, "prod": 1, "logsumexp": 2, "max": 3, "min": 4}


def _narrow(v, dim, start, length):
    """View v restricted to [start, start + length) along dim."""
    return View(v.st, v.shape[:dim] + (length,) + v.shape[dim + 1:], v.strides, v.offset + start * v.strides[dim])


def _row_geometry(x, out, dim):
    """Uniform rows [0]..[7] minus row 0's first words: (x offset, x stride, out offset, out stride) and the
    sizes / x strides / out strides of the dims other than ``dim``."""
    keep = [d for d in range(len(x.shape)) if d != dim]
    return ((x.offset, x.strides[dim], out.offset, out.strides[dim]) + _dims([x.shape[d] for d in keep])
            + _dims([x.strides[d] for d in keep]) + _dims([out.strides[d] for d in keep])), len(keep)


class WebGPUScanSortMixin:
    """cumulative, sort, topk and searchsorted as WGSL dispatches."""

    def _scan_dummy(self):
        """A tiny int32 buffer bound as the unused index output of the value-only scans."""
        d = getattr(self, "_scan_dummy_view", None)
        if d is None:
            d = self._scan_dummy_view = self._new((1,), D.int32)
        return d

    def _host(self, name, *args):
        from .fallback import host_fallback
        return host_fallback(self, name, *args)

    def cumulative(self, op, h, dim, dtype, reverse=False):
        if dtype not in _T or len(h.shape) > MAX_RANK or (op == "logsumexp" and dtype is not D.float32):
            return self._host("cumulative", op, h, dim, dtype, reverse)
        x = h if h.dtype is dtype else self.cast(h, dtype)
        out = self._new(h.shape, dtype)
        idx = self._new(h.shape, D.int64) if op in ("max", "min") else None
        L = h.shape[dim]
        if h.numel:
            # a workgroup scans its row 256 elements per step of 10 loop iterations (limits.py; measured on
            # lavapipe: the Hillis-Steele loop runs 8 times and counts once more on exit): a longer row is
            # scanned in segments, each then combined with the running value where the one before it ended
            seg = L if L <= SEQUENTIAL_MAX else max(256, limits.loop_trips() // 10 * 256)
            starts = list(range(0, L, seg))
            prev = None
            for s0 in (reversed(starts) if reverse else starts):
                part = [_narrow(v, dim, s0, min(seg, L - s0)) if v is not None else None for v in (x, out, idx)]
                self._scan_dispatch(op, *part, dim, dtype, reverse)
                if prev is not None:
                    self._scan_carry(op, part[1], part[2], prev, s0)
                edge = 0 if reverse else part[1].shape[dim] - 1  # where this segment ends in scan order
                prev = [_narrow(v, dim, edge, 1) if v is not None else None for v in part[1:]]
            if dtype in T.SMALL_INTS and op in ("sum", "prod"):  # the scan ran in i32: wrap
                self._ew("copy", [out], dtype, dtype, out.shape, out=out)
        return (out, idx) if idx is not None else out

    def _scan_dispatch(self, op, x, out, idx, dim, dtype, reverse):
        """One scan_cumulative.wgsl dispatch over views x -> out (and idx: positions within these views)."""
        L = x.shape[dim]
        rows = x.numel // L
        geom, rank = _row_geometry(x, out, dim)
        seq = L <= SEQUENTIAL_MAX
        words = (rows, L, rank, 1 if reverse else 0) + geom
        ibuf = (idx if idx is not None else self._scan_dummy()).st.buf
        writes = [out.st.buf] + ([idx.st.buf] if idx is not None else [])
        src = _source("scan_cumulative", T=_T[dtype], FLOAT=dtype is D.float32, OP=f"{_OPS[op]}u",
                      SEQUENTIAL=seq)
        self._record_kernel(f"scan_{op}", src, struct.pack("<32I", *words),
                            codegen.grid(-(-rows // 256) if seq else rows),
                            [x.st.buf, out.st.buf, ibuf], [x.st.buf], writes)

    def _scan_carry(self, op, out, idx, prev, s0):
        """Combine the scanned segment ``out`` (``idx``: its positions, from 0) with the running value
        ``prev`` = (value, index) where the previous segment ended, in place."""
        dt = out.dtype
        carry, carry_i = prev
        if op in ("sum", "prod", "logsumexp"):
            name = {"sum": "add", "prod": "mul", "logsumexp": "logaddexp"}[op]
            self._ew(name, [carry, out], dt, dt, out.shape, out=out)
            return
        self._ew("add", [idx, ("c", s0)], D.int32, idx.dtype, idx.shape, out=idx)
        # the segment's value wins ties (the later one in scan order) and NaN wins, as in the kernel
        wins = self._ew("ge" if op == "max" else "le", [out, carry], dt, D.bool_, out.shape)
        if dt is D.float32:
            nan_r = self._ew("isnan", [out], dt, D.bool_, out.shape)
            num_l = self._ew("logical_not", [self._ew("isnan", [carry], dt, D.bool_, carry.shape)],
                             D.bool_, D.bool_, carry.shape)
            wins = self._ew("logical_or", [nan_r, self._ew("logical_and", [num_l, wins], D.bool_, D.bool_,
                                                                        out.shape)], D.bool_, D.bool_, out.shape)
        self._ew("where", [wins, idx, carry_i], D.int32, idx.dtype, idx.shape, out=idx)
        self._ew("where", [wins, out, carry], dt, dt, out.shape, out=out)

    def _sorted_rows(self, h, dim, descending, k):
        """(values, int64 indices) of the first k of each row sorted along dim; None when rows are too long."""
        L = h.shape[dim]
        if h.dtype not in _T or len(h.shape) > MAX_RANK or L > SORT_MAX_N:
            return None
        shape = h.shape[:dim] + (k,) + h.shape[dim + 1:]
        out = self._new(shape, h.dtype)
        idx = self._new(shape, D.int64)
        rows = h.numel // L if L else 0
        if rows and k:
            n = 2
            while n < L:
                n *= 2
            geom, rank = _row_geometry(h, out, dim)
            words = (rows, L, rank, k) + geom + (n, 0, 0, 0)
            src = _source("sort_bitonic", T=_T[h.dtype], FLOAT=h.dtype is D.float32, DESCENDING=bool(descending))
            self._record_kernel("sort_bitonic", src, struct.pack("<36I", *words), codegen.grid(rows),
                                [h.st.buf, out.st.buf, idx.st.buf], [h.st.buf], [out.st.buf, idx.st.buf])
        return out, idx

    def sort(self, h, dim, descending, stable):
        if not h.shape:
            return self.contiguous(h), self.full((), 0, D.int64)
        r = self._sorted_rows(h, dim, descending, h.shape[dim])
        return r if r is not None else self._host("sort", h, dim, descending, stable)

    def topk(self, h, k, dim, largest, sorted):
        if not h.shape:
            return self.contiguous(h), self.full((), 0, D.int64)
        r = self._sorted_rows(h, dim, largest, k)
        return r if r is not None else self._host("topk", h, k, dim, largest, sorted)

    def searchsorted(self, seq, values, right, out_int32):
        if not isinstance(values, View) or _T.get(seq.dtype) is None or _T.get(values.dtype) is None:
            return self._host("searchsorted", seq, values, right, out_int32)
        if _T[seq.dtype] != _T[values.dtype]:  # compare in the promoted type, as PyTorch does
            if D.float32 not in (seq.dtype, values.dtype):
                return self._host("searchsorted", seq, values, right, out_int32)
            seq, values = self.cast(seq, D.float32), self.cast(values, D.float32)
        seq = seq if seq.is_contiguous() else self.contiguous(seq)
        values = values if values.is_contiguous() else self.contiguous(values)
        out = self._new(values.shape, D.int32 if out_int32 else D.int64)
        n = values.numel
        if n:
            length = seq.shape[-1]
            m = 0 if len(seq.shape) == 1 else (values.shape[-1] if values.shape else 1)
            words = (n, m, length, 0, seq.offset, values.offset, 0, 0)
            src = _source("sort_searchsorted", T=_T[seq.dtype], RIGHT=bool(right))
            self._record_kernel("sort_searchsorted", src, struct.pack("<8I", *words), codegen.grid(-(-n // 256)),
                                [seq.st.buf, values.st.buf, out.st.buf], [seq.st.buf, values.st.buf], [out.st.buf])
            keep_bounds(out, (0, length))  # insertion points: index checks on them need no readback
        return out
