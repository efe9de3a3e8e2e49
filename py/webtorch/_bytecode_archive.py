"""The runtime wheel's modules (and its WGSL kernels), served from one compressed archive beside this file
(``_bytecode.zst``), and the modules a first training step does not import from a second one, fetched when first
imported (``_bytecode_on_demand.zst``).

The wheel the browser installs ships webtorch's bytecode as one Zstandard-compressed archive rather than one
deflated .pyc per module: compressed together the modules share their names and constants, so the wheel is
about 40% smaller (webtorch_devtools/bytecode.py packs it and gives the figures). Only this module and the
package's ``__init__`` stay plain .pyc files; importing this module puts a finder first on ``sys.meta_path``
that answers for every other ``webtorch.*`` module from the archive. Each module keeps the file name it would
have had (``__file__``, tracebacks, the package's data files beside it), so nothing else can tell the
difference but the docstrings, compiled out (webtorch/_docstrings.py sets them once help() asks, on the modules
this loader runs after that too), and the line tables, also built out until webtorch/_line_tables.py restores them
from the second archive (the finder keeps each module's code for it); the kernels' one reader
(backends/webgpu/wgsl_loader.py) asks ``finder.files`` first. From a source checkout there is no archive and
``finder`` is None.

The second archive is served beside the wheel, not in it (its modules: webtorch_devtools/bytecode.py's ON_DEMAND);
the first lists their names and the second's SHA-256. The first import of one of them reads it from, in order:
the bytes handed to ``finder.provide`` (the page prefetches it when idle: webtorch/browser/on_demand.py), the file
beside this one (a wheel built without moving it out; Node runs write it there), the source ``finder.fetch_from``
names (the page's synchronous fetch). With none of them the import fails saying where the modules are. The
second archive also holds the first's line tables: restoring them reads it the same way.
"""
import importlib.machinery
import importlib.util
import marshal
import os
import sys

ARCHIVE = "_bytecode.zst"
ON_DEMAND_ARCHIVE = "_bytecode_on_demand.zst"


class ArchiveLoader(importlib.machinery.SourcelessFileLoader):
    """A module's code from the archive; everything else (file name, package data) as a sourceless .pyc's."""

    def __init__(self, fullname, path, finder):
        super().__init__(fullname, path)
        self._finder = finder

    def get_code(self, fullname):
        code = marshal.loads(self._finder.code(fullname))
        self._finder.ran(fullname, code)
        return code

    def exec_module(self, module):
        super().exec_module(module)
        docstrings = sys.modules.get("webtorch._docstrings")
        if docstrings is not None and docstrings.loaded():  # help() has asked for them: this module's too
            docstrings.attach_module(module)


