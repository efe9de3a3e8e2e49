"""The runtime wheel Pyodide installs (``webtorch`` only), built by pyproject's build backend, cached by content.

There is one builder: ``python -m build --wheel --no-isolation`` over a copy of the checkout's pyproject.toml
and py/ (setuptools, with ``build_hook`` adding the webgpu warm-up manifest and compiling the bytecode inside
the checkout's npm pyodide package, whose version is part of the content hash). The copy keeps concurrent builds
(several test processes, several checkouts' edits) from sharing setuptools' build/ and egg-info folders. The
content hash of everything the build reads names the cache folder, so a stale wheel is impossible and an
unchanged checkout builds once.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .bytecode import ON_DEMAND_OUT_ENV, PYODIDE_ENV, on_demand_path, pyodide_dir
from .docstrings import write_docstrings
from .js_minify import ESBUILD_ENV, esbuild
from .wheel_zip import recompress

KEEP_BUILDS = 3  # cached wheels kept (the one just built included)
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.pyo", "*.egg-info")


def repo_root():
    """The checkout holding this package (py/webtorch_devtools/..), or None for an installed copy."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "py" / "webtorch").is_dir() else None


def _sources(root):
    """(relative path, path) of every file the build reads: pyproject.toml, the runtime (links followed, so the
    shaders come along) and this package (the build hook and the warm-up recorder), sorted."""
    out = [("pyproject.toml", root / "pyproject.toml")]
    for pkg in ("webtorch", "webtorch_devtools"):
        for dirpath, dirnames, filenames in os.walk(root / "py" / pkg, followlinks=True):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.endswith(".egg-info"))
            for f in sorted(filenames):
                if not f.endswith((".pyc", ".pyo")):
                    p = Path(dirpath) / f
                    out.append((p.relative_to(root).as_posix(), p))
    return out


def build_wheel(root=None, cache_dir=None):
    """Path of webtorch-<version>-py3-none-any.whl built from ``root`` (default: this checkout).

    Cached under ``<root>/.cache/wheels/<content hash>/``: rebuilt only when a file the build reads changes. The
    wheel's docstrings are beside it (webtorch_devtools/docstrings.py: ``docstrings_path(wheel)``), and its on-demand
    modules (webtorch_devtools/bytecode.py: ``on_demand_path(wheel)``).
    """
    root = Path(root) if root else repo_root()
    if root is None:
        raise RuntimeError("building the webtorch wheel needs a source checkout (pyproject.toml + py/webtorch); "
                           "this webtorch_devtools is an installed copy")
    sources = _sources(root)
    pyodide, minifier = pyodide_dir(root), esbuild(root)
    # the tools' versions are part of the content too (they stay where they are: PYODIDE_ENV, ESBUILD_ENV)
    tools = [("node_modules/pyodide/package.json", pyodide / "package.json"),
             ("node_modules/esbuild/package.json", root / "node_modules" / "esbuild" / "package.json")]
    digest = hashlib.sha256()
    for rel, p in sources + tools:
        digest.update(rel.encode() + b"\0" + hashlib.sha256(p.read_bytes()).digest())
    cache = Path(cache_dir) if cache_dir else root / ".cache" / "wheels"
    folder = cache / digest.hexdigest()[:16]
    built = sorted(folder.glob("webtorch-*.whl")) if folder.is_dir() else []
    if built:
        return built[0]
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="webtorch-wheel-", dir=cache) as tmp:
        src, out, later = Path(tmp) / "src", Path(tmp) / "out", Path(tmp) / "on_demand.zst"
        for rel, p in sources:
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(p, src / rel)
        r = subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(src)],
                           capture_output=True, text=True, check=False,
                           env={**os.environ, PYODIDE_ENV: str(pyodide), ESBUILD_ENV: str(minifier),
                                ON_DEMAND_OUT_ENV: str(later)})
        wheels = sorted(out.glob("webtorch-*.whl"))
        if r.returncode or len(wheels) != 1:
            raise RuntimeError(f"building the webtorch wheel failed (exit {r.returncode}):\n{r.stdout[-3000:]}\n"
                               f"{r.stderr[-3000:]}")
        recompress(wheels[0])
        folder.mkdir(exist_ok=True)
        final = folder / wheels[0].name
        # first: a wheel in the cache has its docstrings and on-demand modules beside it
        write_docstrings(src / "py" / "webtorch", final)
        os.replace(later, on_demand_path(final))
        os.replace(wheels[0], final)  # same file system: concurrent builders of one hash end with one whole file
    _prune(cache, keep=folder)
    return final


def _prune(cache, keep, spare=KEEP_BUILDS):
    """Remove all but the ``spare`` newest builds (a run in progress may still serve a recent one)."""
    builds = sorted((d for d in cache.iterdir() if d.is_dir() and d != keep and not d.name.startswith("webtorch-wheel-")),
                    key=lambda d: d.stat().st_mtime, reverse=True)
    for d in builds[spare - 1:]:
        shutil.rmtree(d, ignore_errors=True)
