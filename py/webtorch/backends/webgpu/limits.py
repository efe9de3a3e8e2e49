"""The limits every kernel launch of the webgpu device respects, and a way to force them small in tests.

* ``workgroups()``: maxComputeWorkgroupsPerDimension (65,535 on every adapter today). A launch whose
  workgroup count passes it in some dimension is split (a 2-D grid, or several dispatches with offsets);
  the pending queue refuses, naming the kernel and the limit, any dispatch that still passes it.
* ``loop_trips()``: how many loop iterations one invocation may run in total. Mesa's llvmpipe (lavapipe,
  the CPU adapter of CPython tests) ends every loop of an invocation once 65,535 iterations have run in
  all (gallivm's loop limiter) -- silently, so a 70,000-long dot product returned 65535.0. Kernels whose
  loops grow with a dimension (a product's K, a reduced row, a scanned row) are split so that one
  invocation's loops stay within this budget: on every adapter, so the split is the same code everywhere.
* ``binding_size()``: maxStorageBufferBindingSize, the most bytes one binding may show of a buffer (128 MiB on
  lavapipe and by default in Chrome, far below maxBufferSize). A launch that meets a larger storage binds
  windows of it and is split so that each operand's window fits (binding_windows.py).

Each device's Recorder holds one ``Limits`` (``rec.limits``; a buffer reaches it as ``buf.pool.limits``); kernels
read it from the recorder, a buffer or a parameter -- never from module state.
``get_backend().limits.forced(workgroups=..., loop_trips=..., binding=..., buffer=...)`` sets any of them (or
maxBufferSize) lower for a test (tests/backends/webgpu/test_size_limits.py, test_big_tensors.py), so every split
path runs at small sizes; it clears the launch plans built under the old limits.
"""
import contextlib

# a little under 65,535: kernels also run short loops (tile loads, tails) besides the one we size
LOOP_TRIPS = 60000


class Limits:
    """One device's limits: the adapter's values (``adapter``: the runtime's limits, WebGPU's names; WebGPU's
    defaults where it names none), the values a test forced lower, and the launch-plan caches built under them.
    ``flush`` submits the device's pending launches (``forced`` does before changing the limits they were planned
    under). The Recorder owns one (``rec.limits``, also ``BufferPool.limits``, so a buffer reaches its device's)."""

    def __init__(self, adapter, flush):
        self.adapter_workgroups = int(adapter.get("maxComputeWorkgroupsPerDimension", 65535))
        self.adapter_binding = int(adapter.get("maxStorageBufferBindingSize", 1 << 27))
        self.adapter_buffer = int(adapter.get("maxBufferSize", 1 << 28))
        self.flush = flush
        self._forced = {"workgroups": None, "loop_trips": None, "binding": None, "buffer": None}
        self._caches = []  # dicts of launch plans that depend on the limits (cleared when they change)

    def _pick(self, name, adapter):
        v = self._forced[name]
        return adapter if v is None else v

    def workgroups(self):
        """Largest workgroup count of one dispatch dimension."""
        return self._pick("workgroups", self.adapter_workgroups)

    def loop_trips(self):
        """Loop iterations one invocation may run (see the module docstring)."""
        return self._pick("loop_trips", LOOP_TRIPS)

    def binding_size(self):
        """Most bytes one storage binding may show (maxStorageBufferBindingSize, or the forced value)."""
        return self._pick("binding", self.adapter_binding)

    def buffer_size(self):
        """Most bytes one buffer may hold (maxBufferSize, or the forced value): the largest tensor the device can
        store."""
        return self._pick("buffer", self.adapter_buffer)

    def register_cache(self, d):
        """Clear dict ``d`` whenever the limits change (its entries hold workgroup counts or splits)."""
        self._caches.append(d)
        return d

    def _clear_caches(self):
        for d in self._caches:
            d.clear()

    @contextlib.contextmanager
    def forced(self, workgroups=None, loop_trips=None, binding=None, buffer=None):
        """Run the block with lower limits (tests): every launch plan is rebuilt under them and again after."""
        self.flush()  # pending launches were planned under the old limits
        old = dict(self._forced)
        wanted = {"workgroups": workgroups, "loop_trips": loop_trips, "binding": binding, "buffer": buffer}
        self._forced.update({k: int(v) for k, v in wanted.items() if v is not None})
        self._clear_caches()
        try:
            yield self
        finally:
            self._forced = old
            self._clear_caches()