class ArchiveFinder:
    """Finds ``webtorch.*`` modules in the archive: {module name: (is a package, marshalled code)}; holds the
    package data only Python reads (the WGSL kernels): {path inside the package: bytes}; knows the modules of the
    on-demand archive: ({module name: is a package}, its SHA-256)."""

    def __init__(self, root, modules, files, on_demand):
        self._root = root
        self._modules = modules
        self._files = files
        self._later, self._later_sha256 = on_demand
        self._prefetched = None
        self._fetch = self._source = None
        self._without_lines = frozenset(modules)  # the build took their line tables out (webtorch/_line_tables.py)
        self._line_tables = None  # {module name: its line tables}, once the on-demand archive is read
        self.stripped = {}  # {module name: its code} of the modules run without their line tables, not restored yet
        self.restore_lines = None  # webtorch/_line_tables.py's, once it has the tables: (name, code) of each module run

    def names(self):
        return sorted(set(self._modules) | set(self._later))

    def files(self, folder):
        """{file name: bytes} of the archived files in ``folder`` (a path inside the package)."""
        prefix = folder.rstrip("/") + "/"
        return {p[len(prefix):]: b for p, b in self._files.items() if p.startswith(prefix) and "/" not in p[len(prefix):]}

    def provide(self, data):
        """The on-demand archive's bytes, fetched ahead of need; read at the first import of one of its modules."""
        if self._prefetched is None:
            self._prefetched = data

    def on_demand_in_hand(self):
        """Whether importing an on-demand module fetches nothing now: its archive was prefetched or already read."""
        return self._prefetched is not None or next(iter(self._later), None) in self._modules

    def fetch_from(self, fetch, source):
        """Where the on-demand archive comes from when nothing provided it: ``fetch()`` returns its bytes (raises
        OSError), ``source`` names it in errors (a URL)."""
        self._fetch, self._source = fetch, source

    def find_spec(self, fullname, path=None, target=None):
        package = self._modules[fullname][0] if fullname in self._modules else self._later.get(fullname)
        if package is None:
            return None
        where = os.path.join(self._root, *fullname.split(".")[1:])
        origin = os.path.join(where, "__init__.pyc") if package else where + ".pyc"
        return importlib.util.spec_from_file_location(fullname, origin, loader=ArchiveLoader(fullname, origin, self),
                                                      submodule_search_locations=[where] if package else None)

    def code(self, fullname):
        """The marshalled code of ``fullname``, the on-demand archive read first if it holds it."""
        if fullname not in self._modules:
            self._load_on_demand(f"cannot import {fullname}", fullname)
        return self._modules[fullname][1]

    def ran(self, fullname, code):
        """``code`` of ``fullname`` is about to run: a module of the first archive runs without its line tables,
        restored now if webtorch/_line_tables.py has the tables, else kept for it."""
        if fullname not in self._without_lines:
            return
        if self.restore_lines is not None:
            self.restore_lines(fullname, code)
        else:
            self.stripped[fullname] = code

    def line_tables(self):
        """{module name: its line tables} of the first archive's modules (webtorch/_line_tables.py pops them), the
        on-demand archive read first if it has not been (raises ImportError when it cannot be had)."""
        if self._line_tables is None:
            self._load_on_demand("cannot restore the line numbers of webtorch's modules", None)
        return self._line_tables

    def _load_on_demand(self, failure, fullname):
        """Read the on-demand archive (its modules and the line tables); errors start with ``failure``."""
        local = os.path.join(self._root, ON_DEMAND_ARCHIVE)
        data, source = self._prefetched, "the prefetched bytes"
        if data is None and os.path.isfile(local):
            with open(local, "rb") as f:
                data, source = f.read(), local
        if data is None:
            if self._fetch is None:
                what = ("it is one of webtorch's on-demand modules" if fullname
                        else "they are in webtorch's on-demand archive")
                raise ImportError(f"{failure}: {what}, kept in a second archive beside the wheel "
                                  f"(<wheel name>.on_demand.zst), and this Pyodide has "
                                  f"no URL for it: web/loader.js sets one; elsewhere call "
                                  f"webtorch.browser.on_demand.start(URL) or put the file at {local}", name=fullname)
            source = self._source
            try:
                data = self._fetch()
            except OSError as e:
                raise ImportError(f"{failure}: webtorch's on-demand modules could not be fetched from "
                                  f"{source} ({e}); serve that file beside the wheel (webtorch's servers and "
                                  "site builders copy it there)", name=fullname) from None
        import hashlib
        if hashlib.sha256(data).hexdigest() != self._later_sha256:
            self._prefetched = None  # a later import reads again
            raise ImportError(f"{failure}: {source} is not the on-demand archive of this webtorch "
                              "wheel (another build's?): serve the file built with the wheel", name=fullname)
        modules, _, _, self._line_tables = _unpack(data)
        self._modules.update(modules)
        self._prefetched = None


def _unpack(data):
    """(modules, files, on-demand modules, line tables) of an archive: both have this form, the first with no line
    tables (the second holds them), the second with no files and no on-demand modules of its own."""
    from compression import zstd  # Python 3.14+: the wheel's bytecode is Pyodide's
    magic, *rest = marshal.loads(zstd.decompress(data))
    if magic != importlib.util.MAGIC_NUMBER:
        raise ImportError(f"webtorch's wheel holds bytecode of another Python (magic {magic.hex()}, this one reads "
                          f"{importlib.util.MAGIC_NUMBER.hex()}): install the wheel built for this Pyodide, or "
                          "webtorch from its sources")
    return rest


def _install(root):
    with open(os.path.join(root, ARCHIVE), "rb") as f:
        modules, files, on_demand, _ = _unpack(f.read())
    finder = ArchiveFinder(root, modules, files, on_demand)
    sys.meta_path.insert(0, finder)
    return finder


_ROOT = os.path.dirname(os.path.abspath(__file__))
# the finder serving this wheel's modules; None when webtorch runs from its sources
finder = _install(_ROOT) if os.path.isfile(os.path.join(_ROOT, ARCHIVE)) else None
