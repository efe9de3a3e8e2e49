"""The runtime wheel's modules (and its WGSL kernels), served from one compressed archive beside this file
(``_bytecode.zst``).

The wheel the browser installs ships webtorch's bytecode as one Zstandard-compressed archive rather than one
deflated .pyc per module: compressed together the modules share their names and constants, so the wheel is
about 40% smaller (webtorch_devtools/bytecode.py packs it and gives the figures). Only this module and the
package's ``__init__`` stay plain .pyc files; importing this module puts a finder first on ``sys.meta_path``
that answers for every other ``webtorch.*`` module from the archive. Each module keeps the file name it would
have had (``__file__``, tracebacks, the package's data files beside it), so nothing else can tell the
difference but the docstrings, compiled out (webtorch/_docstrings.py sets them once help() asks, on the modules
this loader runs after that too); the kernels' one reader (backends/webgpu/wgsl_loader.py) asks ``finder.files``
first. From a source checkout there is no archive and ``finder`` is None.
"""
import importlib.machinery
import importlib.util
import marshal
import os
import sys

ARCHIVE = "_bytecode.zst"


class ArchiveLoader(importlib.machinery.SourcelessFileLoader):
    """A module's code from the archive; everything else (file name, package data) as a sourceless .pyc's."""

    def __init__(self, fullname, path, code):
        super().__init__(fullname, path)
        self._code = code

    def get_code(self, fullname):
        return marshal.loads(self._code)

    def exec_module(self, module):
        super().exec_module(module)
        docstrings = sys.modules.get("webtorch._docstrings")
        if docstrings is not None and docstrings.loaded():  # help() has asked for them: this module's too
            docstrings.attach_module(module)


class ArchiveFinder:
    """Finds ``webtorch.*`` modules in the archive: {module name: (is a package, marshalled code)}; holds the
    package data only Python reads (the WGSL kernels): {path inside the package: bytes}."""

    def __init__(self, root, modules, files):
        self._root = root
        self._modules = modules
        self._files = files

    def names(self):
        return sorted(self._modules)

    def files(self, folder):
        """{file name: bytes} of the archived files in ``folder`` (a path inside the package)."""
        prefix = folder.rstrip("/") + "/"
        return {p[len(prefix):]: b for p, b in self._files.items() if p.startswith(prefix) and "/" not in p[len(prefix):]}

    def find_spec(self, fullname, path=None, target=None):
        found = self._modules.get(fullname)
        if found is None:
            return None
        package, code = found
        where = os.path.join(self._root, *fullname.split(".")[1:])
        origin = os.path.join(where, "__init__.pyc") if package else where + ".pyc"
        return importlib.util.spec_from_file_location(fullname, origin, loader=ArchiveLoader(fullname, origin, code),
                                                      submodule_search_locations=[where] if package else None)


def _install(root):
    with open(os.path.join(root, ARCHIVE), "rb") as f:
        from compression import zstd  # Python 3.14+: the wheel's bytecode is Pyodide's
        magic, modules, files = marshal.loads(zstd.decompress(f.read()))
    if magic != importlib.util.MAGIC_NUMBER:
        raise ImportError(f"webtorch's wheel holds bytecode of another Python (magic {magic.hex()}, this one reads "
                          f"{importlib.util.MAGIC_NUMBER.hex()}): install the wheel built for this Pyodide, or "
                          "webtorch from its sources")
    finder = ArchiveFinder(root, modules, files)
    sys.meta_path.insert(0, finder)
    return finder


_ROOT = os.path.dirname(os.path.abspath(__file__))
# the finder serving this wheel's modules; None when webtorch runs from its sources
finder = _install(_ROOT) if os.path.isfile(os.path.join(_ROOT, ARCHIVE)) else None
