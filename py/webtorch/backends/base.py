"""The backend classes' base: every backend class is built from the primitive contract (contract.py).

A backend class names, in its own body, where its primitives live; ``Backend.__init_subclass__`` builds the
class from ``contract.PRIMITIVES`` at class creation and refuses it when a primitive is missing or a function's
parameters differ from the contract's:

- ``families``: {contract family: module}. The module holds a plain function per primitive of that family,
  named as the primitive, taking the contract's parameters (names, order, defaults) -- after ``context``, when
  the class names one. Several families may share a module. A family named by a module's name (a string,
  relative to the class's package) is imported at the first call of one of its primitives (``load_family``), and
  checked then: the families a first training step never calls stay out of ``import webtorch`` and out of the
  browser wheel's first archive.
- ``context``: the name of the first parameter of every family function (WebGPU: ``rec``, its Recorder), or
  None for context-free functions (NumPy). A class with a context calls ``self.bind(ctx)`` in ``__init__``:
  each primitive becomes ``functools.partial(function, ctx)`` on the instance (no extra Python frame per call);
  context-free functions become static methods of the class.
- ``host_fallbacks``: primitives that always run on the host (``host_call(ctx, name, *args)``), with no
  function in their family module; ``host_when``: {primitive: predicate(ctx, *args)} sending a call to
  ``host_call`` when true (the arguments' dtypes or sizes its kernels do not serve).
- the ``handle`` family (metadata and ``as_strided``) is defined in the class body itself.

Adding a backend: a package under backends/ with one module per family (or fewer), the handle methods in its
class body, the class attributes above; run tests/test_backend_contract.py. Adding a primitive: a row in
contract.PRIMITIVES, a function of that name in each backend's family module (or a host fallback entry), an op
in webtorch.ops using it, and a case in the shared op tests.
"""
import functools
import importlib
import inspect

from .. import _geometry as G
from .contract import FAMILIES, PRIMITIVES


