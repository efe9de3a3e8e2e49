"""The one host fallback: run a primitive call the WGSL kernels do not serve on the NumPy backend (which calls:
host_rules.py, the table WebGPUBackend is built with).

Inputs are read back (flushing the queue), the NumPy backend computes, results are uploaded; an input
the primitive wrote in place (in-place primitives, optimizer updates) is written back to its view.
Every call is counted in ``webtorch.webgpu.stats()["host_fallbacks"]`` and named in
``stats()["host_fallback_ops"]`` -- a fallback is never silent.
"""
from . import transfer
from .elementwise_kernels import copy_
from .handles import View


def count_fallback(rec, name):
    rec.stats.host_fallbacks += 1
    rec.stats.fallback_ops[name] = rec.stats.fallback_ops.get(name, 0) + 1


def host_fallback(rec, name, *args, **kwargs):
    """NumpyBackend.<name>(*args, **kwargs) with every View among them (nested in lists too) read back, and every
    array it returns uploaded (an input array it returns: that input's View)."""
    rec.host_exchange(f"'{name}', which runs on the host on this device (no WGSL kernel yet)",
                      "compute it outside the capture, or on device 'cpu'")
    try:
        from ..numpy import get_backend as numpy_backend
    except ImportError:
        raise RuntimeError(f"'{name}' has no WGSL kernel on the webgpu device yet and its host fallback needs "
                           "NumPy, which is not installed here (in Pyodide: await pyodide.loadPackage('numpy'))"
                           ) from None
    count_fallback(rec, name)
    inputs = []  # (view, host array, bytes before the call)

    def down(x):
        if isinstance(x, View):
            a = transfer.to_numpy(rec, x)
            inputs.append((x, a, a.tobytes()))
            return a
        if type(x) in (list, tuple):
            return type(x)(down(e) for e in x)
        return x

    h_args = [down(a) for a in args]
    h_kwargs = {k: down(v) for k, v in kwargs.items()}
    result = getattr(numpy_backend(), name)(*h_args, **h_kwargs)
    back = {}
    for view, a, before in inputs:
        back[id(a)] = view
        if a.tobytes() != before:
            copy_(rec, view, transfer.from_numpy(rec, a, True))

    def up(r):
        if type(r).__module__ == "numpy" and hasattr(r, "shape") and hasattr(r, "dtype"):
            v = back.get(id(r))
            return v if v is not None else transfer.from_numpy(rec, r, True)
        if type(r) in (list, tuple):
            return type(r)(up(e) for e in r)
        return r

    return up(result)
