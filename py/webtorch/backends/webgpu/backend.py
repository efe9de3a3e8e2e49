"""Device "webgpu": the Backend primitives over the lazy graph (graph.py), scheduler and runtime.

Every primitive records nodes and returns a View at once; reads (item/tolist/to_numpy/to_bytes)
flush the queue. Primitives without a kernel yet run through ``host_fallback`` (fallback.py), which is
counted and named in ``webtorch.webgpu.stats()``.
"""
import array
import math
import struct
import sys

from ... import _dtype as D
from ..._broadcast import broadcast_shapes
from ..base import Backend
from . import codegen, device_checks, dtypes as T, limits, wgsl_loader
from .conv_family import ConvFamilyKernels
from .graph import Graph, Node, Src, Storage, View, src_of
from .index_bounds import keep_bounds
from .index_kernels import WebGPUIndexMixin
from .memory import BufferPool
from .optim_kernels import WebGPUOptimMixin
from .randperm_kernels import WebGPURandpermMixin
from .scan_sort_kernels import WebGPUScanSortMixin
from .scheduler import Scheduler, Stats
from .linalg_kernels import LinalgKernels
from .softmax_norm_kernels import SoftmaxNormKernels
from ..._geometry import contiguous_strides, expand_strides, numel as _numel

CHUNK_MIN = 1 << 15  # rows longer than this are reduced in two passes (more workgroups in flight)
CHUNK_LEN = 1 << 12
CPU_CHUNK_LEN = 1 << 9  # on a CPU adapter, rows longer than this are reduced in chunks of this length
_EXPANDED_WRITE = ("unsupported operation: more than one element of the written-to tensor refers to a single "
                   "memory location. Please clone() the tensor before performing the operation.")  # PyTorch's


class PhiloxState:
    """A webgpu random stream: Philox key (the seed) and the next unused counter block."""
    __slots__ = ("seed", "offset")

    def __init__(self, seed):
        self.seed = seed & ((1 << 64) - 1)
        self.offset = 0


