"""Serve webtorch's notebook app (web/notebook/) or build it as a static site.

    webtorch notebook [PATH.ipynb] [--port N]     serve on 127.0.0.1 with COOP/COEP (interrupt needs them)
    webtorch notebook --build DIR                 a static site: the app, Pyodide, the webtorch wheel, the
                                                  pure-Python libraries users import (tqdm) and the tutorials
                                                  (examples/notebooks/), for any static host, offline

The app's third-party libraries (CodeMirror, markdown-it, KaTeX, uPlot, DOMPurify; pinned in package.json) are
bundled from node_modules by esbuild into the git-ignored web/notebook/build/ (at setup, and again here when stale).
"""
import json
import os
import shutil
import subprocess
from pathlib import Path

from .bytecode import on_demand_path
from .docstrings import docstrings_path
from .lite_wheels import cache_dir as user_wheels_dir, user_wheels
from .server import ISOLATION_HEADERS, Server, pyodide_dir, web_dir
from .wheel import build_wheel, repo_root

PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
                 "package.json")
APP_PATH = "web/notebook/index.html"
# The app's Content-Security-Policy, the second wall behind its sanitizer (web/notebook/sanitize.js): scripts
# and workers only from this origin, WebAssembly compiled (Pyodide) but no eval; images and fonts also from
# data:/blob: (outputs, plot snapshots), so a URL in sanitized markup cannot load anything from elsewhere;
# inline styles (KaTeX, uPlot, CodeMirror set them); no frames, plugins, form posts or <base>. Fetches may go
# to https: too: the kernel's worker runs under this policy and a user's cell downloads data (only script can
# fetch, and no script from a notebook runs). A meta tag cannot carry frame-ancestors: only the header has it.
CSP = ("default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self' https:; "
       "img-src 'self' data: blob:; font-src 'self' data:; style-src 'self' 'unsafe-inline'; media-src 'self' data:; "
       "object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'")
CSP_HEADER = CSP + "; frame-ancestors 'none'"


def content_security_policy(packages_url=None, header=False):
    """CSP (CSP_HEADER for a response header), with a package URL's origin added to connect-src when it is not
    https: (the kernel's worker fetches the packages a cell imports from there)."""
    policy = CSP_HEADER if header else CSP
    if packages_url and not packages_url.startswith("https:"):
        origin = "/".join(packages_url.split("/")[:3])
        policy = policy.replace("connect-src 'self' https:;", f"connect-src 'self' https: {origin};")
    return policy


def notebooks_dir():
    root = repo_root()
    return root / "examples" / "notebooks" if root else None


def build_bundle(force=False):
    """web/notebook/build/{vendor.js, uPlot.min.css, katex.min.css, fonts/}, rebuilt when vendor.js or package-lock.json is newer."""
    root = repo_root()
    app = web_dir() / "notebook"
    out = app / "build"
    entry = app / "vendor.js"
    esbuild = root / "node_modules" / ".bin" / "esbuild" if root else None
    sources = [entry, root / "package-lock.json"] if root else [entry]
    bundle = out / "vendor.js"
    if not force and bundle.is_file() and all(bundle.stat().st_mtime >= s.stat().st_mtime for s in sources
                                              if s.is_file()):
        return out
    if esbuild is None or not esbuild.exists():
        raise FileNotFoundError("esbuild not found in node_modules: run `bash scripts/setup.sh` (or `npm ci`) in the "
                                "webtorch checkout; package.json pins the notebook app's libraries")
    out.mkdir(exist_ok=True)
    subprocess.run([str(esbuild), str(entry), "--bundle", "--format=esm", "--minify", "--log-level=warning",
                    f"--outfile={bundle}"], check=True, cwd=root)
    shutil.copyfile(root / "node_modules" / "uplot" / "dist" / "uPlot.min.css", out / "uPlot.min.css")
    katex = root / "node_modules" / "katex" / "dist"
    shutil.copyfile(katex / "katex.min.css", out / "katex.min.css")
    (out / "fonts").mkdir(exist_ok=True)
    for font in (katex / "fonts").glob("*.woff2"):  # every browser that has WebGPU reads woff2
        shutil.copyfile(font, out / "fonts" / font.name)
    return out


