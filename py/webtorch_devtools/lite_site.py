"""``webtorch lite build DIR``: an offline JupyterLite site where ``import webtorch`` trains on WebGPU.

The site: JupyterLab's UI and the Pyodide kernel (jupyterlite-core + jupyterlite-pyodide-kernel, pinned in
scripts/requirements-dev.txt), Pyodide from the repo's npm package, every wheel the kernel loads at start-up
(``lite_wheels``), webtorch preinstalled (Pyodide loads it at boot from the site's copy of pyodide-lock.json;
its docstrings beside it, fetched by the first ``obj?``/``help()``) and in the piplite index (so ``%pip install webtorch`` also works), and the tutorial notebooks of
examples/notebooks/ as its contents. Nothing is fetched from outside the site: Pyodide's URL is set
explicitly and piplite's PyPI fallback is off.

Serve it with ``webtorch lite serve DIR`` (COOP/COEP headers: the kernel's interrupt button needs them).
Building takes a while (JupyterLab's assets are copied); ``cached_site()`` keeps one build per input hash.
"""
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from . import lite_wheels
from .bytecode import on_demand_path
from .docstrings import docstrings_path
from .warmup import MANIFEST as WARMUP_MANIFEST

PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
ASSETS = Path(__file__).with_name("lite_assets")
# Pyodide's module wrapped so the kernel's interrupt works (lite_assets/webtorch-kernel.mjs): the kernel
# loads it from Pyodide's folder, which stays loadPyodide's indexURL
PYODIDE_URL = "./static/pyodide/webtorch-kernel.mjs"
INTERRUPT_JS = "static/webtorch/interrupt.js"  # its page half, added to every app page of the site
ON_DEMAND_FILE = "webtorch-on-demand.zst"  # the wheel's on-demand modules in Pyodide's folder (webtorch-kernel.mjs)
# the npm package's files Pyodide needs at run time (not its source maps, typings or demo consoles)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
_SKIP = {".ipynb_checkpoints", "__pycache__"}


def repo_root():
    return lite_wheels.repo_root()


def default_contents():
    """The tutorials: everything in examples/notebooks/ (notebooks, the modules and data they load)."""
    notebooks = repo_root() / "examples" / "notebooks"
    return sorted(p for p in notebooks.iterdir() if p.name not in _SKIP)


def site_config(packages_url=None):
    """jupyter-lite.json: the Pyodide kernel loads everything from the site, webtorch and the libraries users
    import (tqdm) at boot; ``packages_url``: where Pyodide packages the site lacks are loaded from when a cell
    imports them (lite_assets/webtorch-kernel.mjs reads it; None: nowhere, an offline site)."""
    # exposeAppInBrowser: window.jupyterapp, so automation (the tests) drives JupyterLab's own commands
    return {"jupyter-lite-schema-version": 0, "jupyter-config-data": {"exposeAppInBrowser": "true",
                                                                       "litePluginSettings": {PLUGIN: {
        "pyodideUrl": PYODIDE_URL, "disablePyPIFallback": True,
        "loadPyodideOptions": {"packages": ["webtorch", *lite_wheels.USER_LOCK_PACKAGES],
                               "webtorchPackagesURL": packages_url}}}}}


def _copy_item(src, dest_dir):
    src = Path(src)
    if src.is_dir():
        shutil.copytree(src, dest_dir / src.name, ignore=shutil.ignore_patterns(*_SKIP))
    else:
        shutil.copy2(src, dest_dir / src.name)


def _stage(lite, contents, wheel, pyodide_dir, kernel_wheels, packages_url):
    """The lite dir ``jupyter lite build`` reads: static/pyodide (+ wheels, patched lock), config, contents."""
    pyo = lite / "static" / "pyodide"
    pyo.mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(pyodide_dir / name, pyo / name)
    shutil.copy2(ASSETS / "webtorch-kernel.mjs", pyo)
    # what webtorch-kernel.mjs starts while Pyodide boots: the bridge and the wheel's warm-up manifest
    shutil.copy2(repo_root() / "web" / "bridge.js", pyo / "webtorch-bridge.js")
    with zipfile.ZipFile(wheel) as z:
        (pyo / "webtorch-warmup.json").write_bytes(z.read(WARMUP_MANIFEST))
    shutil.copy2(on_demand_path(wheel), pyo / ON_DEMAND_FILE)  # the on-demand modules, fetched by the kernel
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text())
    found = lite_wheels.wheels(kernel_wheels, lock)
    lock_wheels = {}
    for name, entry in lite_wheels.lock_closure(lock).items():
        path = found[f"{entry['name']}=={entry['version']}"]
        shutil.copy2(path, pyo / path.name)
        lock_wheels[name] = path
    shutil.copy2(wheel, pyo / wheel.name)
    # its docstrings beside it (the wheel's bytecode has none): `obj?` and help() fetch them (webtorch-kernel.mjs)
    shutil.copy2(docstrings_path(wheel), pyo / docstrings_path(wheel).name)
    patched = lite_wheels.patched_lock(lock, lock_wheels, extra=[("webtorch", wheel, ["webtorch"])])
    (pyo / "pyodide-lock.json").write_text(json.dumps(patched))
    (lite / "jupyter-lite.json").write_text(json.dumps(site_config(packages_url), indent=2))
    files = lite / "contents"
    files.mkdir()
    for item in contents:
        _copy_item(item, files)
    piplite = [wheel] + [found[s] for s in lite_wheels.PIPLITE_PACKAGES]
    return files, piplite


