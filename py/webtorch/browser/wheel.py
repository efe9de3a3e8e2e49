"""Build the pure-Python webtorch wheel from this checkout (what Pyodide installs), cached by content.

A pure-Python wheel is a zip of the package plus a dist-info folder; building it directly takes
milliseconds where setuptools takes seconds, and the content hash in the cache folder's name makes a
stale wheel impossible. The shaders come along through the ``py/webtorch/shaders`` link.
"""
import base64
import hashlib
import os
import re
import shutil
import zipfile
from pathlib import Path

_SKIP_DIRS = {"__pycache__"}
KEEP_BUILDS = 3  # cached wheels kept (the one just built included)
_SKIP_SUFFIXES = (".pyc", ".pyo")


def repo_root():
    """The checkout holding this package (py/webtorch/..), or None for an installed copy."""
    root = Path(__file__).resolve().parents[3]
    return root if (root / "pyproject.toml").is_file() and (root / "py" / "webtorch").is_dir() else None


def _project(root):
    text = (root / "pyproject.toml").read_text()
    name = re.search(r'^name\s*=\s*"([^"]+)"', text, re.M).group(1)
    version = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M).group(1)
    return name, version


def _package_files(pkg_dir):
    """(archive name, path) of every file of the package, links followed, sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(pkg_dir, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith(_SKIP_SUFFIXES):
                continue
            p = Path(dirpath) / f
            out.append(("webtorch/" + p.relative_to(pkg_dir).as_posix(), p))
    return out


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(root=None, cache_dir=None):
    """Path of webtorch-<version>-py3-none-any.whl built from ``root`` (default: this checkout).

    Cached under ``<root>/.cache/wheels/<content hash>/``: rebuilt only when a package file changes.
    """
    root = Path(root) if root else repo_root()
    if root is None:
        raise RuntimeError("building the webtorch wheel needs a source checkout (pyproject.toml + py/webtorch); "
                           "this webtorch is an installed copy")
    name, version = _project(root)
    files = [(arc, p.read_bytes()) for arc, p in _package_files(root / "py" / "webtorch")]
    digest = hashlib.sha256()
    for arc, data in files:
        digest.update(arc.encode() + b"\0" + hashlib.sha256(data).digest())
    digest.update(version.encode())
    cache = Path(cache_dir) if cache_dir else root / ".cache" / "wheels"
    out = cache / digest.hexdigest()[:16] / f"{name}-{version}-py3-none-any.whl"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    info = f"{name}-{version}.dist-info"
    meta = [
        (f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                             "Requires-Python: >=3.11\n".encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: webtorch.browser.wheel\nRoot-Is-Purelib: true\n"
                          b"Tag: py3-none-any\n"),
        (f"{info}/top_level.txt", b"webtorch\n"),
    ]
    # First in the archive and stored, not deflated: web/loader.js reads it from the wheel's first bytes and
    # starts compiling its kernels while Pyodide boots (webtorch/backends/webgpu/warmup.py).
    from webtorch.backends.webgpu.warmup import MANIFEST, manifest_bytes
    warm = (MANIFEST, manifest_bytes())
    record = "".join(f"{arc},{_record_hash(data)},{len(data)}\n" for arc, data in [warm] + files + meta)
    tmp = out.with_suffix(f".{os.getpid()}.tmp")  # concurrent builders of one hash never share a file
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr(zipfile.ZipInfo(warm[0], date_time=(2020, 1, 1, 0, 0, 0)), warm[1], zipfile.ZIP_STORED)
        for arc, data in files + meta:
            z.writestr(zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
        z.writestr(f"{info}/RECORD", record + f"{info}/RECORD,,\n")
    os.replace(tmp, out)
    _prune(cache, keep=out.parent)
    return out


def _prune(cache, keep, spare=KEEP_BUILDS):
    """Remove all but the ``spare`` newest builds (a run in progress may still serve a recent one)."""
    builds = sorted((d for d in cache.iterdir() if d.is_dir() and d != keep), key=lambda d: d.stat().st_mtime,
                    reverse=True)
    for d in builds[spare - 1:]:
        shutil.rmtree(d, ignore_errors=True)
