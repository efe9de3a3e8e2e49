"""Static files on 127.0.0.1, cross-origin isolated: every response carries COOP/COEP, so pages get
SharedArrayBuffer, which Pyodide's interrupt buffer (a kernel's "interrupt" button) needs.

    server = IsolatedServer({"": site_dir})           # or several folders: {"pyodide": ..., "": ...}
    print(server.url); ...; server.close()

Routes map a URL's first path segment to a folder ("" is the root folder: every path no other route
claims). A path naming a folder serves its index.html. Nothing outside the routed folders is served.
"""
import mimetypes
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
          ".json": "application/json", ".html": "text/html", ".whl": "application/zip", ".zip": "application/zip",
          ".ipynb": "application/json", ".map": "application/json", ".svg": "image/svg+xml", ".css": "text/css"}
ISOLATION_HEADERS = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp",
                     "Cross-Origin-Resource-Policy": "same-origin"}


class IsolatedServer:
    """Serves ``routes`` ({first path segment: folder}) on 127.0.0.1 (``port`` 0: a free one), on a daemon thread."""

    def __init__(self, routes, port=0):
        self.routes = {k.strip("/"): Path(v).resolve() for k, v in routes.items()}
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self._answer(send_body=True)

            def do_HEAD(self):
                self._answer(send_body=False)

            def _answer(self, send_body):
                path = server.resolve(unquote(urlsplit(self.path).path))
                if path is None:
                    self.send_error(404)
                    return
                body = path.read_bytes()
                self.send_response(200)
                ctype = _TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-cache")
                for k, v in ISOLATION_HEADERS.items():
                    self.send_header(k, v)
                self.end_headers()
                if send_body:
                    self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True, name="webtorch-isolated-server")
        self.thread.start()

    def resolve(self, path):
        """The file a request path names, or None (unknown route, a missing file, or a path leaving its folder)."""
        parts = [p for p in path.split("/") if p]
        if any(p in ("..", ".") for p in parts):
            return None
        if parts and parts[0] in self.routes and parts[0] != "":
            root, rest = self.routes[parts[0]], parts[1:]
        elif "" in self.routes:
            root, rest = self.routes[""], parts
        else:
            return None
        p = root.joinpath(*rest)
        if p.is_dir():
            p = p / "index.html"
        return p if p.is_file() else None

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