def build_site(out_dir, contents=None, wheel=None, pyodide_dir=None, kernel_wheels=None, log=None, packages_url=None):
    """Build the site into ``out_dir`` (replaced); returns its path. ``log``: a file for the build's output;
    ``packages_url``: see ``site_config``."""
    from webtorch_devtools.server import pyodide_dir as npm_pyodide
    from webtorch_devtools.wheel import build_wheel
    out_dir = Path(out_dir).resolve()
    wheel = Path(wheel or build_wheel())
    contents = default_contents() if contents is None else [Path(c) for c in contents]
    with tempfile.TemporaryDirectory(prefix="webtorch-lite-") as tmp:
        lite = Path(tmp) / "lite"
        files, piplite = _stage(lite, contents, wheel, Path(pyodide_dir or npm_pyodide()), kernel_wheels, packages_url)
        if out_dir.exists():
            shutil.rmtree(out_dir)
        cmd = [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite), "--output-dir",
               str(out_dir), "--contents", str(files), "--no-sourcemaps"]
        for w in piplite:
            cmd += ["--piplite-wheels", str(w)]
        r = subprocess.run(cmd, cwd=lite, stdout=log or subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise RuntimeError(f"jupyter lite build failed ({r.returncode}):\n{r.stdout or ''}")
    _set_pyodide_url(out_dir / "jupyter-lite.json")
    _add_interrupt_script(out_dir)
    return out_dir


def _set_pyodide_url(config_path):
    """The kernel addon rewrites pyodideUrl to Pyodide's own pyodide.mjs; put the wrapper back."""
    config = json.loads(config_path.read_text())
    config["jupyter-config-data"]["litePluginSettings"][PLUGIN]["pyodideUrl"] = PYODIDE_URL
    config_path.write_text(json.dumps(config, indent=2))


def _add_interrupt_script(site):
    """Copy interrupt.js into the site and load it first in every app page (lab, notebooks, tree, ...)."""
    dest = site / INTERRUPT_JS
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ASSETS / "interrupt.js", dest)
    marker = '<script id="jupyter-config-data"'
    for page in site.glob("*/index.html"):
        html = page.read_text()
        if marker in html:
            page.write_text(html.replace(marker, f'<script src="../{INTERRUPT_JS}"></script>\n    {marker}', 1))


def _input_digest(contents, wheel):
    h = hashlib.sha256()
    from importlib.metadata import version
    for dist in ("jupyterlite-core", "jupyterlite-pyodide-kernel"):
        h.update(f"{dist}=={version(dist)}\n".encode())
    for p in [Path(__file__), Path(lite_wheels.__file__), repo_root() / "web" / "bridge.js", *sorted(ASSETS.iterdir())]:
        h.update(p.read_bytes())
    h.update(Path(wheel).read_bytes())
    h.update(docstrings_path(wheel).read_bytes())  # a docstring's text may change and leave the bytecode as it was
    for item in contents:
        paths = sorted(p for p in Path(item).rglob("*") if p.is_file()) if Path(item).is_dir() else [Path(item)]
        for p in paths:
            h.update(str(p.relative_to(Path(item).parent)).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def cached_site(cache_dir=None, contents=None):
    """A site built from this checkout, reused while its inputs (wheel, contents, versions) are unchanged."""
    from webtorch_devtools.wheel import build_wheel
    wheel = build_wheel()
    contents = default_contents() if contents is None else [Path(c) for c in contents]
    cache = Path(cache_dir or repo_root() / ".cache" / "lite-sites")
    out = cache / _input_digest(contents, wheel)
    if (out / "index.html").is_file():
        return out
    cache.mkdir(parents=True, exist_ok=True)
    for old in cache.iterdir():  # one site per checkout state is enough
        if old != out:
            shutil.rmtree(old, ignore_errors=True)
    tmp = cache / f"{out.name}.{id(out)}.tmp"
    build_site(tmp, contents=contents, wheel=wheel)
    tmp.rename(out)
    return out


def site_size(site):
    """(bytes, files) of a built site."""
    files = [p for p in Path(site).rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)
