"""Run PyTorch code unmodified: make ``import torch`` (and ``import torch.nn.functional as F``, ...) give
webtorch's modules.

    import webtorch.compat
    webtorch.compat.alias_torch()          # from now on: import torch -> webtorch

    with webtorch.compat.torch_alias():    # only inside the block; the real torch (if loaded) comes back after
        runpy.run_path("train.py", run_name="__main__")

``torch.X`` resolves to ``webtorch.X`` and is the same module object, so state set through one name (a default
device, ``torch.backends.cudnn.benchmark``) is seen through the other.
"""
import contextlib
import importlib
import importlib.abc
import importlib.util
import sys


class _TorchAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` as the webtorch module of the same dotted path."""

    def __init__(self):
        self._own = {}

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "webtorch" + fullname[len("torch"):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        module = importlib.import_module("webtorch" + spec.name[len("torch"):])
        self._own[module.__name__] = (module.__spec__, module.__loader__)
        return module

    def exec_module(self, module):
        # the import system stamped the alias's spec on webtorch's module; give it its own back
        module.__spec__, module.__loader__ = self._own.pop(module.__name__)


_FINDER = _TorchAliasFinder()


def _torch_entries():
    return {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}


def alias_torch():
    """Make ``import torch`` and its submodules resolve to webtorch for the rest of this process.

    Raises if the real PyTorch is already imported (its modules would keep answering to ``torch``): use
    :func:`torch_alias` to swap it out for a block instead."""
    loaded = _torch_entries()
    if loaded and sys.modules.get("torch") is not importlib.import_module("webtorch"):
        raise RuntimeError("the real torch is already imported in this process; use "
                           "`with webtorch.compat.torch_alias():` to run code against webtorch inside a block")
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


@contextlib.contextmanager
def torch_alias():
    """Inside the block ``import torch`` gives webtorch; the real torch modules (if any) are restored after."""
    saved = _torch_entries()
    for name in saved:
        del sys.modules[name]
    sys.meta_path.insert(0, _FINDER)
    try:
        yield importlib.import_module("torch")
    finally:
        sys.meta_path.remove(_FINDER)
        for name in _torch_entries():
            del sys.modules[name]
        sys.modules.update(saved)
