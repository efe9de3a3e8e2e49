"""``import torch`` as ``import webtorch``: a meta-path finder that hands out webtorch's own modules under
torch's names (one module object each, so classes and isinstance checks are shared), for code written
for PyTorch. Opt-in; the notebook app's kernel installs it unless the user turns it off."""
import importlib
import importlib.abc
import importlib.machinery
import sys

ALIAS, TARGET = "torch", "webtorch"


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target
        self.original_spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.original_spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.original_spec  # the import system stamped torch's spec on webtorch's module


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        real = TARGET + fullname[len(ALIAS):]
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real), is_package=True)


def install():
    """Make ``import torch`` (and ``torch.nn``, ...) import webtorch. Idempotent."""
    if not enabled():
        sys.meta_path.insert(0, TorchAliasFinder())


def uninstall():
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, TorchAliasFinder)]
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(TARGET):
            del sys.modules[name]


def enabled():
    return any(isinstance(f, TorchAliasFinder) for f in sys.meta_path)
