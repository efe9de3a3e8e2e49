"""R torch's way of defining modules: ``nn.module(...)`` builds a Module class from functions.

    my_linear = nn.module(
        "my_linear",
        initialize=lambda self, in_features, out_features: ...,
        forward=lambda self, input: torch.mm(input, self.w) + self.b,
    )
    model = my_linear(3, 1)

As in R (R6 classes), ``private`` members are reachable from the class's own methods only (``self.name``
inside a method; an AttributeError from outside, and absent from ``dir``), ``active`` members are
properties, ``self.super`` reaches the parent class's methods (R's ``super$``), and ``clone(deep=...)``
copies an instance, calling the private ``finalize_deep_clone`` after a deep copy.
"""
import copy
import functools
import inspect
import re
import sys

from .modules.module import Module

__all__ = ["module", "summary"]

_STACK = "_r_stack"      # per instance: the classes whose methods are running (innermost last)
_PRIVATE = "_r_private"  # per instance: private field values


def _running(self):
    return bool(self.__dict__.get(_STACK))


def _as_method(fn, owner):
    """fn(self, ...) that marks the instance as inside a method of owner[0] while it runs."""
    @functools.wraps(fn)
    def method(self, *args, **kwargs):
        stack = self.__dict__.get(_STACK)
        if stack is None:
            stack = self.__dict__[_STACK] = []
        stack.append(owner[0])
        try:
            return fn(self, *args, **kwargs)
        finally:
            stack.pop()
    method._r_method = True
    return method


def _is_method(value):
    return getattr(value, "_r_method", False)


def _accepts_value(fn):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


def _active_property(name, fn, owner):
    if isinstance(fn, property):
        return fn
    if not callable(fn):
        raise TypeError(f"active binding '{name}' must be a function or a property, got {type(fn).__name__}")
    bound = _as_method(fn, owner)

    def fset(self, value):
        if not _accepts_value(fn):
            raise AttributeError(f"active binding '{name}' is read-only (its function takes no value)")
        bound(self, value)
    return property(lambda self: bound(self), fset, doc=fn.__doc__)


class _Super:
    """``self.super``: the parent class's methods, bound to self (R's ``super$``)."""

    def __init__(self, instance, owner):
        self._instance = instance
        self._owner = owner

    def __getattr__(self, name):
        mro = type(self._instance).__mro__
        after = mro[mro.index(self._owner) + 1:]
        if name == "initialize":
            # the nearest parent initialize; an ordinary Module class's is its __init__
            for cls in after:
                if "initialize" in cls.__dict__:
                    return cls.__dict__["initialize"].__get__(self._instance)
                if not getattr(cls, "_r_factory", False):
                    return cls.__init__.__get__(self._instance)
        return getattr(super(self._owner, self._instance), name)


class _RModuleBase(Module):
    """What every factory-made class shares: private routing, ``super``, ``clone``."""
    _r_factory = True
    _r_classname = "nn_module"
    _r_private_spec = {}
    _r_root_inherit = Module

    def __init__(self, *args, **kwargs):
        if "_parameters" not in self.__dict__:
            Module.__init__(self)
        self.__dict__.setdefault(_STACK, [])
        if _PRIVATE not in self.__dict__:
            self.__dict__[_PRIVATE] = {k: copy.copy(v) for k, v in type(self)._r_private_spec.items()
                                       if not _is_method(v)}
        init = getattr(type(self), "initialize", None)
        if init is not None:
            init(self, *args, **kwargs)
        elif type(self)._r_root_inherit is not Module:
            type(self)._r_root_inherit.__init__(self, *args, **kwargs)
        elif args or kwargs:
            raise TypeError(f"{type(self)._r_classname}() takes no arguments (it has no initialize)")

    def _r_private_lookup(self, name):
        store = self.__dict__.get(_PRIVATE, {})
        if name in store:
            return True, store[name]
        spec = type(self)._r_private_spec
        if name in spec and _is_method(spec[name]):
            return True, spec[name].__get__(self)
        return False, None

    def __getattr__(self, name):
        if name in type(self)._r_private_spec or name in self.__dict__.get(_PRIVATE, ()):
            if _running(self):
                found, value = self._r_private_lookup(name)
                if found:
                    return value
            raise AttributeError(f"'{name}' is a private member of {type(self)._r_classname}: it is reachable only "
                                 "from the module's own methods")
        return Module.__getattr__(self, name)

    def __setattr__(self, name, value):
        spec = type(self)._r_private_spec
        if name in spec:
            if not _running(self):
                raise AttributeError(f"cannot assign private member '{name}' of {type(self)._r_classname} from "
                                     "outside its methods")
            if _is_method(spec[name]):
                raise AttributeError(f"cannot assign private method '{name}' of {type(self)._r_classname}")
            self.__dict__[_PRIVATE][name] = value
            return
        Module.__setattr__(self, name, value)

    def __dir__(self):
        hidden = set(type(self)._r_private_spec) | {_STACK, _PRIVATE}
        return [k for k in Module.__dir__(self) if k not in hidden]

    @property
    def super(self):
        stack = self.__dict__.get(_STACK)
        if not stack:
            raise RuntimeError("`self.super` is available only inside the module's methods")
        return _Super(self, stack[-1])

    def clone(self, deep=False):
        """A copy of this module. deep=False shares parameters, buffers and submodules (R6's clone);
        deep=True copies them (shared tensors stay shared within the copy), then runs the private
        ``finalize_deep_clone`` method on the copy if the class defines one."""
        if not deep:
            new = copy.copy(self)
            # own registries, hook tables and private fields; the values in them stay shared
            for key, value in self.__dict__.items():
                if isinstance(value, (dict, set)):
                    new.__dict__[key] = copy.copy(value)
            new.__dict__[_STACK] = []
            return new
        stack = self.__dict__.get(_STACK)
        self.__dict__[_STACK] = []
        try:
            new = copy.deepcopy(self)
        finally:
            self.__dict__[_STACK] = stack if stack is not None else []
        finalize = type(new)._r_private_spec.get("finalize_deep_clone")
        if _is_method(finalize):
            finalize.__get__(new)()
        return new


