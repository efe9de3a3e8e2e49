"""The local HTTP server a browser run loads everything from (WebGPU needs a secure context:
http://127.0.0.1, never file://). Nothing comes from a CDN.

Routes: /pyodide/* (Pyodide's npm package), /web/* (bridge, loader, pages), /wheel/<webtorch wheel> (and
/wheel/<its name>.docstrings.json.gz and .on_demand.zst beside it), /wheels/* (extra pure-Python wheels, e.g.
pytest for in-browser test runs), /files/<name>.zip (folders handed to a run, zipped on request); more folders
through ``roots`` (name -> folder, served as /name/*; the name "" is the root folder: every path no other route
claims). Without a ``wheel`` it is a static site: only ``roots`` (``Server(roots={"": site_dir})``). A path naming
a folder serves its index.html.
``cross_origin_isolated=True`` sends COOP/COEP on every response, so pages get ``crossOriginIsolated``
(SharedArrayBuffer, e.g. for a synchronous kernel/worker channel or Pyodide's interrupt buffer).
"""
import io
import json
import mimetypes
import os
import threading
import zipfile
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .bytecode import on_demand_path
from .docstrings import docstrings_path
from .wheel import repo_root

_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
          ".json": "application/json", ".html": "text/html", ".zip": "application/zip",
          ".whl": "application/zip", ".map": "application/json", ".ipynb": "application/json",
          ".svg": "image/svg+xml", ".css": "text/css", ".gz": "application/gzip",
          ".zst": "application/zstd"}
_SKIP = {"__pycache__", "node_modules", ".venv", ".git", ".cache", ".pytest_cache"}
MAX_ARCHIVE_BYTES = 256 << 20
# Everything is served from this one origin, so same-origin resources load under require-corp.
ISOLATION_HEADERS = (("Cross-Origin-Opener-Policy", "same-origin"), ("Cross-Origin-Embedder-Policy", "require-corp"),
                     ("Cross-Origin-Resource-Policy", "same-origin"))


def pyodide_dir():
    """Pyodide's files: $WEBTORCH_PYODIDE, else node_modules/pyodide of the checkout or the working folder."""
    cands = [os.environ.get("WEBTORCH_PYODIDE")]
    root = repo_root()
    if root:
        cands.append(root / "node_modules" / "pyodide")
    cands.append(Path.cwd() / "node_modules" / "pyodide")
    for c in cands:
        if c and (Path(c) / "pyodide.mjs").is_file():
            return Path(c)
    raise FileNotFoundError("Pyodide not found: run `npm install` in the webtorch checkout (package.json pins "
                            "pyodide), or set WEBTORCH_PYODIDE to a folder holding pyodide.mjs")


def pyodide_packages_url():
    """Pyodide's own package host for the Pyodide version served here (the default of --packages-url)."""
    version = json.loads((pyodide_dir() / "package.json").read_text())["version"]
    return f"https://cdn.jsdelivr.net/pyodide/v{version}/full/"


def web_dir():
    root = repo_root()
    if root and (root / "web" / "loader.js").is_file():
        return root / "web"
    raise FileNotFoundError("webtorch's web/ folder (bridge.js, loader.js) was not found: browser runs need a "
                            "webtorch source checkout")


def zip_folder(folder):
    """The folder's files (no caches, VCS or virtualenvs) as zip bytes; raises past MAX_ARCHIVE_BYTES."""
    buf = io.BytesIO()
    total = 0
    folder = Path(folder)
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP and not d.startswith("."))
            for f in sorted(filenames):
                p = Path(dirpath) / f
                if f.endswith(".pyc") or not p.is_file():
                    continue
                total += p.stat().st_size
                if total > MAX_ARCHIVE_BYTES:
                    raise ValueError(f"{folder} holds more than {MAX_ARCHIVE_BYTES >> 20} MiB: move the script "
                                     "into a smaller folder (its whole folder is copied into the browser)")
                z.write(p, p.relative_to(folder).as_posix())
    return buf.getvalue()


