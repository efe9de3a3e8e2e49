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

``forced(workgroups=..., loop_trips=..., binding=..., buffer=...)`` sets any of them (or maxBufferSize) lower for a
test (tests/backends/webgpu/test_size_limits.py, tests/backends/webgpu/test_big_tensors.py), so every split path
runs at small sizes; it clears the launch plans built under the old limits.
"""
import contextlib

# a little under 65,535: kernels also run short loops (tile loads, tails) besides the one we size
_LOOP_TRIPS = 60000
_state = {"workgroups": None, "loop_trips": _LOOP_TRIPS, "adapter_workgroups": 65535, "flush": None,
          "binding": None, "adapter_binding": 1 << 27, "buffer": None, "adapter_buffer": 1 << 28}
_caches = []  # dicts of launch plans that depend on the limits (cleared when they change)


def set_adapter(limits, flush):
    """Take maxComputeWorkgroupsPerDimension, maxStorageBufferBindingSize and maxBufferSize from the runtime's
    limits (called once per device; WebGPU's defaults where the runtime names none); ``flush`` submits the
    device's pending launches (``forced`` does before changing the limits they were planned under)."""
    _state["adapter_workgroups"] = int(limits.get("maxComputeWorkgroupsPerDimension", 65535))
    _state["adapter_binding"] = int(limits.get("maxStorageBufferBindingSize", 1 << 27))
    _state["adapter_buffer"] = int(limits.get("maxBufferSize", 1 << 28))
    _state["flush"] = flush


def workgroups():
    """Largest workgroup count of one dispatch dimension."""
    w = _state["workgroups"]
    return _state["adapter_workgroups"] if w is None else w


def loop_trips():
    """Loop iterations one invocation may run (see the module docstring)."""
    return _state["loop_trips"]


def binding_size():
    """Most bytes one storage binding may show (maxStorageBufferBindingSize, or the forced value)."""
    b = _state["binding"]
    return _state["adapter_binding"] if b is None else b


def buffer_size():
    """Most bytes one buffer may hold (maxBufferSize, or the forced value): the largest tensor the device can store."""
    b = _state["buffer"]
    return _state["adapter_buffer"] if b is None else b


def register_cache(d):
    """Clear dict ``d`` whenever the limits change (its entries hold workgroup counts or splits)."""
    _caches.append(d)
    return d


@contextlib.contextmanager
def forced(workgroups=None, loop_trips=None, binding=None, buffer=None):
    """Run the block with lower limits (tests): every launch plan is rebuilt under them and again after."""
    if _state["flush"] is not None:  # pending launches were planned under the old limits
        _state["flush"]()
    wanted = {"workgroups": workgroups, "loop_trips": loop_trips, "binding": binding, "buffer": buffer}
    old = {k: _state[k] for k in wanted}  # only these: a device set up inside the block keeps its adapter's values
    for k, v in wanted.items():
        if v is not None:
            _state[k] = int(v)
    for d in _caches:
        d.clear()
    try:
        yield
    finally:
        _state.update(old)
        for d in _caches:
            d.clear()