def _tutorials(url_prefix):
    folder = notebooks_dir()
    if not folder or not folder.is_dir():
        return []
    return [{"name": p.stem.replace("_", " "), "url": f"{url_prefix}{p.name}"} for p in sorted(folder.glob("*.ipynb"))]


def _tutorial_files():
    """The tutorials' folder's other files (links followed: data/, digits_data.py, assets/), relative paths.
    examples/notebooks/README.md: a host copies them into the kernel's working directory."""
    folder = notebooks_dir()
    if not folder or not folder.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        out += [(Path(dirpath) / f).relative_to(folder).as_posix() for f in sorted(filenames)
                if not f.startswith(".") and not f.endswith((".ipynb", ".pyc"))]
    return out


def app_config(wheel_name, prefix, packages_url=None):
    """What the app needs to boot; URLs relative to the config file (prefix "/" when served, "" in a site).
    wheelURLs: the pure-Python libraries notebook users import (tqdm), installed at kernel start; packagesURL:
    where Pyodide packages this site lacks are fetched from (None: nowhere, an offline site)."""
    return {"indexURL": f"{prefix}pyodide/", "wheelURL": f"{prefix}wheel/{wheel_name}",
            "wheelURLs": [f"{prefix}wheels/{p.name}" for p in user_wheels()], "packagesURL": packages_url,
            "tutorials": _tutorials(f"{prefix}notebooks/"),
            "tutorialFiles": {"base": f"{prefix}notebooks/", "files": _tutorial_files()}}


class NotebookServer(Server):
    """The app at /web/notebook/, its config at /notebook-config.json, tutorials at /notebooks/, the opened
    notebook's folder at /opened/."""

    def __init__(self, open_path=None, port=0, packages_url=None):
        build_bundle()
        roots = {}
        folder = notebooks_dir()
        if folder and folder.is_dir():
            roots["notebooks"] = folder
        self.open_url = self.open_path = None
        if open_path:
            p = Path(open_path).resolve()
            if not p.is_file():
                raise FileNotFoundError(f"{open_path}: no such notebook file")
            roots["opened"] = p.parent
            self.open_url, self.open_path = f"/opened/{p.name}", p
        # cross-origin isolated: SharedArrayBuffer, the kernel's interrupt buffer, needs it
        super().__init__(build_wheel(), roots=roots, wheels_dir=user_wheels_dir(), cross_origin_isolated=True,
                         port=port)
        self.headers = (*self.headers, ("Content-Security-Policy",
                                        content_security_policy(packages_url, header=True)))
        config = app_config(self.wheel.name, "/", packages_url)
        if self.open_url:
            config["saveURL"] = self.open_url  # the app's Save writes the opened notebook back (store below)
        self._config = json.dumps(config).encode()

    def store(self, path, body):
        """Save the opened notebook (only that file, only a valid-looking nbformat 4 notebook)."""
        if not self.open_url or path != self.open_url:
            return 403, "only the notebook this server was started with can be saved"
        try:
            nb = json.loads(body)
        except ValueError as e:
            return 400, f"not JSON: {e}"
        if not isinstance(nb, dict) or nb.get("nbformat") != 4 or not isinstance(nb.get("cells"), list):
            return 400, "not an nbformat 4 notebook"
        tmp = self.open_path.with_name(f".{self.open_path.name}.saving")
        tmp.write_bytes(body)
        os.replace(tmp, self.open_path)
        return 200, f"saved {self.open_path}"

    def cache_control(self, path):
        # Pyodide's files are a pinned npm release: cached, so a reload boots from the browser's cache (and its
        # compiled wasm); the app and the wheel follow this checkout, revalidated on each load.
        return "public, max-age=86400" if path.startswith("/pyodide/") else "no-store"

    @property
    def app_url(self):
        return f"{self.url}/{APP_PATH}" + (f"?open={self.open_url}" if self.open_url else "")

    def resolve(self, path):
        if path in ("/", "/index.html"):
            return "/" + APP_PATH + (f"?open={self.open_url}" if self.open_url else ""), "redirect"
        if path == "/notebook-config.json":
            return self._config, "application/json"
        return super().resolve(path)


