"""Docstrings set back on webtorch's objects when the wheel's bytecode has none (compiled without them; the
table beside the wheel: webtorch_devtools/docstrings.py): ``attach(table)`` sets them on every loaded module,
and webtorch/_bytecode_archive.py's loader on each module imported after that. From the sources nothing is
missing and nothing calls this."""
import sys

_table = None


def loaded():
    """Whether a table has been attached."""
    return _table is not None


def attach(table):
    """Keep ``table`` ({module: {qualified name: docstring}}) and set its docstrings on the loaded modules."""
    global _table
    _table = table
    for name in list(table):
        module = sys.modules.get(name)
        if module is not None:
            attach_module(module)


def attach_module(module):
    """Set the docstrings of one module (its own, its classes', functions' and methods') from the table."""
    docs = (_table or {}).get(module.__name__, {})
    for qualname, doc in docs.items():
        obj = module
        for part in qualname.split(".") if qualname else ():
            # a class's own attribute, not an inherited one (which has its own docstring, or the base's)
            obj = vars(obj).get(part) if obj is module or isinstance(obj, type) else None
            if obj is None:
                break
        else:
            _set_doc(obj, doc)


def _set_doc(obj, doc):
    target = getattr(obj, "__func__", obj)  # staticmethod/classmethod: the function they wrap
    if getattr(target, "__doc__", None) is None:
        try:
            target.__doc__ = doc
        except (AttributeError, TypeError):  # an object whose docstring is read-only (a slot wrapper, ...)
            pass
