"""webtorch.webgpu: the webgpu device's counterpart of torch.cuda / torch.mps.

Example::

    import webtorch as torch
    if torch.webgpu.is_available():
        x = torch.randn(256, 256, device="webgpu")
        y = (x @ x).relu().sum()
        torch.webgpu.synchronize()
        print(torch.webgpu.stats()["dispatches"], torch.webgpu.memory_allocated())
"""
from ._webgpu_graph import CUDAGraph, Graph, graph, is_current_stream_capturing  # noqa: F401


def is_available():
    """True when a WebGPU adapter exists (wgpu-py natively, navigator.gpu in the browser).

    In Pyodide the first call sets the device up (webtorch's JS bridge, from the wheel when the page did not
    install one). Where Python was entered synchronously (``pyodide.runPython``, a JS callback) it cannot wait
    for the browser, and raises an error that asks for ``await webtorch.webgpu.init_async()`` first."""
    from .backends import webgpu
    from .backends.webgpu.runtime import BridgeInitRequired
    try:
        return webgpu.is_available()
    except BridgeInitRequired:
        raise
    except Exception:  # noqa: BLE001 -- a broken driver means "not available", never a crash here
        return False


def is_initialized():
    """Whether the webgpu device has been set up in this process (as ``torch.cuda.is_initialized()``)."""
    from .backends import webgpu
    return webgpu.is_initialized()


async def init_async():
    """Set up the webgpu device without blocking; returns ``is_available()``.

    Needed once in Pyodide code entered synchronously (``pyodide.runPython``, a JS callback), where the
    device cannot be requested on first use; elsewhere (runPythonAsync, JupyterLite and IPython cells, a
    Web Worker, CPython) the first use of "webgpu" sets it up by itself. Example::

        await webtorch.webgpu.init_async()
        x = webtorch.ones(3, device="webgpu")
    """
    from .backends import webgpu
    return await webgpu.init_async()


def _backend():
    from .backends import webgpu
    return webgpu.get_backend()


def device_count():
    return 1 if is_available() else 0


def synchronize(device=None):
    """Run every pending op (one batched submit) and wait for the device."""
    _backend().recorder.synchronize()  # waits; raises a failed device-side check (device_checks.py)


async def synchronize_async(device=None):
    """``synchronize()`` for code that cannot block (in Pyodide: entered through runPython or a JS callback)."""
    be = _backend()
    be.recorder.flush_before_wait()
    wait = getattr(be.rt, "wait_async", None)
    if wait is None:
        be.rt.wait()
    else:
        await wait()


def memory_allocated(device=None):
    """Bytes held by live webgpu tensors (after running pending ops), rounded to the pool's size classes."""
    be = _backend()
    be.flush()
    return be.pool.allocated


def max_memory_allocated(device=None):
    """Peak of memory_allocated() since start or the last reset_peak_memory_stats()."""
    be = _backend()
    be.flush()
    return be.pool.peak


def memory_reserved(device=None):
    """Bytes of device buffers held by the pool: in use plus cached for reuse."""
    be = _backend()
    be.flush()
    return be.pool.reserved


def reset_peak_memory_stats(device=None):
    be = _backend()
    be.flush()
    be.pool.peak = be.pool.allocated


def empty_cache():
    """Give the pool's cached (unused) buffers back to the device."""
    be = _backend()
    be.flush()
    be.pool.empty_cache()


def info():
    """The device as granted: ``adapter`` (one line naming it), ``limits`` (WebGPU names: the adapter's own values,
    requested at device creation since WebGPU's defaults are lower -- maxStorageBufferBindingSize is the most one
    kernel binding shows of a tensor, maxBufferSize the largest tensor the device can hold; tensors between the two
    are bound in windows), ``features`` (shader-f16, subgroups) and ``cpu_adapter`` (shaders run on the CPU:
    SwiftShader, lavapipe)."""
    rt = _backend().rt
    return {"adapter": rt.description, "limits": dict(rt.limits), "features": sorted(rt.features),
            "cpu_adapter": bool(rt.cpu_adapter)}


def stats(reset=False):
    """Counters since start (or the last ``stats(reset=True)``): dispatches, submits, flushes, readbacks
    (device reads: item/tolist/numpy/printing and the index checks that had to look), host_fallbacks (and
    host_fallback_ops: which primitive fell back how often), kernels_compiled, nodes_fused, nodes_dropped,
    flush_reuses (flushes that reused the schedule of an identical earlier one);
    in the browser also bridge_calls (FFI crossings into bridge.js) and gpu_waits; plus the memory figures."""
    be = _backend()
    d = be.stats.as_dict()
    d.update(getattr(be.rt, "counters", {}))
    d.update(memory_allocated=be.pool.allocated, max_memory_allocated=be.pool.peak,
             memory_reserved=be.pool.reserved, pending_nodes=len(be.recorder.pending.nodes), adapter=be.rt.description)
    if reset:
        reset_stats()
    return d


def reset_stats():
    be = _backend()
    be.stats.reset()
    counters = getattr(be.rt, "counters", {})
    for k in counters:
        counters[k] = 0


def host_fallback_primitives():
    """Names of the backend primitives that still run on the host (NumPy) on this device."""
    from .backends.webgpu.backend import WebGPUBackend
    return sorted(WebGPUBackend.host_fallbacks)


def manual_seed(seed):
    from .ops.creation import default_generator
    default_generator("webgpu").manual_seed(seed)
