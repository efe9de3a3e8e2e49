"""The one host fallback: run a primitive that has no WGSL kernel yet on the NumPy backend.

Inputs are read back (flushing the queue), the NumPy backend computes, results are uploaded; an input
the primitive wrote in place (in-place primitives, optimizer updates) is written back to its view.
Every call is counted in ``webtorch.webgpu.stats()["host_fallbacks"]`` and named in
``stats()["host_fallback_ops"]`` -- a fallback is never silent.
"""
from .capture import is_capturing, refuse
from .graph import View


def count_fallback(be, name):
    be.stats.host_fallbacks += 1
    be.stats.fallback_ops[name] = be.stats.fallback_ops.get(name, 0) + 1


def host_fallback(be, name, *args, **kwargs):
    if is_capturing(be):
        refuse(f"'{name}', which runs on the host on this device (no WGSL kernel yet)",
               "compute it outside the capture, or on device 'cpu'")
    try:
        from ..numpy import get_backend as numpy_backend
    except ImportError:
        raise RuntimeError(f"'{name}' has no WGSL kernel on the webgpu device yet and its host fallback needs "
                           "NumPy, which is not installed here (in Pyodide: await pyodide.loadPackage('numpy'))"
                           ) from None
    count_fallback(be, name)
    inputs = []  # (view, host array, bytes before the call)

    def down(x):
        if isinstance(x, View):
            a = be.to_numpy(x)
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
            be.copy_(view, be.from_numpy(a, True))

    def up(r):
        if type(r).__module__ == "numpy" and hasattr(r, "shape") and hasattr(r, "dtype"):
            v = back.get(id(r))
            return v if v is not None else be.from_numpy(r, True)
        if type(r) in (list, tuple):
            return type(r)(up(e) for e in r)
        return r

    return up(result)


def install_fallbacks(cls, *bases):
    """Give ``cls`` a host-fallback method for every public primitive of ``bases`` it does not define."""
    names = set()
    for base in bases:
        names.update(n for n, v in vars(base).items() if callable(v) and not n.startswith("_"))
    for name in sorted(names):
        if any(name in vars(c) for c in cls.__mro__ if c not in bases and c is not object):
            continue

        def method(self, *args, _name=name, **kwargs):
            return host_fallback(self, _name, *args, **kwargs)
        method.__name__ = name
        method.__doc__ = f"Host fallback (no WGSL kernel yet): runs NumpyBackend.{name}."
        setattr(cls, name, method)


def fallback_primitives(cls):
    """Names of the primitives of ``cls`` that run as host fallbacks."""
    return sorted(n for n, v in vars(cls).items()
                  if callable(v) and (getattr(v, "__doc__", "") or "").startswith("Host fallback"))
