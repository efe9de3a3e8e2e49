"""Make ``import tqdm`` (and ``tqdm.auto``, ``tqdm.notebook``, ``tqdm.autonotebook``) give the notebook's bar.

``install()`` (the app's kernel and the JupyterLite site call it at start) adds an import hook: when one of
those modules is imported, it runs as usual and then its ``tqdm``/``trange`` are pointed at ``tqdm_bar``'s (the
real tqdm class with a notebook display). Nothing is imported until a cell imports tqdm. Warnings tqdm gives
while choosing its notebook widget (ipywidgets missing) are muted: the widget is replaced.
"""
import importlib.abc
import importlib.machinery
import sys
import warnings

_MODULES = ("tqdm", "tqdm.auto", "tqdm.autonotebook", "tqdm.notebook")


class _PatchAfterExec(importlib.abc.Loader):
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.loader.exec_module(module)
        from .tqdm_bar import patch
        patch(module)

    def __getattr__(self, name):  # get_resource_reader, is_package, ... of the real loader
        return getattr(self.loader, name)


class TqdmFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in _MODULES:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _PatchAfterExec(spec.loader)
        return spec


def install():
    """Add the hook (once); tqdm modules imported before are patched now."""
    if not any(isinstance(f, TqdmFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, TqdmFinder())
    if "tqdm" in sys.modules:
        from .tqdm_bar import patch
        for name in _MODULES:
            if name in sys.modules:
                patch(sys.modules[name])
