"""Count imports that go up the layers of py/webtorch, and import cycles between its files.

    .venv/bin/python scripts/import_layers.py [--list]

Layers (README, "Architecture"), from the bottom up; a file may import its own layer and the ones below:

  0 facts     _dtype.py, _broadcast.py, _geometry.py, _memory_format.py, _layout.py, _named_constant.py (their
              constants' class), _lru.py, version.py: plain facts and utilities every layer reads (backends
              included); _bytecode_archive.py (the browser wheel's modules and WGSL files), _line_tables.py
              (their line numbers, restored) and _docstrings.py (their docstrings, set once help() asks)
  1 browser   browser/ (Pyodide-only helpers: NumPy on demand, the script runner)
  2 backends  backends/ (base.py, the NumPy backend, backends/webgpu/); not the torch.backends flag modules
  3 autograd  autograd/ (its __init__.py, the torch.autograd namespace, and variable.py, Variable, are api)
  4 tensor    _tensor.py, ops/, _device.py, _cuda_alias.py, _print.py, _numpy_interop.py, _torch_function.py
  5 api       nn/, optim/, distributions/, utils/, serialization/, legacy/, the torch namespaces beside them
              (linalg.py, special.py, random.py, amp/, cuda/, ...) and the torch.backends flag modules
  6 root      __init__.py (the package root) and compat.py (``import torch``)

Every import counts, function-local ones included (they run all the same, only later). An import of a
name from a package counts as an import of the submodule when one has that name, else of the package's
__init__.py. Printed: the number of upward imports (distinct (importer, imported) file pairs with the
importer in a lower layer) and of import cycles (groups of two or more files that reach each other through
imports: the strongly connected components of the import graph).
"""
import ast
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "py" / "webtorch"

_FACTS = {"_dtype.py", "_broadcast.py", "_geometry.py", "_memory_format.py", "_layout.py", "_named_constant.py",
          "_lru.py", "version.py", "_bytecode_archive.py", "_line_tables.py", "_docstrings.py"}
_TENSOR = {"_tensor.py", "_device.py", "_cuda_alias.py", "_print.py", "_numpy_interop.py", "_torch_function.py"}
_ROOT = {"__init__.py", "compat.py"}
_BACKEND_FLAGS = {"__init__.py", "cudnn.py", "cuda.py", "mps.py", "mkldnn.py", "mkl.py", "openmp.py"}
LAYERS = ("facts", "browser", "backends", "autograd", "tensor", "api", "root")


def layer(rel):
    """The layer (index into LAYERS) of a file given by its path relative to py/webtorch."""
    parts = rel.split("/")
    top = parts[0]
    if len(parts) == 1:
        if top in _FACTS:
            return 0
        if top in _TENSOR:
            return 4
        if top in _ROOT:
            return 6
        return 5
    if top == "browser":
        return 1
    if top == "backends":
        return 5 if len(parts) == 2 and parts[1] in _BACKEND_FLAGS else 2
    if top == "autograd":
        return 5 if parts[1] in ("__init__.py", "variable.py") else 3
    if top == "ops":
        return 4
    return 5


def _module_file(pkg, dotted):
    """pkg-relative path of module ``webtorch.<dotted>`` (a file or a package's __init__), or None."""
    base = pkg.joinpath(*dotted.split(".")) if dotted else pkg
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py").relative_to(pkg).as_posix()
    if (base / "__init__.py").is_file():
        return (base / "__init__.py").relative_to(pkg).as_posix()
    return None


def _imports(pkg, path):
    """The files of package directory ``pkg`` that the file at ``path`` imports (at module level or inside
    functions)."""
    rel = path.relative_to(pkg)
    package = list(rel.parent.parts)  # the importing module's package, relative to webtorch
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "webtorch" or a.name.startswith("webtorch."):
                    found.add(_module_file(pkg, a.name[len("webtorch."):] if "." in a.name else ""))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                mod = ".".join(up + (node.module.split(".") if node.module else []))
            elif node.module and (node.module == "webtorch" or node.module.startswith("webtorch.")):
                mod = node.module[len("webtorch."):] if "." in node.module else ""
            else:
                continue
            for a in node.names:
                sub = _module_file(pkg, f"{mod}.{a.name}" if mod else a.name)
                found.add(sub if sub is not None else _module_file(pkg, mod))
    found.discard(None)
    found.discard(rel.as_posix())
    return found


def graph(pkg=PKG):
    """{file: set of files it imports}, for every .py file of the package directory (py/webtorch)."""
    return {p.relative_to(pkg).as_posix(): _imports(pkg, p) for p in sorted(pkg.rglob("*.py"))}


def upward(g):
    """Sorted (importer, imported) pairs where the importer sits in a lower layer."""
    return sorted((a, b) for a, deps in g.items() for b in deps if layer(a) < layer(b))


def cycles(g):
    """Strongly connected components of two or more files (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in g:
        if start in index:
            continue
        work = [(start, iter(sorted(g[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in g:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return sorted(out)


def main(argv):
    g = graph()
    up, cyc = upward(g), cycles(g)
    if "--list" in argv:
        for a, b in up:
            print(f"up     {a} ({LAYERS[layer(a)]}) -> {b} ({LAYERS[layer(b)]})")
        for c in cyc:
            print(f"cycle  {len(c)} files: {' '.join(c[:12])}{' ...' if len(c) > 12 else ''}")
    print(f"upward imports: {len(up)}")
    print(f"import cycles: {len(cyc)} ({sum(map(len, cyc))} files in them, the largest {max(map(len, cyc), default=0)})")


if __name__ == "__main__":
    main(sys.argv[1:])
