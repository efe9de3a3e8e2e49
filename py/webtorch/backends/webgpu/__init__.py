"""Device "webgpu": pending queue -> fused WGSL kernels -> one batched submit per flush.

``get_backend()`` returns the device's Backend (created on first use); ``is_available()`` tells
whether a WebGPU adapter exists (wgpu-py natively; the browser's navigator.gpu in Pyodide).
"""
import sys

_state = {"backend": None, "available": None}


def _make_runtime():
    if sys.platform == "emscripten":
        from .runtime_browser import RuntimeBrowser
        return RuntimeBrowser()
    from .runtime_native import RuntimeNative
    return RuntimeNative()


def is_available():
    """Whether a WebGPU device exists. In Pyodide, asking creates the device (the browser's answer is
    asynchronous); where Python cannot block for it, raises BridgeInitRequired, and nothing is cached."""
    if _state["available"] is None:
        if _state["backend"] is not None:
            _state["available"] = True
        elif sys.platform == "emscripten":
            from .runtime import BridgeInitRequired
            try:
                get_backend()
                _state["available"] = True
            except BridgeInitRequired:
                raise
            except Exception:  # noqa: BLE001 -- no navigator.gpu / no adapter: not available
                _state["available"] = False
        else:
            from .runtime_native import request_adapter
            _state["available"] = request_adapter() is not None
    return _state["available"]


def is_initialized():
    """Whether the device's Backend exists (a tensor or a query has set it up)."""
    return _state["backend"] is not None


async def init_async():
    """Request the device without blocking (Pyodide entered synchronously); then ``is_available()`` answers."""
    if _state["backend"] is None and _state["available"] is None and sys.platform == "emscripten":
        from .runtime import WebGPUError
        from .runtime_browser import create_bridge_async
        try:
            await create_bridge_async()
        except WebGPUError:
            _state["available"] = False
    return is_available()


def get_backend():
    be = _state["backend"]
    if be is None:
        from .backend import WebGPUBackend
        be = _state["backend"] = WebGPUBackend(_make_runtime())
    return be
