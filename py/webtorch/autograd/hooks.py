"""Removable hook handles and hook tables: the one implementation behind every ``register_*hook`` (autograd
nodes and tensors, modules, optimizers), as PyTorch's torch.utils.hooks.RemovableHandle.

A table is an ordered dict from handle id to hook; a handle refers to its tables weakly, so it never keeps
a dead node's or module's hooks alive.
"""
import weakref
from collections import OrderedDict


class RemovableHandle:
    """Removes a hook from the dicts it was registered in; also a context manager."""
    _next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle._next_id
        RemovableHandle._next_id += 1
        if extra_dict is None:
            extra_dict = ()
        elif isinstance(extra_dict, dict):
            extra_dict = (extra_dict,)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookDict(OrderedDict):
    """An OrderedDict that can be weakly referenced (handles hold weak references to their tables)."""


def hook_dict():
    """A new, empty hook table."""
    return _HookDict()


def add_hook(table, hook, prepend=False, extra=None):
    """Register ``hook`` in ``table`` (a ``hook_dict()``), first if ``prepend``; the handle also clears the
    hook's entries in the ``extra`` table(s) (flags such as with_kwargs) when removed."""
    handle = RemovableHandle(table, extra_dict=extra)
    table[handle.id] = hook
    if prepend:
        table.move_to_end(handle.id, last=False)
    return handle
