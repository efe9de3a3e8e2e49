"""The recording machinery of device "webgpu": one Recorder per device, passed to every family module.

It owns the runtime, the buffer pool, the stats, the error word, the pending queue, the plan cache with its
planner, and the capture state, and offers what every kernel family records with: ``new`` (a fresh contiguous
View), ``ew`` (one elementwise node), ``record_kernel`` (one template-kernel dispatch), ``record_node`` (a DeviceOp
built by the family: reductions, products, random draws), ``upload`` and ``read`` (host bytes in and out; a read
flushes), ``flush`` and ``host_exchange`` (the gate of every host round-trip).
The family modules (``*_kernels.py``, creation.py, transfer.py) are plain functions of a Recorder;
backend.py's WebGPUBackend delegates each primitive to one of them.

A flush goes one way: the pending queue (pending.py) hands its ops to the plan cache (plan_cache.py), which binds
a remembered Plan or asks the planner (planner.py) for a fresh Schedule; the Schedule goes to the one sink,
``_sink``, which submits it to the runtime or, while a capture records, keeps it in the Capture (capture.py).
"""
import functools

from ... import _dtype as D
from . import binding_windows, capture, device_checks, dtypes as T, limits
from .handles import DeviceOp, Src, Storage, StorageAlias, View, src_of
from .index_bounds import BOUNDED, keep_bounds, known_bounds
from .memory import BufferPool
from .pending import PendingQueue
from .plan_cache import PlanCache
from .planner import Planner
from .stats import Stats
from ..._lru import LRU
from ..._geometry import contiguous_strides, expand_strides as broadcast_strides


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


@functools.lru_cache(maxsize=4096)  # dynamic shapes (varying sequence lengths) must not grow it without bound
def _fresh_geometry(shape):
    """(numel, contiguous strides, shape as a tuple of ints) of a fresh output of ``shape`` (a tuple): computed
    once per shape, as every op's result asks for it; an equal shape of other int types shares the entry."""
    shape = tuple([int(s) for s in shape])
    return numel(shape), contiguous_strides(shape), shape