class WebGPUBackend(WebGPUOptimMixin, WebGPURandpermMixin, WebGPUIndexMixin, WebGPUScanSortMixin,
                    SoftmaxNormKernels, ConvFamilyKernels, LinalgKernels, Backend):
    device_type = "webgpu"

    def __init__(self, runtime):
        self.rt = runtime
        limits.set_adapter(runtime.limits)
        T.features.f16 = "shader-f16" in runtime.features
        T.features.subgroups = "subgroups" in runtime.features
        self.pool = BufferPool(runtime)
        self.stats = Stats()
        self.checks = device_checks.ErrorWord(self)
        self.scheduler = Scheduler(runtime, self.stats, self.checks)
        self.graph = Graph(self.scheduler)

    # ---- device-level services (webtorch.webgpu) -------------------------------------------------------
    def flush(self):
        """Record and submit every pending op (one batched submit); does not wait (webgpu.synchronize does)."""
        self.graph.flush()

    async def prefetch_async(self, h):
        """h (or a contiguous copy) with its bytes awaited from the device, so reading it next never blocks
        (Tensor.item_async/tolist_async/numpy_async; runtimes that can always block just flush)."""
        if h.numel and not h.is_contiguous():
            h = self.contiguous(h)
        self.graph.flush()
        prefetch = getattr(self.rt, "prefetch_async", None)
        if prefetch is not None and h.numel:
            if self.checks.armed:  # the error word too (device_checks.py): the read that follows raises its error
                await prefetch(self.checks.buf.id, device_checks.NBYTES)
            await prefetch(h.st.buf.ensure(), (h.st.buf.nbytes + 3) // 4 * 4)
        return h

    def check_dtype(self, dt):
        T.check(dt)

    # ---- handle metadata --------------------------------------------------------------------------------
    def shape(self, h):
        return h.shape

    def geometry(self, h):
        return h.shape, h.strides, h.offset

    def dtype(self, h):
        return h.st.dtype

    def data_ptr(self, h):
        return (h.st.key << 40) + h.offset * h.st.dtype.itemsize

    def storage_ptr(self, h):
        return h.st.key << 40

    def storage_nbytes(self, h):
        return h.st.numel * h.st.dtype.itemsize

    # ---- creation ------------------------------------------------------------------------------------------
    def _new(self, shape, dtype):
        if dtype is not D.float32:  # always supported: skip the check on the common dtype
            T.check(dtype)
        try:  # the per-op hot path: geometry cached per shape (an equal shape of other int types hits too)
            numel, strides, shape = _GEOM[shape]
        except (KeyError, TypeError):  # a new shape, or an unhashable (list) one
            shape = tuple([int(s) for s in shape])
            if len(_GEOM) >= _GEOM_MAX:
                _GEOM.clear()
            numel, strides, shape = _GEOM[shape] = (_numel(shape), contiguous_strides(shape), shape)
        return View(Storage(numel, dtype, self.pool), shape, strides, 0)

    def empty(self, shape, dtype):
        return self._new(shape, dtype)

    def full(self, shape, value, dtype):
        T.check(dtype)
        if dtype is D.int64:
            T.check_int_range([int(value)], dtype)
        out = self._ew("copy", [("c", value)], dtype, dtype, tuple(shape))
        if dtype in _BOUNDED:
            keep_bounds(out, (value, value))
        return out

    def arange(self, start, end, step, dtype):
        n = max(0, math.ceil((end - start) / step))
        cdt = D.float32 if dtype.is_floating_point else D.int32
        if not dtype.is_floating_point:
            ends = [int(start), int(start + step * max(n - 1, 0))]
            T.check_int_range(ends, D.int64)
            if min(ends) < T.I32_MIN or max(ends) > T.I32_MAX or not T.I32_MIN <= step <= T.I32_MAX:
                cdt = D.int64  # else the int32 arithmetic is exact and cheaper
        idx = self._ew("mul", ["iota", ("c", step)], cdt, cdt, (n,))
        out = self._ew("add", [idx, ("c", start)], cdt, dtype, (n,))
        if dtype in _BOUNDED and n:
            last = start + step * (n - 1)
            keep_bounds(out, (min(start, last), max(start, last)))
        return out

    def linspace(self, start, end, steps, dtype):
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        idx = self._ew("mul", ["iota", ("c", step)], D.float32, D.float32, (steps,))
        v = self._ew("add", [idx, ("c", start)], D.float32, D.float32, (steps,))
        if steps > 1:  # the last point is exactly ``end``, as NumPy and PyTorch give it
            self.copy_(self.slice(v, (slice(steps - 1, steps),)), float(end))
        return v if dtype is D.float32 else self.cast(v, dtype)

    def eye(self, n, m, dtype):
        shape = (n, m)
        row = self._ew("floor_divide", ["iota", ("c", max(m, 1))], D.int32, D.int32, shape)
        col = self._ew("remainder", ["iota", ("c", max(m, 1))], D.int32, D.int32, shape)
        return self._ew("eq", [row, col], D.int32, D.bool_, shape) if dtype is D.bool_ else \
            self.cast(self._ew("eq", [row, col], D.int32, D.bool_, shape), dtype)

    def from_flat(self, values, shape, dtype):
        T.check(dtype)
        if dtype is D.bool_:
            values = [1 if v else 0 for v in values]
        elif not dtype.is_floating_point:
            values = T.check_small_range(values, dtype) if dtype in T.SMALL_INTS else [int(v) for v in values]
            if dtype is D.int64:
                T.check_int_range(values, dtype)
            v = self._upload(_pack(values, dtype), tuple(shape), dtype)
            v.st.buf.bounds = (min(values), max(values)) if values else None
            return v
        return self._upload(_pack(values, dtype), tuple(shape), dtype)

    def from_buffer(self, buf, shape, dtype):
        T.check(dtype)
        mv = memoryview(buf).cast("B")
        if dtype is D.bool_:
            data = array.array("I", bytes(mv)).tobytes() if mv else b""
        elif dtype in T.SMALL_INTS:  # widened to the device's one i32 per element
            vals = array.array(T.HOST_CODES[dtype])
            vals.frombytes(bytes(mv))
            if sys.byteorder == "big":
                vals.byteswap()
            data = _pack(vals, dtype)
        else:
            data = bytes(mv)
        v = self._upload(data, tuple(shape), dtype)
        if dtype in _BOUNDED and data:  # known bounds let index checks skip a readback
            vals = array.array(T.array_code(dtype), data)
            if sys.byteorder == "big":
                vals.byteswap()
            keep_bounds(v, (min(vals), max(vals)))
        return v

    def from_numpy(self, arr, copy):
        import numpy as np
        from ..numpy_backend import NumpyBackend
        h = NumpyBackend.from_numpy(None, arr, True)  # dtype validation and byte order, as on cpu
        dt = NumpyBackend.dtype(None, h)
        T.check(dt)
        if dt in T.SMALL_INTS:
            h = h.astype(np.int32)
        elif dt is D.bool_:
            h = h.astype(np.uint32)
        v = self._upload(np.ascontiguousarray(h).astype(h.dtype.newbyteorder("<")).tobytes(), h.shape, dt)
        if h.size and dt in (D.int64, D.int32):  # known bounds let index checks skip a readback
            v.st.buf.bounds = (int(h.min()), int(h.max()))
        return v

    def _upload(self, data, shape, dtype):
        v = self._new(shape, dtype)
        if data:
            pad = (-len(data)) % 4
            buf = v.st.buf
            self.rt.write(buf.ensure(), 0, bytes(data) + b"\0" * pad if pad else data)
        return v

    # ---- reading back ----------------------------------------------------------------------------------------
    def _read(self, h):
        """Device bytes of view h in C order (flushes pending work)."""
        if not (h.is_contiguous() and h.numel):
            if not h.numel:
                return b""
            h = self.contiguous(h)
        self.graph.flush()
        isz = T.device_itemsize(h.dtype)
        start, nbytes = h.offset * isz, h.numel * isz
        a0, a1 = start - start % 4, start + nbytes + (-(start + nbytes)) % 4
        self.stats.readbacks += 1
        raw = self.checks.read(h.st.buf.ensure(), a0, a1 - a0)
        return raw[start - a0:start - a0 + nbytes]

    def _values(self, h):
        raw = self._read(h)
        dt = h.dtype
        if dt is D.float16:
            return list(struct.unpack(f"<{len(raw) // 2}e", raw))
        vals = array.array(T.array_code(dt))
        vals.frombytes(raw)
        if sys.byteorder == "big":
            vals.byteswap()
        if dt is D.bool_:
            return [v != 0 for v in vals]
        return vals.tolist()

    def to_numpy(self, h):
        import numpy as np
        raw = self._read(h)
        dt = h.dtype
        a = np.frombuffer(raw, dtype=_NP_DEVICE[dt])
        if dt in T.SMALL_INTS:
            a = a.astype(dt.name)
        elif dt is D.bool_:
            a = a != 0
        else:
            a = a.copy()
        return a.reshape(h.shape)

    def to_bytes(self, h):
        vals_dt = h.dtype
        if vals_dt in (D.float32, D.float16, D.int32, D.uint32, D.int64):
            return self._read(h)  # the device stores these little-endian, as checkpoints do
        vals = self._values(h)
        if vals_dt is D.bool_:
            return bytes(1 if v else 0 for v in vals)
        out = array.array(T.HOST_CODES.get(vals_dt, "q"), vals)
        if sys.byteorder == "big":
            out.byteswap()
        return out.tobytes()

    def tolist(self, h):
        vals = self._values(h)
        return _nest(vals, h.shape)

    def item(self, h):
        (v,) = self._values(h)
        return v

    def known_range(self, h):
        return h.st.buf.bounds if h.dtype in _BOUNDED else None

    # ---- views -------------------------------------------------------------------------------------------
    def as_strided(self, h, shape, stride, offset):
        return View(h.st, tuple(shape), tuple(stride), int(offset))

    # ---- copies and casts ----------------------------------------------------------------------------------
    def copy_(self, dst, src):
        if any(st == 0 and s > 1 for s, st in zip(dst.shape, dst.strides)):
            raise RuntimeError(_EXPANDED_WRITE)
        if not isinstance(src, (View, bool, int, float)):  # a handle of another backend (cpu)
            src = self.from_numpy(_host_array(src), True)
        if isinstance(src, View):
            broadcast_shapes(src.shape, dst.shape)
        self._ew("copy", [src], dst.dtype, dst.dtype, dst.shape, out=dst)
        return dst

    def contiguous(self, h):
        return self._ew("copy", [h], h.dtype, h.dtype, h.shape)

    def cast(self, h, dtype):
        T.check(dtype)
        return self._ew("copy", [h], dtype, dtype, h.shape)

    def to_other(self, h, target):
        return target.from_numpy(self.to_numpy(h), copy=False)

    # ---- compute -------------------------------------------------------------------------------------------
    def elementwise(self, op, args, dtype, out=None):
        if dtype is not D.float32:
            T.check(dtype)
        shape = None
        for a in args:  # the operands' common shape: broadcast only when two differ
            if type(a) is View:
                if shape is None:
                    shape = a.shape
                elif a.shape != shape:
                    shape = broadcast_shapes(*[a.shape for a in args if type(a) is View])
                    break
        if shape is None:
            shape = ()
        if out is not None:
            return self._ew(op, args, dtype, out.dtype, out.shape, out=out)
        return self._ew(op, args, dtype, D.bool_ if op in codegen.BOOL_RESULT else dtype, shape)

    def _ew(self, op, args, cdt, dt, shape, out=None):
        """Record one elementwise node: args are Views, ("c", value) constants, Python scalars, "iota" or
        None; returns the written View (a fresh one unless ``out``)."""
        fresh = out is None
        if fresh:
            out = self._new(shape, dt)
        shape = out.shape
        out_st = out.st
        srcs, spec = [], []
        cond = 0 if op == "where" and type(args[0]) is View else -1
        for a in args:
            if type(a) is View:
                st = a.st
                if st is out_st and not fresh and (a.strides != out.strides or a.offset != out.offset):
                    a = self.contiguous(a)  # reading what this kernel overwrites elsewhere: snapshot first
                    st = a.st
                spec.append(len(srcs))
                srcs.append((a.src or src_of(a)) if a.shape == shape else
                            Src(st.buf, expand_strides(a.shape, a.strides, shape), a.offset, st.dtype))
            elif a is None or a == "iota" or isinstance(a, tuple):
                spec.append(a)
            else:
                spec.append(("c", a))
        dt = out_st.dtype
        self.graph.record(Node("ew", shape, out.src or src_of(out), srcs,
                               {"op": op, "args": spec, "cdt": cdt, "dt": dt, "cond": cond, "fresh": fresh}))
        if fresh and op == "copy" and srcs and dt in _BOUNDED and srcs[0].dtype in _BOUNDED:
            b = srcs[0].buf.bounds  # an integer copy or cast keeps the values (unless a narrowing cast wraps them)
            keep_bounds(out, b if b is None or dt is D.int64 or T.I32_MIN <= b[0] <= b[1] <= T.I32_MAX else None)
        return out

    def reduce(self, op, h, dims, keepdim, dtype):
        T.check(dtype)
        dims = tuple(dims) if dims else tuple(range(len(h.shape)))
        return self._reduce(op, h, dims, keepdim, dtype)

    def _reduce(self, op, h, dims, keepdim, dtype):
        r_len = _numel(tuple(h.shape[d] for d in dims))
        n_out = _numel(h.shape) // r_len if r_len else 0
        # a CPU adapter reduces one output or chunk per invocation (barriers cost there), in chunks of at most
        # CPU_CHUNK_LEN (a pass per factor of it: serial sums stay short, as accurate as a tree's)
        cpu = self.rt.cpu_adapter
        # loop iterations of one invocation (limits.py): a row per invocation, or per workgroup of WG
        per_thread = cpu or n_out >= 2048 or r_len <= 64
        budget = limits.loop_trips() * (1 if per_thread else codegen.WG)
        if op in ("argmax", "argmin") and r_len > budget:
            return self._arg_reduce_long(op, h, dims, keepdim)
        if ((r_len > CPU_CHUNK_LEN if cpu else r_len > CHUNK_MIN and n_out < 64) or r_len > budget) and \
                op not in ("argmax", "argmin"):
            # split long rows: one workgroup (CPU: invocation) per (output, chunk), then reduce the partials
            chunk = CPU_CHUNK_LEN if cpu else max(CHUNK_LEN, -(-r_len // 1024))
            chunk = max(2, min(chunk, limits.loop_trips() * (1 if cpu else codegen.WG)))
            n_chunks = -(-r_len // chunk)
            part = self._new((n_out, n_chunks), dtype)
            self.graph.record(Node("reduce", h.shape, Src(part.st.buf, part.strides, 0, dtype),
                                   [Src(h.st.buf, h.strides, h.offset, h.dtype)],
                                   {"op": "sum" if op == "mean" else op, "dims": dims, "dt": dtype,
                                    "chunks": n_chunks, "chunk_len": chunk, "per_thread": cpu}))
            out = self._reduce(op, part, (1,), False, dtype) if op != "mean" else self._mean_of_partials(
                part, r_len, dtype)
            if keepdim:
                shape = tuple((1 if d in dims else s) for d, s in enumerate(h.shape))
                return View(out.st, shape, contiguous_strides(shape), 0)
            return View(out.st, tuple(s for d, s in enumerate(h.shape) if d not in dims),
                        contiguous_strides(tuple(s for d, s in enumerate(h.shape) if d not in dims)), 0)
        out_shape = tuple((1 if d in dims else s) for d, s in enumerate(h.shape)) if keepdim else \
            tuple(s for d, s in enumerate(h.shape) if d not in dims)
        out = self._new(out_shape, dtype)
        node = Node("argreduce" if op in ("argmax", "argmin") else "reduce", h.shape,
                    Src(out.st.buf, out.strides, 0, dtype), [Src(h.st.buf, h.strides, h.offset, h.dtype)],
                    {"op": op, "dims": dims, "dt": dtype, "per_thread": cpu})
        self.graph.record(node)
        if op in ("argmax", "argmin") and r_len:
            keep_bounds(out, (0, r_len - 1))
        return out

    def _arg_reduce_long(self, op, h, dims, keepdim):
        """argmax/argmin over rows past one invocation's loop budget, from reductions that split: the
        extremum, then the first position holding it (a NaN, when the extremum is NaN, as PyTorch's)."""
        if len(dims) > 1:  # over every dim: positions of the flattened tensor
            flat = self.reshape_view(self.contiguous(h), (h.numel,))
            r = self._arg_reduce_long(op, flat, (0,), False)
            return self.reshape_view(r, (1,) * len(h.shape)) if keepdim else r
        (d,) = dims
        ext = self._reduce("amax" if op == "argmax" else "amin", h, dims, True, h.dtype)
        hit = self._ew("eq", [h, ext], h.dtype, D.bool_, h.shape)
        if h.dtype.is_floating_point:
            both_nan = self._ew("logical_and", [self._ew("isnan", [h], h.dtype, D.bool_, h.shape),
                                                self._ew("isnan", [ext], h.dtype, D.bool_, ext.shape)],
                                D.bool_, D.bool_, h.shape)
            hit = self._ew("logical_or", [hit, both_nan], D.bool_, D.bool_, h.shape)
        pos = self.arange(0, h.shape[d], 1, D.int32)
        pos = View(pos.st, h.shape, tuple(1 if i == d else 0 for i in range(len(h.shape))), 0)
        first = self._ew("where", [hit, pos, ("c", h.shape[d])], D.int32, D.int32, h.shape)
        out = self.cast(self._reduce("amin", first, dims, keepdim, D.int32), D.int64)
        keep_bounds(out, (0, h.shape[d] - 1))
        return out

    def _mean_of_partials(self, part, r_len, dtype):
        out = self._new((part.shape[0],), dtype)
        self.graph.record(Node("reduce", part.shape, Src(out.st.buf, out.strides, 0, dtype),
                               [Src(part.st.buf, part.strides, 0, dtype)],
                               {"op": "mean", "dims": (1,), "dt": dtype, "denom": r_len,
                                "per_thread": self.rt.cpu_adapter}))
        return out

    def arg_reduce(self, op, h, dim, keepdim):
        if dim is None:
            r = self._reduce(op, h, tuple(range(len(h.shape))), False, D.int64)
            return self.reshape_view(r, (1,) * len(h.shape)) if keepdim else r
        return self._reduce(op, h, (dim,), keepdim, D.int64)

    def matmul(self, a, b):
        if a.dtype is not D.float32 or b.dtype is not D.float32:
            if a.dtype is D.float16 and b.dtype is D.float16:
                return self.cast(self.matmul(self.cast(a, D.float32), self.cast(b, D.float32)), D.float16)
            from .fallback import host_fallback
            return host_fallback(self, "matmul", a, b)
        squeeze = []
        if len(a.shape) == 1:
            a = View(a.st, (1,) + a.shape, (0,) + a.strides, a.offset)
            squeeze.append(-2)
        if len(b.shape) == 1:
            b = View(b.st, b.shape + (1,), b.strides + (0,), b.offset)
            squeeze.append(-1)
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
        if len(batch) > 4:  # fold to 4 batch dims through contiguous copies
            a = self.contiguous(self.expand(a, batch + a.shape[-2:]))
            b = self.contiguous(self.expand(b, batch + b.shape[-2:]))
            nb = _numel(batch)
            a = self.reshape_view(a, (nb,) + a.shape[-2:])
            b = self.reshape_view(b, (nb,) + b.shape[-2:])
            out = self.matmul(a, b)
            return self.reshape_view(out, batch + out.shape[-2:])
        m, k = a.shape[-2:]
        n = b.shape[-1]
        out_shape = batch + (m, n)
        out = self._new(out_shape, D.float32)
        if _numel(out_shape):
            self._record_matmul(a, b, out, batch, m, n, k)
        for d in squeeze:
            shape = list(out.shape)
            del shape[d]
            out = View(out.st, tuple(shape), contiguous_strides(tuple(shape)), 0)
        return out

    def _record_matmul(self, a, b, out, batch, m, n, k, kernel=None):
        cpu = self.rt.cpu_adapter
        kernel = kernel or _matmul_kernel(m, n, cpu)
        k_max = _matmul_k_max(kernel)
        if k > k_max:  # a K past one invocation's loop budget (limits.py): products of K slices, summed
            for k0 in range(0, k, k_max):
                kc = min(k_max, k - k0)
                av = View(a.st, a.shape[:-1] + (kc,), a.strides, a.offset + k0 * a.strides[-1])
                bv = View(b.st, b.shape[:-2] + (kc, n), b.strides, b.offset + k0 * b.strides[-2])
                part = out if k0 == 0 else self._new(out.shape, D.float32)
                self._record_matmul(av, bv, part, batch, m, n, kc, kernel)
                if k0:
                    self._ew("add", [out, part], D.float32, D.float32, out.shape, out=out)
            return
        key = (a.shape, a.strides, a.offset, b.shape, b.strides, b.offset, batch, kernel, cpu)
        plan = _MATMUL_PLANS.get(key)
        if plan is None:  # a training step repeats the same products: build each launch plan once
            if len(_MATMUL_PLANS) >= _GEOM_MAX:
                _MATMUL_PLANS.clear()
            plan = _MATMUL_PLANS[key] = _matmul_plan(a, b, batch, m, n, k, kernel)
        src, launches = plan
        for params, groups in launches:
            node = Node("kernel", out.shape, Src(out.st.buf, out.strides, 0, D.float32),
                        [Src(a.st.buf, (), a.offset, a.dtype), Src(b.st.buf, (), b.offset, b.dtype)],
                        {"name": kernel, "source": src, "params": params, "groups": groups,
                         "buffers": [a.st.buf, b.st.buf, out.st.buf], "epilogue": len(launches) == 1})
            self.graph.record(node)

    def _record_kernel(self, name, source, params, groups, buffers, reads, writes, epilogue_shape=None):
        """Record one template-kernel dispatch: ``buffers`` (Buffers) bound in order, ``reads`` the Buffers it
        reads, ``writes`` those it writes (writes[0] is the node's out; several are fine). ``epilogue_shape``:
        the kernel stores its whole contiguous out of this shape through ``fn epilogue`` (epilogue.py)."""
        out = writes[0]
        node = Node("kernel", epilogue_shape or (), Src(out, (), 0, D.float32),
                    [Src(b, (), 0, D.float32) for b in reads],
                    {"name": name, "source": source, "params": params, "groups": groups,
                     "buffers": list(buffers), "writes": tuple(writes[1:]), "epilogue": epilogue_shape is not None})
        self.graph.record(node)

    # ---- random --------------------------------------------------------------------------------------------
    def rng_new(self, seed):
        return PhiloxState(seed)

    def rng_get_state(self, rng):
        return struct.pack("<QQ", rng.seed, rng.offset)

    def rng_set_state(self, rng, state):
        rng.seed, rng.offset = struct.unpack("<QQ", bytes(state)[:16])

    def _random(self, kind, shape, a, b, rng, out_dt):
        out = self._new(shape, out_dt)
        n = out.numel
        if not n:
            return out
        blocks = (n + 3) // 4
        base = rng.offset
        rng.offset += blocks
        if kind >= 2:
            lo_bits, hi_bits, rng_range = int(a) & 0xFFFFFFFF, 0, int(b - a) & 0xFFFFFFFF
        else:
            lo_bits = struct.unpack("<I", struct.pack("<f", a))[0]
            hi_bits = struct.unpack("<I", struct.pack("<f", b))[0]
            rng_range = 0
        words = (n, rng.seed & 0xFFFFFFFF, rng.seed >> 32, base & 0xFFFFFFFF, (base >> 32) & 0xFFFFFFFF,
                 lo_bits, hi_bits, rng_range)
        src = _random_source(kind, out_dt)
        node = Node("kernel", out.shape, Src(out.st.buf, out.strides, 0, out_dt), [],
                    {"name": "random_philox", "source": src, "params": struct.pack("<8I", *words),
                     "groups": codegen.grid((blocks + 255) // 256), "buffers": [out.st.buf]})
        self.graph.record(node)
        return out

    def uniform(self, shape, low, high, dtype, rng):
        T.check(dtype)
        r = self._random(0, tuple(shape), float(low), float(high), rng, D.float32)
        return r if dtype is D.float32 else self.cast(r, dtype)

    def normal(self, shape, mean, std, dtype, rng):
        T.check(dtype)
        r = self._random(1, tuple(shape), float(mean), float(std), rng, D.float32)
        return r if dtype is D.float32 else self.cast(r, dtype)

    def randint(self, shape, low, high, dtype, rng):
        T.check(dtype)
        low, high, shape = int(low), int(high), tuple(shape)
        T.check_int_range([low, high - 1], D.int64)
        span = high - low
        if T.I32_MIN <= low and high - 1 <= T.I32_MAX:
            r = self._random(2, shape, low, high, rng, D.int32)
        elif span < 1 << 32:  # an unsigned 32-bit draw moved to [low, high) in int64
            r = self._ew("add", [self._random(2, shape, 0, span, rng, D.uint32), ("c", low)], D.int64, D.int64, shape)
        elif span <= 1 << 63:  # 63 random bits from two words, reduced modulo the span (as PyTorch's random64)
            w = self._random(3, shape + (2,), 0, 0, rng, D.uint32)
            lo, hi = (self.slice(w, (slice(None),) * len(shape) + (k,)) for k in (0, 1))
            bits = self._ew("bitwise_and", [self._ew("mul", [hi, ("c", 1 << 32)], D.int64, D.int64, shape),
                                            ("c", T.I64_MAX)], D.int64, D.int64, shape)
            bits = self._ew("add", [bits, lo], D.int64, D.int64, shape)
            r = bits if span == 1 << 63 else self._ew("remainder", [bits, ("c", span)], D.int64, D.int64, shape)
            if low:
                r = self._ew("add", [r, ("c", low)], D.int64, D.int64, shape)
        else:
            raise RuntimeError(f"randint on device 'webgpu': the range [{low}, {high}) spans more than 2^63 values; "
                               "draw on device 'cpu'")
        if span > 0:
            keep_bounds(r, (low, high - 1))
        return r if r.dtype is dtype else self.cast(r, dtype)

    def bernoulli(self, p, shape, dtype, rng):
        """p: a handle (broadcast to shape) or a float; result of dtype with 1 where u < p."""
        u = self._random(0, tuple(shape), 0.0, 1.0, rng, D.float32)
        return self._ew("lt", [u, p], D.float32, dtype, tuple(shape))


_NP_DEVICE = {}
_GEOM = {}  # shape -> (numel, contiguous strides, shape as a tuple of ints) of fresh outputs
_GEOM_MAX = 4096  # dynamic shapes (varying sequence lengths) must not grow it without bound
_MATMUL_PLANS = limits.register_cache({})  # (operand geometries, batch, kernel) -> _matmul_plan
_BOUNDED = (D.int32, D.int64)  # integer dtypes whose buffers may carry host-known bounds (index tensors)


def _init_np_types():
    try:
        import numpy as np
    except ImportError:
        return
    _NP_DEVICE.update({D.float32: np.dtype("<f4"), D.float16: np.dtype("<f2"), D.int32: np.dtype("<i4"),
                       D.int64: np.dtype("<i8"), D.uint32: np.dtype("<u4"), D.bool_: np.dtype("<u4")})
    _NP_DEVICE.update({dt: np.dtype("<i4") for dt in T.SMALL_INTS})


_init_np_types()


def _host_array(h):
    import numpy as np
    return np.ascontiguousarray(h)


def _pack(values, dtype):
    if dtype is D.float16:
        return struct.pack(f"<{len(values)}e", *values)
    a = array.array(T.array_code(dtype), values)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _nest(vals, shape):
    if not shape:
        return vals[0]
    last = len(shape) - 1

    def build(off, d):
        if d == last:
            return vals[off:off + shape[d]]
        step = _numel(shape[d + 1:])
        return [build(off + i * step, d + 1) for i in range(shape[d])]
    return build(0, 0)


_SOURCES = {}


def _matmul_kernel(m, n, cpu):
    """matmul_naive for a thin product, else matmul_register on a CPU adapter, matmul_tiled on a GPU."""
    return "matmul_naive" if m < 4 or n < 4 else "matmul_register" if cpu else "matmul_tiled"


def _matmul_k_max(kernel):
    """The longest K one launch of ``kernel`` may run within an invocation's loop budget (limits.py): the
    naive kernel loops once per k, matmul_register once per 4 k, matmul_tiled about 14 times per 16-k tile
    (its tile loads loop too; measured on lavapipe)."""
    trips = limits.loop_trips()
    return max(4, trips // 4 * 4) if kernel != "matmul_register" else 4 * trips


def _matmul_plan(a, b, batch, m, n, k, kernel):
    """(WGSL source, [(params, workgroups), ...]) of one product's launch: one dispatch, or several when the
    grid passes maxComputeWorkgroupsPerDimension (each names its first batch, row and column in P[6])."""
    nb = _numel(batch)
    pad = (1,) * (4 - len(batch))
    sizes = pad + batch
    a_bs = (0,) * (4 - len(batch)) + expand_strides(a.shape[:-2], a.strides[:-2], batch)
    b_bs = (0,) * (4 - len(batch)) + expand_strides(b.shape[:-2], b.strides[:-2], batch)
    ars, acs = a.strides[-2:]
    brs, bcs = b.strides[-2:]
    modes = (0, 0)
    if kernel != "matmul_naive":
        modes = (_operand_mode(acs, ars, k, m, a_bs, a.offset), _operand_mode(bcs, brs, n, k, b_bs, b.offset))
    if kernel == "matmul_tiled":
        wg_x, wg_y, rm = _TILE
        src = _tiled_source()
        cols, rows = 4 * wg_x, wg_y * rm
    elif kernel == "matmul_register":
        src = _register_source(*modes)
        cols, rows = 8 * _REGISTER_WG[0], 8 * _REGISTER_WG[1]
    else:
        src = wgsl_loader.template("matmul_naive")
        cols, rows = 16, 16
    words = (m, n, k, nb) + sizes + a_bs + b_bs + (ars, acs, brs, bcs) + (a.offset, b.offset) + modes
    w = limits.workgroups()
    launches = []
    gx, gy = -(-n // cols), -(-m // rows)
    for z0 in range(0, nb, w):
        for y0 in range(0, gy, w):
            for x0 in range(0, gx, w):
                groups = (min(w, gx - x0), min(w, gy - y0), min(w, nb - z0))
                launches.append((struct.pack("<28I", *words, z0, y0 * rows, x0 * cols, 0), groups))
    return src, launches


def _operand_mode(along, across, n_along, n_across, batch_strides, offset):
    """Load mode of matmul_tiled.wgsl (P[5].z for A, P[5].w for B; matmul_register.wgsl's A_MODE, B_MODE) for an
    operand whose tile is vec4 ``along`` one dim
    (A: K, B: N): 1 when contiguous along it, 2 when contiguous across it (a transposed matrix), each
    only when every other stride, the offset and the contiguous dim's size are multiples of 4; else 0."""
    rest = batch_strides + (offset,)
    if along == 1 and n_along % 4 == 0 and across % 4 == 0 and all(x % 4 == 0 for x in rest):
        return 1
    if across == 1 and n_across % 4 == 0 and along % 4 == 0 and all(x % 4 == 0 for x in rest):
        return 2
    return 0


# (WG_X, WG_Y, RM) of matmul_tiled.wgsl: a 64 x 64 tile of 8 x 4 register blocks (128 invocations), for
# every product: each matmul_tiled pipeline takes 1-3 s to build on SwiftShader, so a
# narrower tile for a small batch or a classifier head (fewer idle lanes in a product that is cheap
# anyway) costs far more at cold start than it saves per step. TK 16, not 32: SwiftShader unrolls the K loop
# (TK / 4 steps of RM vec4 FMAs), and TK 32 doubles its build time (MLP first step 7.3 s -> 3.9 s at 16,
# 2.4 s at 8) for about 13% more GFLOP/s on lavapipe (8 costs another 16%).
_TILE = (16, 8, 8)


def _tiled_source():
    s = _SOURCES.get("tiled")
    if s is None:
        wg_x, wg_y, rm = _TILE
        s = _SOURCES["tiled"] = wgsl_loader.specialize("matmul_tiled", WG_X=f"{wg_x}u", WG_Y=f"{wg_y}u", RM=f"{rm}u",
                                                   TK="16u")
    return s


# (WG_X, WG_Y) of matmul_register.wgsl (8 x 8 results per invocation): 16 invocations, 4 SIMD rows of
# SwiftShader, and many workgroups to spread over the CPU's cores. SwiftShader 128x784x256: 8.6-9.1 ms at
# 4 x 4 or 8 x 4 against 31-35 ms for matmul_tiled; each pipeline builds in ~0.17 s against 0.8-3 s.
_REGISTER_WG = (4, 4)


def _register_source(a_mode, b_mode):
    key = ("register", a_mode, b_mode)
    s = _SOURCES.get(key)
    if s is None:
        s = _SOURCES[key] = wgsl_loader.specialize("matmul_register", WG_X=f"{_REGISTER_WG[0]}u",
                                               WG_Y=f"{_REGISTER_WG[1]}u", A_MODE=f"{a_mode}u",
                                               B_MODE=f"{b_mode}u")
    return s


def _random_source(kind, out_dt):
    key = ("random", kind, out_dt)
    s = _SOURCES.get(key)
    if s is None:
        s = _SOURCES[key] = wgsl_loader.specialize("random_philox", KIND=f"{kind}u", OutT=T.storage_type(out_dt))
    return s


def int64_kernel_sources():
    """{name: WGSL} of the kernels int64 adds to the shipped templates' own forms: their 64-bit variants, and
    every int64 helper (beside the error-word helpers) in one module -- what the Tint and naga compile tests build."""
    from . import device_checks, wgsl_int64
    from .index_kernels import _source as specialized
    from .scan_sort_kernels import _source
    from .wgsl_ops import helper_sources
    i64 = wgsl_int64.TYPE
    out = {f"scan_cumulative[int64,op{op},{seq}]": _source("scan_cumulative", T=i64, FLOAT=False, OP=f"{op}u",
                                                           SEQUENTIAL=seq) for op in (0, 3) for seq in (False, True)}
    out["sort_bitonic[int64]"] = _source("sort_bitonic", T=i64, FLOAT=False, DESCENDING=True)
    out["sort_searchsorted[int64]"] = _source("sort_searchsorted", T=i64, RIGHT=True)
    out["index_take[int64]"] = specialized("index_take", T=i64)
    out["random_philox[raw words]"] = _random_source(3, D.uint32)
    out["int64 helpers"] = (device_checks.declaration(0) + "\n" + device_checks.HELPERS
                            + helper_sources(wgsl_int64.HELPERS)
                            + "\n@compute @workgroup_size(1)\nfn main() { wt_report(0u, 0, 0u); }\n")
    return out


def _install():
    from ..base import Backend as _Base
    from .fallback import install_fallbacks
    try:
        from ..numpy_backend import NumpyBackend
    except ImportError:  # Pyodide without NumPy: the webgpu device works, fallbacks say they need NumPy
        install_fallbacks(WebGPUBackend, _Base)
        return
    install_fallbacks(WebGPUBackend, _Base, NumpyBackend)


_install()
