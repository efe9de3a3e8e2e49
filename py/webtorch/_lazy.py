"""A package's names that load on first use (PEP 562), so ``import webtorch`` does not import what a training
step rarely needs (in Pyodide every module imported costs start-up time: bench/bench_import.py).

    __getattr__, __dir__ = lazy_names(__name__, globals(), {"Adam": ".adam:Adam", "lr_scheduler": ".lr_scheduler"})

"module:attribute" is an attribute of a (relative) module, "module" the module itself. Once looked up, a name is
stored in the package like an eager import's.
"""
import importlib


def lazy_names(package, namespace, table):
    """(__getattr__, __dir__) for the package ``package`` whose module globals are ``namespace``."""
    def __getattr__(name):
        where = table.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        value = importlib.import_module(module, package)
        value = namespace[name] = getattr(value, attribute) if attribute else value
        return value

    def __dir__():
        return sorted(set(namespace) | set(table))
    return __getattr__, __dir__
