"""Inside Pyodide: load the Pyodide packages a cell or script imports before it runs (as Pyodide's
``loadPackagesFromImports`` does), from the site's own Pyodide folder first, then from an opt-in package URL.

web/loader.js calls ``configure(index_url, packages_url)`` once webtorch is imported; the notebook app's
kernel and ``webtorch run --browser`` call ``await load_imports(source)`` before running code. Hosts that run
code webtorch does not see first (the JupyterLite kernel) configure ``on_import``: an import nothing else finds
loads its package right then (through ``run_sync``, where Python may wait for the browser). The package URL
(Pyodide's package host for this Pyodide version, or a mirror) is off unless the site asked for it: an
offline site cannot fetch compiled packages (NumPy, matplotlib, ...). An import of a Pyodide package that
could not be loaded then raises ModuleNotFoundError naming the package, where it was looked for, and what works
instead.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys

# what works without a compiled package, said in the error an unavailable one gives
INSTEAD = ("tensors and training need no NumPy (webtorch's device \"cpu\" runs on WebAssembly, \"webgpu\" on "
           "WebGPU); for plots use webtorch.notebook.LinePlot, for images webtorch.notebook.show_image")
ONLINE = ("a site built with `webtorch notebook --build DIR --packages-url` (or loadWebtorch({packagesURL})) "
          "loads them from Pyodide's package host when it is online")

_source = None


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_index(lock):
    """({top-level import name: package}, {package: entry}) of a pyodide-lock.json document."""
    packages = {canonical(name): entry for name, entry in lock["packages"].items()}
    imports = {}
    for name, entry in packages.items():
        for module in entry.get("imports", []):
            imports.setdefault(module, name)
    return imports, packages


def closure(packages, names):
    """``names`` and every package they depend on (lock names), dependencies first."""
    out, seen = [], set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        for dep in packages[name].get("depends", []):
            visit(canonical(dep))
        out.append(name)

    for name in names:
        visit(name)
    return out


def unavailable_message(module, package, version, looked):
    where = " and ".join(looked)
    hint = "" if len(looked) > 1 else f"; {ONLINE}"
    return (f"No module named {module!r}: it is Pyodide's package {package!r} ({version}), which could not be "
            f"loaded from {where}{hint}. Without it: {INSTEAD}.")


class UnavailableFinder(importlib.abc.MetaPathFinder):
    """Last on sys.meta_path: an import nothing else found, of a package that could not be loaded, raises
    ModuleNotFoundError with the reason (instead of Python's bare "No module named ..."). With ``load`` (an
    ``(import name) -> bool`` that loads its package), a top-level import nothing found that the user's own code
    wrote (a cell or a script: the ``__main__`` namespace) is loaded first; a library probing for an optional
    package does not start a download."""

    def __init__(self, load=None):
        self.reasons = {}  # top-level import name -> message
        self.load = load
        self._loading = False  # load() looks modules up itself: those lookups are not loads

    def find_spec(self, name, path=None, target=None):
        __tracebackhide__ = True  # noqa: F841 -- import machinery: IPython and the app's kernel show the user's line
        top = name.partition(".")[0]
        if self.load is not None and name == top and top not in self.reasons and not self._loading \
                and _imported_by_main():
            self._loading = True
            try:
                loaded = self.load(top)
            finally:
                self._loading = False
            if loaded:
                return importlib.machinery.PathFinder.find_spec(name, path)
        reason = self.reasons.get(top)
        if reason is not None:
            raise ModuleNotFoundError(reason, name=name)
        return None


def _imported_by_main():
    """Whether the import being resolved is a statement of the ``__main__`` namespace (the import system's frozen
    frames and this module's skipped)."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<frozen ")
                                 or frame.f_code.co_filename == __file__ or frame.f_globals.get("__name__") == __name__):
        frame = frame.f_back
    return frame is not None and frame.f_globals.get("__name__") == "__main__"