class Server:
    """Serves the routes above on 127.0.0.1 (``port`` 0: a free one), on a daemon thread. ``url`` is its base."""

    def __init__(self, wheel=None, folders=None, wheels_dir=None, roots=None, cross_origin_isolated=False, port=0):
        self.roots = {"pyodide": pyodide_dir(), "web": web_dir()} if wheel else {}
        self.roots.update({k.strip("/"): Path(v).resolve() for k, v in (roots or {}).items()})
        if wheels_dir:
            self.roots["wheels"] = Path(wheels_dir)
        self.wheel = Path(wheel) if wheel else None
        # read now: the wheel cache prunes old builds while other sessions (other checkouts' edits) build new ones;
        # the wheel's docstrings (help() fetches them) and on-demand modules beside it when the build wrote them
        beside = (docstrings_path(wheel), on_demand_path(wheel)) if wheel else ()
        self._wheel_files = {p.name: p.read_bytes() for p in (self.wheel, *beside) if p and p.is_file()}
        self.folders = dict(folders or {})  # name -> folder, served as /files/<name>.zip
        self._zips = {}
        self._lock = threading.Lock()
        self.headers = ISOLATION_HEADERS if cross_origin_isolated else ()
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):  # quiet: the terminal belongs to the script's output
                pass

            def do_GET(self):
                self._answer(send_body=True)

            def do_HEAD(self):
                self._answer(send_body=False)

            def _answer(self, send_body):
                body, ctype = server.resolve(unquote(urlsplit(self.path).path))
                if body is None:
                    self.send_error(404)
                    return
                if ctype == "redirect":
                    self.send_response(302)
                    self.send_header("Location", body)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", server.cache_control(self.path))
                for k, v in server.headers:
                    self.send_header(k, v)
                self.end_headers()
                if send_body:
                    self.wfile.write(body)

            def do_PUT(self):
                # a PUT always needs a CORS preflight, which is never answered: only this origin's pages can write
                n = int(self.headers.get("Content-Length") or 0)
                status, message = (413, "too large") if n > MAX_ARCHIVE_BYTES else \
                    server.store(unquote(urlsplit(self.path).path), self.rfile.read(n))
                body = message.encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True, name="webtorch-server")
        self.thread.start()

    def store(self, path, body):
        """(HTTP status, message) for a PUT of ``body`` to ``path``: nothing is writable here."""
        return 405, "this server stores nothing"

    def cache_control(self, path):
        """The Cache-Control header for a request path: nothing is cached (every run sees this checkout's files)."""
        return "no-store"

    def resolve(self, path):
        """(bytes, content type) for a request path, or (None, None); (location, "redirect") for a redirect."""
        parts = [p for p in path.split("/") if p]
        if any(p in ("..", ".") for p in parts):
            return None, None
        head, rest = (parts[0], parts[1:]) if parts else ("", [])
        if head == "wheel" and len(rest) == 1 and rest[0] in self._wheel_files:
            return self._wheel_files[rest[0]], _TYPES[Path(rest[0]).suffix]
        if head == "files" and len(rest) == 1 and rest[0].endswith(".zip") and rest[0][:-4] in self.folders:
            name = rest[0][:-4]
            with self._lock:
                if name not in self._zips:
                    self._zips[name] = zip_folder(self.folders[name])
            return self._zips[name], _TYPES[".zip"]
        if head and head in self.roots:
            root = self.roots[head]
        elif "" in self.roots:
            root, rest = self.roots[""], parts
        else:
            return None, None
        p = root.joinpath(*rest)
        if p.is_dir():
            p = p / "index.html"
        if not p.is_file():
            return None, None
        ext = p.suffix
        return p.read_bytes(), _TYPES.get(ext) or mimetypes.guess_type(p.name)[0] or "application/octet-stream"

    def serve_forever(self):
        """Block until interrupted (the thread already serves; this keeps a CLI process alive)."""
        self.thread.join()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
