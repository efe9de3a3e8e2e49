"""The user's allow-list for weights-only loads (PyTorch's ``torch.serialization.add_safe_globals`` family)
and the correspondence between PyTorch's global names and webtorch's objects.

A checkpoint names classes and functions by module path. Files torch writes say ``torch.nn.modules.linear
Linear``; webtorch maps every ``torch.<path> <name>`` to the webtorch object of that name in
``webtorch.<path>`` or, failing that, in the nearest parent package that exports it (``webtorch.nn.Linear``).
Files webtorch writes name its own classes by their PyTorch path (the public package that exports them:
``torch.nn Linear``), so torch.load reads them as torch objects.
"""
import importlib
import sys

_SAFE = []


def _check_entries(safe_globals):
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError(f"safe_globals must be a list of classes/functions or (object, 'module.name') tuples, "
                        f"got {type(safe_globals).__name__}")
    for g in safe_globals:
        if isinstance(g, tuple) and not (len(g) == 2 and isinstance(g[1], str)):
            raise TypeError(f"a safe global given as a tuple must be (object, 'module.name'), got {g!r}")
    return list(safe_globals)


def add_safe_globals(safe_globals):
    """Allow these classes/functions in ``webtorch.load(weights_only=True)`` (as torch.serialization's)."""
    _SAFE.extend(_check_entries(safe_globals))


def get_safe_globals():
    return list(_SAFE)


def clear_safe_globals():
    _SAFE.clear()


class safe_globals:
    """Context manager: the given globals are allowed inside the ``with`` block only."""

    def __init__(self, safe_globals):
        self.entries = _check_entries(safe_globals)

    def __enter__(self):
        self.saved = list(_SAFE)
        _SAFE.extend(self.entries)

    def __exit__(self, *exc):
        _SAFE[:] = self.saved


def full_name(obj):
    return f"{getattr(obj, '__module__', None)}.{getattr(obj, '__qualname__', getattr(obj, '__name__', ''))}"


def user_allowed():
    """(names -> object, set of allow-listed objects' ids) from the current allow-list; a webtorch object is
    also allowed under its PyTorch name."""
    names = {}
    for g in _SAFE:
        obj, name = g if isinstance(g, tuple) else (g, full_name(g))
        names[name] = obj
        torch_path = torch_name(obj)
        if torch_path is not None:
            names[".".join(torch_path)] = obj
    return names


def _is_identifier_path(s):
    return all(part.isidentifier() for part in s.split("."))


def _attr_path(mod, qualname):
    obj = mod
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def webtorch_object(module, name):
    """The webtorch object a ``torch.*`` global names, or None (imports only webtorch's own modules)."""
    if not (module == "torch" or module.startswith("torch.")) or not (
            _is_identifier_path(module) and _is_identifier_path(name)):
        return None
    parts = ("web" + module).split(".")
    while parts:
        try:
            mod = importlib.import_module(".".join(parts))
        except ImportError:
            mod = None
        obj = _attr_path(mod, name) if mod is not None else None
        if obj is not None and not isinstance(obj, type(sys)):
            return obj
        parts.pop()
    return None


def torch_name(obj):
    """(module, name) under which PyTorch knows a webtorch class/function, or None for other objects: the
    shortest public webtorch package that exports it, renamed to torch."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not (isinstance(module, str) and isinstance(qualname, str)) or not (
            module == "webtorch" or module.startswith("webtorch.")):
        return None
    parts = module.split(".")
    for n in range(1, len(parts) + 1):
        mod = sys.modules.get(".".join(parts[:n]))
        if mod is not None and _attr_path(mod, qualname) is obj:
            return "torch" + ".".join(parts[:n])[len("webtorch"):], qualname
    return None