def module(classname=None, inherit=Module, initialize=None, forward=None, private=None, active=None, **methods):
    """A Module class built R torch style (``nn_module()``); call it to make an instance.

    Args:
        classname (str, optional): the class's name (printed by ``summary``); default "nn_module".
        inherit: the parent: a class made by ``module`` or any Module subclass.
        initialize: ``initialize(self, *args)`` runs when an instance is made (R's initialize).
        forward: ``forward(self, *inputs)``.
        private (dict, optional): fields and methods reachable only from the class's methods.
        active (dict, optional): properties: ``name -> fn(self)`` to read, ``fn(self, value)`` to write
            (or a ``property``).
        **methods: further methods ``name(self, ...)``.

    Example::

        >>> my_linear = nn.module(
        ...     "my_linear",
        ...     initialize=lambda self, i, o: setattr(self, "w", nn.Parameter(torch.randn(i, o))),
        ...     forward=lambda self, x: torch.mm(x, self.w))
        >>> my_linear(3, 1)(torch.randn(2, 3)).shape
        torch.Size([2, 1])
    """
    if not (isinstance(inherit, type) and issubclass(inherit, Module)):
        raise TypeError(f"inherit must be an nn.Module class (or a class made by nn.module), got {inherit!r}")
    owner = [None]
    ns = {"__module__": _caller_module()}
    if initialize is not None:
        ns["initialize"] = _as_method(initialize, owner)
    if forward is not None:
        ns["forward"] = _as_method(forward, owner)
    for name, fn in methods.items():
        if not callable(fn):
            raise TypeError(f"method '{name}' must be a function, got {type(fn).__name__}")
        ns[name] = _as_method(fn, owner)
    for name, fn in (active or {}).items():
        ns[name] = _active_property(name, fn, owner)
    spec = dict(getattr(inherit, "_r_private_spec", {}))
    for name, value in (private or {}).items():
        spec[name] = _as_method(value, owner) if inspect.isfunction(value) else value
    ns["_r_private_spec"] = spec
    ns["_r_classname"] = classname if classname is not None else "nn_module"
    if getattr(inherit, "_r_factory", False):
        bases = (inherit,)
    else:
        bases = (_RModuleBase,) if inherit is Module else (_RModuleBase, inherit)
        ns["_r_root_inherit"] = inherit
    name = classname if classname is not None and classname.isidentifier() else "nn_module"
    cls = type(name, bases, ns)
    owner[0] = cls
    return cls


def _caller_module():
    frame = sys._getframe(2)
    return frame.f_globals.get("__name__", __name__)


# ---------------------------------------------------------------------------------------------------
# summary: R torch's print of an nn_module
# ---------------------------------------------------------------------------------------------------

_WIDTH = 80
_ACRONYMS = (("PReLU", "Prelu"), ("RReLU", "Rrelu"), ("ReLU", "Relu"), ("GELU", "Gelu"), ("SELU", "Selu"),
             ("CELU", "Celu"), ("SiLU", "Silu"), ("GLU", "Glu"), ("BCE", "Bce"), ("NLL", "Nll"), ("MSE", "Mse"),
             ("KLDiv", "KlDiv"), ("RMS", "Rms"))


def _r_class_name(m):
    cls = type(m)
    if getattr(cls, "_r_factory", False):
        return cls._r_classname
    if cls.__module__.startswith("webtorch.nn."):
        name = cls.__name__
        for a, b in _ACRONYMS:
            name = name.replace(a, b)
        return "nn_" + re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return cls.__name__


def _count(m):
    return sum(p.numel() for p in m.parameters())


def _rule(title):
    head = f"── {title} "
    return head + "─" * (_WIDTH - len(head))


def _tensor_str(t):
    from .._dtype import scalar_type_name
    return f"{scalar_type_name(t.dtype)} [{', '.join(f'1:{s}' for s in t.shape)}]"


def summary(module, file=None):
    """Print ``module`` as R torch prints an nn_module: the parameter count, then its direct submodules
    (with their parameter counts), its own parameters and its own buffers (with dtype and shape).

    Example::

        >>> nn.summary(nn.Linear(3, 1))
        An `nn_module` containing 4 parameters.
        <BLANKLINE>
        ── Parameters ──────────────────────────────────────────────────────────────────
        • weight: Float [1:1, 1:3]
        • bias: Float [1:1]
    """
    lines = [f"An `nn_module` containing {_count(module):,} parameters."]
    if module._modules:
        lines += ["", _rule("Modules")]
        for name, child in module._modules.items():
            if child is None:
                continue
            lines.append(f"• {name}: <{_r_class_name(child)}> #{_count(child):,} parameters")
    for title, table in (("Parameters", module._parameters), ("Buffers", module._buffers)):
        items = [(k, v) for k, v in table.items() if v is not None]
        if items:
            lines += ["", _rule(title)]
            lines += [f"• {k}: {_tensor_str(v)}" for k, v in items]
    print("\n".join(lines), file=file if file is not None else sys.stdout)