class IndexOutOfRange(IndexError):
    """Raised by the indexing primitives; carries what the op layer needs to word PyTorch's message."""

    def __init__(self, index, dim, size):
        super().__init__(f"index {index} is out of bounds for dimension {dim} with size {size}")
        self.index, self.dim, self.size = index, dim, size


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a matrix was singular (raised by the linalg_* primitives)."""


class HandleViews:
    """Views of a bare handle, for code below Tensor (kernels, ops working on handles): _geometry decides each
    from the handle's own geometry and the backend's ``as_strided`` makes it. Derived, not primitives: every
    backend inherits them and none defines its own (Tensor-level view ops use the Tensor's geometry)."""

    def reshape_view(self, h, shape):
        """A view with the new shape if the strides allow it, else None."""
        old_shape, strides, offset = self.geometry(h)
        st = G.view_strides(old_shape, strides, shape)
        return None if st is None else self.as_strided(h, tuple(shape), st, offset)

    def permute(self, h, dims):
        return self.as_strided(h, *G.permute(*self.geometry(h), dims))

    def expand(self, h, shape):
        """Broadcast view (stride 0 on expanded dims and on new leading dims)."""
        return self.as_strided(h, *G.expand(*self.geometry(h), tuple(shape)))

    def slice(self, h, key):
        """Basic indexing view: key is a tuple of ints, slices (step > 0) and None, already complete."""
        return self.as_strided(h, *G.slice_key(*self.geometry(h), key))

    def diagonal(self, h, offset, dim1, dim2):
        return self.as_strided(h, *G.diagonal(*self.geometry(h), offset, dim1, dim2))




class Backend(HandleViews):
    """Base of every backend class; subclasses declare their wiring (module docstring) and are built from it."""

    device_type = None
    families = None
    context = None
    host_fallbacks = frozenset()
    host_when = {}
    host_call = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.wiring = wire(cls)
        if cls.context is None:
            for name, fn in cls.wiring.items():
                setattr(cls, name, staticmethod(fn))

    def bind(self, ctx):
        """Make every primitive of the wiring a method of this instance, called with ``ctx`` first; one of a family
        not loaded yet loads it at its first call, and binds again."""
        self._bound_ctx = ctx
        for name, fn in self.wiring.items():
            setattr(self, name, functools.partial(fn, ctx) if fn is not None else
                    functools.partial(self._first_call, name))

    def _first_call(self, name, *args, **kwargs):
        type(self).load_family(PRIMITIVES[name].family)
        self.bind(self._bound_ctx)
        return getattr(self, name)(*args, **kwargs)

    @classmethod
    def load_family(cls, family):
        """Import the module of ``family`` (named by a string in ``families``), check its functions against the
        contract as the class's creation does for the others, and wire them (no layer left between a call and its
        function)."""
        module = importlib.import_module(cls.families[family], cls.__module__.rpartition(".")[0])
        for prim in PRIMITIVES.values():
            if prim.family == family:
                fn = _family_function(cls, prim, module)
                if cls.wiring[prim.name] is None:
                    cls.wiring[prim.name] = fn


def _params(fn):
    """[(name, default or Parameter.empty)] of fn, a ``*args`` parameter as ("*", empty)."""
    return [("*" if p.kind is p.VAR_POSITIONAL else p.name, p.default)
            for p in inspect.signature(fn).parameters.values() if p.kind is not p.VAR_KEYWORD]


def _expected(cls, prim, lead=()):
    empty = inspect.Parameter.empty
    return ([(cls.context, empty)] if cls.context else []) + list(lead) + \
        [(n, prim.defaults.get(n, empty)) for n in prim.params]


def _refuse(cls, what):
    raise TypeError(f"backend class {cls.__name__}: {what} (the contract: backends/contract.py; how to wire a "
                    "backend: backends/base.py)")


def _check_params(cls, prim, fn, where):
    want, got = _expected(cls, prim), _params(fn)
    if got != want and not (got and got[-1][0] == "*" and got[:-1] == want[:len(got) - 1]):
        _refuse(cls, f"{where} takes ({', '.join(n for n, _ in got)}) where the contract's {prim.name} takes "
                     f"({', '.join(n for n, _ in want)}) (names, order and defaults must match)")


def _host(name, host_call):
    def primitive(ctx, *args, **kwargs):
        return host_call(ctx, name, *args, **kwargs)
    return primitive


def _gated(name, kernel, on_host, host_call):
    def primitive(ctx, *args, **kwargs):
        if on_host(ctx, *args, **kwargs):
            return host_call(ctx, name, *args, **kwargs)
        return kernel(ctx, *args, **kwargs)
    return primitive


def wire(cls):
    """{primitive: function} of a backend class (the handle family excluded), checked against the contract."""
    families = cls.families or {}
    if set(families) != FAMILIES - {"handle"}:
        _refuse(cls, f"families must map exactly the contract's families {sorted(FAMILIES - {'handle'})}; "
                     f"missing {sorted(FAMILIES - {'handle'} - set(families))}, "
                     f"unknown {sorted(set(families) - FAMILIES)}")
    unknown = sorted((set(cls.host_fallbacks) | set(cls.host_when)) - set(PRIMITIVES))
    if unknown:
        _refuse(cls, f"host_fallbacks / host_when name what the contract does not declare: {unknown}")
    if (cls.host_fallbacks or cls.host_when) and not (cls.context and cls.host_call):
        _refuse(cls, "host fallbacks need a context and a host_call(ctx, name, *args)")
    wiring = {}
    for prim in PRIMITIVES.values():
        name = prim.name
        if prim.family == "handle":
            own = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None)
            if own is None or not callable(own):
                _refuse(cls, f"the handle primitive {name} must be defined in the class body")
            want = [("self", inspect.Parameter.empty)] + [(n, prim.defaults.get(n, inspect.Parameter.empty))
                                                          for n in prim.params]
            if _params(own) != want:
                _refuse(cls, f"{name} takes ({', '.join(n for n, _ in _params(own))}), the contract "
                             f"({', '.join(prim.params)}) after self")
            continue
        module = families[prim.family]
        if isinstance(module, str):  # loaded at the first call (Backend.load_family); a host fallback needs nothing
            if not cls.context:
                _refuse(cls, f"family {prim.family!r} is loaded at its first call: only a class with a context can")
            wiring[name] = _host(name, cls.host_call) if name in cls.host_fallbacks else None
            continue
        wiring[name] = _family_function(cls, prim, module)
    return wiring


def _family_function(cls, prim, module):
    """The function wired for the primitive ``prim`` of ``module``, checked against the contract."""
    name = prim.name
    fn = getattr(module, name, None)
    where = f"{module.__name__}.{name}"
    if name in cls.host_fallbacks:
        if fn is not None:
            _refuse(cls, f"{name} is both a host fallback and implemented in {where}: drop one")
        return _host(name, cls.host_call)
    if fn is None or not callable(fn):
        _refuse(cls, f"no function {where} for the primitive {name} (family {prim.family!r}); implement "
                     "it there or list it in host_fallbacks")
    _check_params(cls, prim, fn, where)
    on_host = cls.host_when.get(name)
    if on_host is not None:
        _check_params(cls, prim, on_host, f"the host_when predicate of {name}")
        fn = _gated(name, fn, on_host, cls.host_call)
    return fn