class PackageSource:
    """Where Pyodide packages come from: ``index_url`` (the site's Pyodide folder and its lock), then
    ``packages_url`` (None: off)."""

    def __init__(self, index_url, packages_url=None, on_import=None):
        self.index_url = index_url
        self.packages_url = packages_url
        self.on_import = on_import
        self.finder = UnavailableFinder(self._load_now if on_import is not None else None)
        self._index = None
        self._failed = set()  # lock packages not loadable from anywhere: not fetched again

    def looked(self):
        where = [f"this site ({self.index_url})"]
        if self.packages_url:
            where.append(f"the package URL ({self.packages_url})")
        return where

    async def _lock_index(self):
        if self._index is None:
            from pyodide.http import pyfetch
            r = await pyfetch(self.index_url + "pyodide-lock.json")
            self._index = lock_index(await r.json())
        return self._index

    async def load_imports(self, source, progress=None):
        """Load the packages ``source``'s imports need that are not importable yet. ``progress(done, total,
        names)`` is called when a load begins (done 0) and when it ended (done: how many were loaded), only when
        something is to be loaded. Returns the packages loaded."""
        from pyodide.code import find_imports
        missing = [m for m in dict.fromkeys(name.partition(".")[0] for name in find_imports(source))
                   if m not in sys.modules and not _importable(m)]
        if not missing:
            return []
        imports, packages = await self._lock_index()
        wanted = [imports[m] for m in missing if m in imports]
        loaded = _loaded()
        todo = [p for p in closure(packages, wanted) if p not in loaded and p not in self._failed]
        if todo:
            if progress:
                progress(0, len(todo), todo)
            failed = await self._load(todo, None)
            if failed and self.packages_url:
                failed = await self._load(failed, [self.packages_url + packages[p]["file_name"] for p in failed])
            self._failed.update(failed)
            importlib.invalidate_caches()
            if progress:
                progress(len(todo) - len(failed), len(todo), todo)
        for m in missing:
            if m in imports and any(p in self._failed for p in closure(packages, [imports[m]])):
                entry = packages[imports[m]]
                self.finder.reasons[m] = unavailable_message(m, entry["name"], entry["version"], self.looked())
        return [p for p in todo if p not in self._failed]

    def _load_now(self, module):
        """Load ``module``'s package while its import waits (the finder's ``load``); whether it was loaded."""
        from pyodide.ffi import can_run_sync, run_sync
        if not can_run_sync():
            return False
        return bool(run_sync(self.load_imports(f"import {module}", progress=self.on_import)))

    async def _load(self, names, urls):
        """Load lock packages ``names`` (by name from the site's folder, or from ``urls``); the ones that failed."""
        import pyodide_js
        from pyodide.ffi import create_proxy, to_js
        quiet = create_proxy(lambda message: None)
        try:
            await pyodide_js.loadPackage(to_js(urls or names), messageCallback=quiet, errorCallback=quiet)
        finally:
            quiet.destroy()
        loaded = _loaded()
        return [n for n in names if n not in loaded]


def _loaded():
    """Canonical names of the packages Pyodide has loaded (by name or by URL)."""
    import pyodide_js
    return {canonical(name) for name in pyodide_js.loadedPackages.object_keys()}


def configure(index_url, packages_url=None, on_import=None):
    """Set the package source (web/loader.js does, after ``import webtorch``). ``on_import``: load a package
    when an import needs it, telling this progress callback (see ``load_imports``)."""
    global _source
    if _source is not None and _source.finder in sys.meta_path:
        sys.meta_path.remove(_source.finder)
    _source = PackageSource(index_url, packages_url or None, on_import)
    sys.meta_path.append(_source.finder)


def current():
    """The configured package source, or None outside a page booted by web/loader.js."""
    return _source


def _importable(name):
    """Whether the top-level module ``name`` can be imported now (a finder that refuses it counts as no)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
