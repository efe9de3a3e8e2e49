"""Device "cpu" as WebAssembly: kernels.wasm (wasm-kernels/, C compiled for wasm32 with SIMD128) run eagerly.

In the page the module runs in the browser's own WebAssembly engine (runtime_browser.py); in CPython through
PyPI's wasmtime (runtime_wasmtime.py), where WEBTORCH_CPU_BACKEND=wasm makes it serve "cpu" (tests, benchmarks).
``get_backend()`` instantiates the module on first use.
"""
import sys

_state = {"backend": None}


def _make_runtime():
    if sys.platform == "emscripten":
        from .runtime_browser import RuntimeBrowser
        return RuntimeBrowser()
    from .runtime_wasmtime import RuntimeWasmtime
    return RuntimeWasmtime()


def get_backend():
    if _state["backend"] is None:
        from .backend import WasmBackend
        _state["backend"] = WasmBackend(_make_runtime())
    return _state["backend"]