_SITE_INDEX = """<!doctype html><meta charset="utf-8"><title>webtorch notebook</title>
<script>location.replace("web/notebook/index.html" + location.search)</script>
<a href="web/notebook/index.html">webtorch notebook</a>
"""


def build_site(dest, packages_url=None):
    """Write the static site into ``dest`` (created; existing files of the same names replaced); ``packages_url``:
    where its kernel fetches Pyodide packages it lacks (NumPy, matplotlib, ...) once online (None: offline)."""
    dest = Path(dest)
    build_bundle()
    web = web_dir()
    for sub in ("pyodide", "wheel", "wheels", "notebooks", "web"):
        shutil.rmtree(dest / sub, ignore_errors=True)
    (dest / "pyodide").mkdir(parents=True)
    for name in PYODIDE_FILES:
        src = pyodide_dir() / name
        if src.is_file():
            shutil.copyfile(src, dest / "pyodide" / name)
    wheel = build_wheel()
    (dest / "wheel").mkdir()
    shutil.copyfile(wheel, dest / "wheel" / wheel.name)
    shutil.copyfile(docstrings_path(wheel), dest / "wheel" / docstrings_path(wheel).name)  # fetched by help()
    shutil.copyfile(on_demand_path(wheel), dest / "wheel" / on_demand_path(wheel).name)  # fetched at first import
    (dest / "wheels").mkdir()
    for path in user_wheels():
        shutil.copyfile(path, dest / "wheels" / path.name)
    (dest / "web").mkdir()
    for name in ("bridge.js", "loader.js", "wasm_host.js", "zip_files.js"):  # loader.js imports the other three
        shutil.copyfile(web / name, dest / "web" / name)
    shutil.copytree(web / "notebook", dest / "web" / "notebook")
    index = dest / "web" / "notebook" / "index.html"  # the policy travels with the page on any static host
    meta = f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(packages_url)}">'
    index.write_text(index.read_text().replace('<meta charset="utf-8">', '<meta charset="utf-8">\n' + meta, 1))
    folder = notebooks_dir()
    if folder and folder.is_dir():
        shutil.copytree(folder, dest / "notebooks", ignore=shutil.ignore_patterns(".*"))
    (dest / "notebook-config.json").write_text(json.dumps(app_config(wheel.name, "", packages_url), indent=1))
    (dest / "index.html").write_text(_SITE_INDEX)
    # static hosts rarely send COOP/COEP; where they can (Netlify, Cloudflare Pages) this file asks for them, and
    # for the policy on the app's files (its kernel worker too; the site's index is only a redirect)
    policy = content_security_policy(packages_url, header=True)
    (dest / "_headers").write_text("/*\n" + "".join(f"  {k}: {v}\n" for k, v in ISOLATION_HEADERS)
                                   + f"/web/*\n  Content-Security-Policy: {policy}\n")
    return dest


def _can_open_browser():
    return os.name == "nt" or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or \
        os.uname().sysname == "Darwin"


def serve(path=None, port=0, open_browser=True, out=print, packages_url=None):
    """Serve until Ctrl-C; prints the URL (and opens it where a display exists)."""
    import threading
    server = NotebookServer(path, port=port, packages_url=packages_url)
    out(f"webtorch notebook: {server.app_url}\n(Ctrl-C to stop)")
    if open_browser and _can_open_browser():
        import webbrowser
        webbrowser.open(server.app_url)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