class Recorder:
    """Records device work into the pending queue; ``flush`` submits it (one batch), reads flush first."""

    def __init__(self, runtime):
        self.rt = runtime
        self.limits = limits.Limits(runtime.limits, self.flush)
        self.features = T.Features(runtime.features)
        # (operand geometries, batch, kernel) -> matmul_kernels' launch plan, built under these limits
        self.matmul_plans = self.limits.register_cache(LRU(4096))
        self.pool = BufferPool(runtime, self.limits)
        self.stats = Stats()
        self.checks = device_checks.ErrorWord(runtime, self.pool)
        self.planner = Planner(runtime, self.stats, self.checks.buf, self.limits, self.features)
        self.plans = PlanCache(self.planner)
        self.pending = PendingQueue(self._flush_full, self.limits)
        self.record_node = self.pending.record  # bound once: every recorded op calls it
        self.capture = None  # capture.Capture while webtorch.webgpu.graph records
        self.scratch = {}  # small per-device buffers a family keeps (scan_sort_kernels' unused index output)

    # ---- the flush: pending queue -> plan cache -> planner -> sink ------------------------------------------
    def flush(self):
        """Plan and submit every pending op (one batched submit); does not wait (webgpu.synchronize does)."""
        nodes = self.pending.take()
        if nodes:
            self._sink(self.plans.schedule(nodes))

    def _flush_full(self):
        self.flush()
        self.rt.submit()  # no read follows this flush: start the device on it now

    def _sink(self, schedule):
        """Where every Schedule goes: submitted to the runtime (arming the error word when a dispatch checks), or
        kept by the active capture; then an error the planner met (the ops before it ran) is raised."""
        stats = self.stats
        cap = self.capture
        batch = schedule.batch
        if cap is not None:
            cap.add(schedule)
        elif len(batch):
            self.rt.run(batch)
            stats.dispatches += len(batch)
            stats.submits += 1
            if schedule.arms:
                self.checks.armed = True
        stats.flushes += 1
        if schedule.error is not None:
            raise schedule.error

    # ---- host round-trips ----------------------------------------------------------------------------------
    def host_exchange(self, what, fix=None):
        """The gate every exchange of values between host and device passes: uploads, reads, waits for the
        device, host-drawn random seeds, host fallbacks, host-known index bounds. True when it may happen now.
        While a capture records, a replay could not repeat it: with ``fix`` it raises (naming ``what`` and
        ``fix``); without, the caller has a device-side way and gets False."""
        if self.capture is None:
            return True
        if fix is None:
            return False
        capture.refuse(what, fix)

    def flush_before_wait(self):
        """Submit the pending ops before the host waits for the device (``synchronize``, ``synchronize_async``)."""
        self.host_exchange("waiting for the device (webtorch.webgpu.synchronize())",
                           "synchronize after the capture ends")
        self.flush()

    def synchronize(self):
        """Submit the pending ops and wait for the device; raises a failed device-side check (device_checks.py)."""
        self.flush_before_wait()
        self.checks.check()

    # ---- capture (webtorch.webgpu.Graph) -------------------------------------------------------------------
    def begin_capture(self):
        """Start capturing: earlier work is submitted and finished first (as torch.cuda.graph synchronizes)."""
        if self.capture is not None:
            raise RuntimeError("a webtorch.webgpu graph is already capturing: captures do not nest; end the first one")
        self.synchronize()
        self.capture = capture.Capture()

    def end_capture(self):
        """Stop capturing; the CapturedStep of what was recorded since ``begin_capture`` (none of it ran yet)."""
        self.flush()
        cap, self.capture = self.capture, None
        return capture.CapturedStep(self.rt.program(cap.batch), tuple(cap.buffers), len(cap.batch),
                                    self.checks.buf in cap.buffers)

    def abort_capture(self):
        """Drop a capture the user's code failed inside: its recorded work never runs."""
        self.capture = None
        self.pending.take()

    def replay(self, step):
        """Submit CapturedStep ``step`` once, after the work recorded before it (a copy into a static input)."""
        if self.capture is not None:
            capture.refuse("replaying a captured graph", "replay it after the capture ends")
        self.flush()
        self.rt.replay(step.program)
        self.stats.dispatches += step.dispatches
        self.stats.submits += 1
        if step.arms_checks:
            self.checks.armed = True

    # ---- recording -----------------------------------------------------------------------------------------
    def new(self, shape, dtype):
        """A fresh contiguous View of ``shape`` (its storage is allocated when a kernel first writes it)."""
        if dtype is not D.float32:  # always supported: skip the check on the common dtype
            T.check(dtype, self.features)
        n, strides, shape = _fresh_geometry(shape if type(shape) is tuple else tuple(shape))
        return View(Storage(n, dtype, self.pool), shape, strides, 0)

    def upload(self, data, shape, dtype):
        """A fresh View holding ``data`` (the device's bytes of its elements, C order)."""
        self.host_exchange("creating a webgpu tensor from host data (torch.tensor, .to('webgpu'), copy_ from cpu)",
                           "create it before the capture and copy_ new values into it before each replay")
        v = self.new(shape, dtype)
        if data:
            pad = (-len(data)) % 4
            buf = v.st.buf
            self.rt.write(buf.ensure(), 0, bytes(data) + b"\0" * pad if pad else data)
        return v

    def read(self, h):
        """Device bytes of view h in C order (flushes pending work)."""
        self.host_exchange("reading a webgpu tensor's values (.item(), .tolist(), .numpy(), printing, .cpu())",
                           "read the static outputs after graph.replay()")
        if not (h.is_contiguous() and h.numel):
            if not h.numel:
                return b""
            h = self.ew("copy", [h], h.dtype, h.dtype, h.shape)
        self.flush()
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
        if type(out_st) is StorageAlias or any(type(a) is View and type(a.st) is StorageAlias for a in args):
            args = self._one_type_per_buffer(args, out)
        binding = self.limits.binding_size()
        big = out_st.buf.nbytes > binding
        srcs, spec = [], []
        cond = 0 if op == "where" and type(args[0]) is View else -1
        for a in args:
            if type(a) is View:
                st = a.st
                if (st.buf is out_st.buf and not fresh  # (the same buffer: the same storage, under any dtype)
                        and (st.dtype is not out_st.dtype or a.strides != out.strides or a.offset != out.offset)):
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
        if o is None:  # handles.src_of inlined: a fresh out has none yet, and this is every op's path
            o = out.src = Src(out_st.buf, out.strides, out.offset, dt)
        node = DeviceOp("ew", shape, o, srcs,
                        {"op": op, "args": spec, "cdt": cdt, "dt": dt, "cond": cond, "fresh": fresh})
        if big:  # an operand past one binding: windowed pieces (binding_windows.py)
            binding_windows.record_elementwise(self, node)
        else:
            self.record_node(node)
        if fresh and op == "copy" and srcs and dt in BOUNDED and srcs[0].dtype in BOUNDED:
            # an integer copy or cast keeps the values (unless a narrowing cast wraps them)
            b = known_bounds(srcs[0].buf, srcs[0].dtype)
            keep_bounds(out, b if b is None or dt is D.int64 or T.I32_MIN <= b[0] <= b[1] <= T.I32_MAX else None)
        return out

    def _one_type_per_buffer(self, args, out):
        """args, each View reading a buffer that out or an earlier operand holds under another WGSL storage type
        (a view(dtype) of it) replaced by a copy: a kernel binds a buffer under one type (codegen)."""
        types = {id(out.st.buf): T.storage_type(out.dtype)}
        res = []
        for a in args:
            if type(a) is View and types.setdefault(id(a.st.buf), T.storage_type(a.dtype)) != T.storage_type(a.dtype):
                a = self.ew("copy", [a], a.dtype, a.dtype, a.shape)
            res.append(a)
        return res

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
