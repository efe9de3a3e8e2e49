"""Process-wide settings scripts set at start-up: matmul precision, deterministic algorithms, thread counts,
denormal flushing, and torch.compile. webtorch keeps each setting so it reads back as PyTorch's does; none
changes a result: matmuls run in float32 whatever the precision, every op is deterministic per backend (a GEMM split
across threads gives one thread's bits). ``set_num_threads`` caps the threads device "cpu" (WebAssembly) runs a
GEMM on in a cross-origin isolated page (backends/wasm/threads.py); unset, it uses every core the page offers."""
import os
import warnings

from .backends.wasm import threads as wasm_threads

_state = {"matmul_precision": "highest", "deterministic": False, "deterministic_warn_only": False,
          "num_threads": None, "num_interop_threads": 1}


def set_float32_matmul_precision(precision):
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.")
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _state["matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    _state["deterministic"] = bool(mode)
    _state["deterministic_warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _state["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _state["deterministic_warn_only"]


def _positive(name, n):
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return n


def set_num_threads(n):
    _state["num_threads"] = _positive("set_num_threads", n)
    wasm_threads.cap["threads"] = n  # device "cpu"'s worker threads in the page


def get_num_threads():
    """The cap set_num_threads set, else the machine's cores (PyTorch's default)."""
    return _state["num_threads"] or os.cpu_count() or 1


def set_num_interop_threads(n):
    _state["num_interop_threads"] = _positive("set_num_interop_threads", n)


def get_num_interop_threads():
    return _state["num_interop_threads"]


def set_flush_denormal(mode):
    """False: webtorch cannot switch the FPU's denormal mode (PyTorch's answer where unsupported)."""
    return False


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """``torch.compile``: returns ``model`` unchanged (webtorch runs eagerly; on webgpu its pending queue already
    fuses elementwise chains), so ``model = torch.compile(model)`` runs with the same results."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("torch.compile: the model must be a callable (an nn.Module or a function)")
    return model
