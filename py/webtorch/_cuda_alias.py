"""The cuda alias: whether "cuda" names webtorch's GPU device, "webgpu".

While it is on, ``torch.cuda.is_available()`` is True and ``"cuda"``, ``"cuda:0"``, ``torch.device("cuda")``,
``.cuda()`` and ``torch.cuda.*`` land on webgpu, so ``device = "cuda" if torch.cuda.is_available() else "cpu"``
trains on WebGPU. While it is off, torch.cuda answers as a PyTorch build without CUDA.

Who decides (first use reads it; ``webtorch.cuda.use_webgpu`` changes it at any time):
- ``webtorch.cuda.use_webgpu(True | False)``, or ``WEBTORCH_CUDA=webgpu | none`` in the environment;
- otherwise CPython: off (a CPU-only PyTorch's answer; the WebGPU adapter there is often a software one);
- otherwise the page: on when the browser's WebGPU adapter is a GPU, off when it is a CPU fallback (SwiftShader:
  its shaders run on the CPU, and "cpu" -- WebAssembly -- trains the compat programs 3x faster there; README,
  "Devices in the page") and when the browser has no WebGPU.
It is on only where WebGPU is available: asked for without an adapter, "cuda" stays unavailable.
"""
import os
import sys

_choice = {"webgpu": None}  # True / False: asked for; None: the environment or the platform decides


def use_webgpu(enabled=True):
    """Make "cuda" name the webgpu device (``True``), stop it (``False``), or leave it to the platform (``None``:
    in the page on when the adapter is a GPU)."""
    _choice["webgpu"] = None if enabled is None else bool(enabled)


def _asked():
    """True / False when the program or the environment asked, None when the platform decides."""
    if _choice["webgpu"] is None:
        env = os.environ.get("WEBTORCH_CUDA", "").strip().lower()
        if env not in ("", "webgpu", "none"):
            raise RuntimeError(f"WEBTORCH_CUDA={env!r} is not understood; set it to 'webgpu' (\"cuda\" names the "
                               "webgpu device) or 'none' (no CUDA, as a CPU-only PyTorch)")
        return {"webgpu": True, "none": False}.get(env)
    return _choice["webgpu"]


def _adapter():
    """"gpu", "cpu fallback" or None (no WebGPU) for this process's WebGPU adapter."""
    from .backends import webgpu
    if not webgpu.is_available():
        return None
    return "cpu fallback" if webgpu.get_backend().rt.cpu_adapter else "gpu"


def status():
    """(on, why): whether "cuda" names webgpu now, and the reason in words (the notebook's device panel)."""
    asked = _asked()
    if asked is False:
        return False, "switched off (webtorch.cuda.use_webgpu(False) or WEBTORCH_CUDA=none)"
    if asked is None and sys.platform != "emscripten":
        return False, "off in CPython unless asked for (webtorch.cuda.use_webgpu() or WEBTORCH_CUDA=webgpu)"
    adapter = _adapter()
    if adapter is None:
        return False, "unavailable: this browser has no WebGPU adapter" if sys.platform == "emscripten" else \
            "unavailable: no WebGPU adapter"
    if asked:
        return True, "switched on (webtorch.cuda.use_webgpu() or WEBTORCH_CUDA=webgpu)"
    if adapter == "gpu":
        return True, "the WebGPU adapter is a GPU"
    return False, ("the WebGPU adapter is a CPU fallback, where \"cpu\" trains faster; "
                   "webtorch.cuda.use_webgpu() turns it on")


def is_on():
    """Whether "cuda" names the webgpu device now."""
    return status()[0]
