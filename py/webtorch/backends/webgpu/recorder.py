"""The recording machinery of device "webgpu": one Recorder per device, passed to every family module.

It owns the runtime, the buffer pool, the stats, the error word, the scheduler and the lazy graph, and
offers what every kernel family records with: ``new`` (a fresh contiguous View), ``ew`` (one elementwise
node), ``record_kernel`` (one template-kernel dispatch), ``record_node`` (a DeviceOp built by the family: reductions,
products, random draws), ``upload`` and ``read`` (host bytes in and out; a read flushes) and ``flush``.
The family modules (``*_kernels.py``, creation.py, transfer.py) are plain functions of a Recorder;
backend.py's WebGPUBackend delegates each primitive to one of them.
"""
from ... import _dtype as D
from . import binding_windows, capture, device_checks, dtypes as T, limits
from .graph import Graph, DeviceOp, Src, Storage, View, contiguous_strides, src_of
from .index_bounds import BOUNDED, keep_bounds
from .memory import BufferPool
from .replay import Replayer
from .scheduler import Scheduler, Stats
from ..._geometry import expand_strides as broadcast_strides

_GEOM = {}  # shape -> (numel, contiguous strides, shape as a tuple of ints) of fresh outputs
GEOM_MAX = 4096  # dynamic shapes (varying sequence lengths) must not grow a per-shape cache without bound


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


class Recorder:
    """Records device work into the lazy graph; ``flush`` submits it (one batch), reads flush first."""

    def __init__(self, runtime):
        self.rt = runtime
        limits.set_adapter(runtime.limits, self.flush)
        T.features.f16 = "shader-f16" in runtime.features
        T.features.subgroups = "subgroups" in runtime.features
        self.pool = BufferPool(runtime)
        self.stats = Stats()
        self.checks = device_checks.ErrorWord(runtime, self.pool)
        self.scheduler = Scheduler(runtime, self.stats, self.checks)
        self.scheduler.replay = self.checks.replay = Replayer(self.scheduler, limits.register_cache({}))
        self.graph = Graph(self.scheduler)
        self.record_node = self.graph.record  # bound once: every recorded op calls it
        self.scratch = {}  # small per-device buffers a family keeps (scan_sort_kernels' unused index output)

    def flush(self):
        """Record and submit every pending op (one batched submit); does not wait (webgpu.synchronize does)."""
        self.graph.flush()

    def new(self, shape, dtype):
        """A fresh contiguous View of ``shape`` (its storage is allocated when a kernel first writes it)."""
        if dtype is not D.float32:  # always supported: skip the check on the common dtype
            T.check(dtype)
        try:  # the per-op hot path: geometry cached per shape (an equal shape of other int types hits too)
            n, strides, shape = _GEOM[shape]
        except (KeyError, TypeError):  # a new shape, or an unhashable (list) one
            shape = tuple([int(s) for s in shape])
            if len(_GEOM) >= GEOM_MAX:
                _GEOM.clear()
            n, strides, shape = _GEOM[shape] = (numel(shape), contiguous_strides(shape), shape)
        return View(Storage(n, dtype, self.pool), shape, strides, 0)

    def upload(self, data, shape, dtype):
        """A fresh View holding ``data`` (the device's bytes of its elements, C order)."""
        if capture.is_capturing(self):
            capture.refuse("creating a webgpu tensor from host data (torch.tensor, .to('webgpu'), copy_ from cpu)",
                           "create it before the capture and copy_ new values into it before each replay")
        v = self.new(shape, dtype)
        if data:
            pad = (-len(data)) % 4
            buf = v.st.buf
            self.rt.write(buf.ensure(), 0, bytes(data) + b"\0" * pad if pad else data)
        return v

    def read(self, h):
        """Device bytes of view h in C order (flushes pending work)."""
        if not (h.is_contiguous() and h.numel):
            if not h.numel:
                return b""
            h = self.ew("copy", [h], h.dtype, h.dtype, h.shape)
        self.graph.flush()
        isz = T.device_itemsize(h.dtype)
        start, nbytes = h.offset * isz, h.numel * isz
        a0, a1 = start - start % 4, start + nbytes + (-(start + nbytes)) % 4
        self.stats.readbacks += 1
        raw = self.checks.read(h.st.buf.ensure(), a0, a1 - a0)
        return raw[start - a0:start - a0 + nbytes]

    def ew(self, op, args, cdt, dt, shape, out=None):
        """Record one elementwise node: args are Views, ("c", value) constants, Python scalars, "iota" or
        None; returns the written View (a fresh one unless ``out``)."""
        fresh = out is None
        if fresh:
            out = self.new(shape, dt)
        shape = out.shape
        out_st = out.st
        binding = limits.binding_size()
        big = out_st.buf.nbytes > binding
        srcs, spec = [], []
        cond = 0 if op == "where" and type(args[0]) is View else -1
        for a in args:
            if type(a) is View:
                st = a.st
                if st is out_st and not fresh and (a.strides != out.strides or a.offset != out.offset):
                    a = self.ew("copy", [a], a.dtype, a.dtype, a.shape)  # read what this overwrites: snapshot it
                    st = a.st
                spec.append(len(srcs))
                big = big or st.buf.nbytes > binding
                srcs.append((a.src or src_of(a)) if a.shape == shape else
                            Src(st.buf, broadcast_strides(a.shape, a.strides, shape), a.offset, st.dtype))
            elif a is None or a == "iota" or isinstance(a, tuple):
                spec.append(a)
            else:
                spec.append(("c", a))
        dt = out_st.dtype
        o = out.src
        if o is None:  # graph.src_of inlined: a fresh out has none yet, and this is every op's path
            o = out.src = Src(out_st.buf, out.strides, out.offset, dt)
        node = DeviceOp("ew", shape, o, srcs, {"op": op, "args": spec, "cdt": cdt, "dt": dt, "cond": cond, "fresh": fresh})
        if big:  # an operand past one binding: windowed pieces (binding_windows.py)
            binding_windows.record_elementwise(self, node)
        else:
            self.record_node(node)
        if fresh and op == "copy" and srcs and dt in BOUNDED and srcs[0].dtype in BOUNDED:
            b = srcs[0].buf.bounds  # an integer copy or cast keeps the values (unless a narrowing cast wraps them)
            keep_bounds(out, b if b is None or dt is D.int64 or T.I32_MIN <= b[0] <= b[1] <= T.I32_MAX else None)
        return out

    def record_kernel(self, name, source, params, groups, buffers, reads, writes, epilogue_shape=None):
        """Record one template-kernel dispatch: ``buffers`` (Buffers) bound in order, ``reads`` the Buffers it
        reads, ``writes`` those it writes (writes[0] is the node's out; several are fine). ``epilogue_shape``:
        the kernel stores its whole contiguous out of this shape through ``fn epilogue`` (epilogue.py)."""
        out = writes[0]
        node = DeviceOp("kernel", epilogue_shape or (), Src(out, (), 0, D.float32),
                    [Src(b, (), 0, D.float32) for b in reads],
                    {"name": name, "source": source, "params": params, "groups": groups,
                     "buffers": list(buffers), "writes": tuple(writes[1:]), "epilogue": epilogue_shape is not None})
        self.record_node(node)
