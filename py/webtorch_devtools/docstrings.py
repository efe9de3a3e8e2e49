"""webtorch's docstrings beside the runtime wheel, not in it: the wheel's bytecode is compiled without them
(bytecode.py: -115 KiB), and ``help()``/``obj?`` in a page read them from this file, fetched the first time a cell
asks (webtorch/browser/docstrings.py) and set on the loaded objects (webtorch/_docstrings.py).

The file is ``<wheel name>.docstrings.json.gz`` next to the wheel, as the sites serve it:
{module name: {qualified name inside the module ("" for the module itself): docstring}}, read from the sources'
syntax trees (a docstring is the first statement of a module, class or function body; functions inside functions
are left out: they are not reachable by name).
"""
import ast
import gzip
import json
import os
import tempfile
from pathlib import Path

SUFFIX = ".docstrings.json.gz"


def docstrings_path(wheel):
    """Where the docstrings of ``wheel`` are (the wheel's path with ``SUFFIX`` in place of ``.whl``)."""
    wheel = Path(wheel)
    return wheel.with_name(wheel.name[:-len(".whl")] + SUFFIX)


def _body_docs(body, prefix, out):
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + node.name
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                out[name] = doc
            if isinstance(node, ast.ClassDef):
                _body_docs(node.body, name + ".", out)
        elif isinstance(node, (ast.If, ast.Try)):  # definitions under `if TYPE_CHECKING`/platform checks
            _body_docs(node.body + node.orelse + getattr(node, "finalbody", []), prefix, out)


def docstring_table(package_dir, package="webtorch"):
    """{module: {qualified name: docstring}} of every module under ``package_dir``."""
    root = Path(package_dir)
    table = {}
    for p in sorted(root.rglob("*.py")):
        parts = (package,) + p.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(p.read_text(encoding="utf-8"), str(p))
        docs = {}
        doc = ast.get_docstring(tree, clean=False)
        if doc is not None:
            docs[""] = doc
        _body_docs(tree.body, "", docs)
        if docs:
            table[module] = docs
    return table


def write_docstrings(package_dir, wheel):
    """Write the docstrings of the sources in ``package_dir`` beside ``wheel``; returns the file's path."""
    out = docstrings_path(wheel)
    data = json.dumps(docstring_table(package_dir), sort_keys=True, separators=(",", ":")).encode()
    with tempfile.NamedTemporaryFile(dir=out.parent, delete=False) as f:  # concurrent builders: one whole file
        f.write(gzip.compress(data, compresslevel=9, mtime=0))
    os.chmod(f.name, 0o644)  # as the wheel beside it (a temporary file is private)
    os.replace(f.name, out)
    return out
