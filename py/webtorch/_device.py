"""torch.device and the registry that maps a device type to its backend (loaded lazily)."""

_BACKEND_MODULES = {
    "cpu": "webtorch.backends.numpy_backend",
    "webgpu": "webtorch.backends.webgpu",
}
_backends = {}


class device:
    __slots__ = ("type", "index")

    def __new__(cls, type_or_str, index=None):
        if isinstance(type_or_str, device):
            return type_or_str
        s = str(type_or_str)
        if ":" in s:
            s, idx = s.split(":", 1)
            index = int(idx)
        if s not in _BACKEND_MODULES:
            if s in ("cuda", "mps", "xpu", "ipu", "hip", "xla", "meta"):
                raise RuntimeError(
                    f"device '{s}' is not available in webtorch; use .to(\"webgpu\") for the GPU or \"cpu\"")
            raise RuntimeError(f"Expected one of cpu, webgpu device type at start of device string: {type_or_str}")
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


def backend_for(dev):
    """The backend object for a device type, importing it on first use."""
    t = dev.type if isinstance(dev, device) else device(dev).type
    be = _backends.get(t)
    if be is None:
        import importlib
        be = importlib.import_module(_BACKEND_MODULES[t]).get_backend()
        _backends[t] = be
    return be


class _DefaultDevice:
    value = None


_default_device = _DefaultDevice()


def get_default_device():
    """"cpu" in CPython; in Pyodide "webgpu" when the browser grants a WebGPU device. Decided once the
    device question has an answer: where Python cannot wait for the browser yet, the error asks for
    ``await webtorch.webgpu.init_async()`` and nothing is cached."""
    if _default_device.value is None:
        import sys
        d = _CPU
        if sys.platform == "emscripten":
            from . import webgpu
            if webgpu.is_available():
                d = device("webgpu")
        _default_device.value = d
    return _default_device.value


def set_default_device(d):
    _default_device.value = device(d) if d is not None else _CPU
