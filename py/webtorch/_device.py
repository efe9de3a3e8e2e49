"""torch.device and the registry that maps a device type to its backend (loaded lazily)."""
import os
import sys

_CPU_BACKENDS = {"numpy": "webtorch.backends.numpy", "wasm": "webtorch.backends.wasm"}


def _cpu_backend_module():
    """What serves "cpu": in the page (Pyodide) the WebAssembly kernels; in CPython NumPy, or the WebAssembly kernels
    when WEBTORCH_CPU_BACKEND=wasm (tests and benchmarks run them through wasmtime)."""
    choice = os.environ.get("WEBTORCH_CPU_BACKEND", "wasm" if sys.platform == "emscripten" else "numpy")
    if choice not in _CPU_BACKENDS:
        raise ValueError(f"WEBTORCH_CPU_BACKEND={choice!r}: expected one of {', '.join(_CPU_BACKENDS)}")
    return _CPU_BACKENDS[choice]


_BACKEND_MODULES = {
    "cpu": _cpu_backend_module(),
    "webgpu": "webtorch.backends.webgpu",
}
_backends = {}
# Device types PyTorch names: they construct (scripts probe and print them), but webtorch has no storage there.
_FOREIGN_TYPES = ("cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
                  "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


class device:
    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            return type_or_str
        s = str(type_or_str)
        if ":" in s:
            s, idx = s.split(":", 1)
            index = int(idx)
        if s == "cuda":
            from ._cuda_alias import is_on
            if is_on():  # the cuda alias: "cuda" names the webgpu device (_cuda_alias.py)
                s = "webgpu"
        if s not in _BACKEND_MODULES and s not in _FOREIGN_TYPES:
            raise RuntimeError(f"Expected one of cpu, webgpu, {', '.join(_FOREIGN_TYPES)} device type at start of "
                               f"device string: {type_or_str}")
        self = object.__new__(cls)
        self.type = s
        self.index = index
        return self

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and (
            self.index == other.index or self.index is None or other.index is None)

    def __hash__(self):
        return hash(self.type)

    def __reduce__(self):
        return (device, (str(self),))


_CPU = device("cpu")


def no_storage_error(t):
    """The error for placing data on a device type PyTorch knows but webtorch has no storage for."""
    what = "Torch not compiled with CUDA enabled" if t == "cuda" else \
        f"PyTorch is not linked with support for {t} devices"
    return RuntimeError(f"{what}: webtorch has no '{t}' device; use .to(\"webgpu\") for the GPU or \"cpu\"")


def backend_for(dev):
    """The backend object for a device type, importing it on first use."""
    t = dev.type if isinstance(dev, device) else device(dev).type
    be = _backends.get(t)
    if be is None and t not in _BACKEND_MODULES:
        raise no_storage_error(t)
    if be is None:
        be = _import_backend(t).get_backend()
        _backends[t] = be
    return be


def _import_backend(t):
    """The backend module of device type ``t``; "cpu" served by the NumPy backend (CPython, or the page with
    WEBTORCH_CPU_BACKEND=numpy) loads NumPy in the page where it can, else raises an error naming the way out."""
    import importlib
    try:
        return importlib.import_module(_BACKEND_MODULES[t])
    except ModuleNotFoundError as e:
        if e.name != "numpy":
            raise
        from ._numpy_interop import require_numpy
        require_numpy(f"device '{t}' (webtorch's NumPy backend; WEBTORCH_CPU_BACKEND=wasm needs none)")
        return importlib.import_module(_BACKEND_MODULES[t])


class _DefaultDevice:
    value = None


_default_device = _DefaultDevice()


def get_default_device():
    """"cpu", as PyTorch's default, in CPython and in the page alike (there the WebAssembly backend): code lands on
    WebGPU when it names it -- "webgpu", ``torch.accelerator.current_accelerator()``, or "cuda" while the cuda
    alias is on (_cuda_alias.py). Measured in the page (README, "Devices in the page"): this rule passes the same
    compat programs as a default of "webgpu", and runs them several times faster on a CPU-fallback adapter."""
    return _default_device.value or _CPU


def set_default_device(d):
    _default_device.value = device(d) if d is not None else _CPU
