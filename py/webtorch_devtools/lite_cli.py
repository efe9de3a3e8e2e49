"""``webtorch lite build DIR`` / ``webtorch lite serve DIR``: the JupyterLite site's commands."""
import sys


def add_parser(sub):
    lite = sub.add_parser("lite", help="an offline JupyterLite site where `import webtorch` trains on WebGPU")
    cmd = lite.add_subparsers(dest="lite_command", required=True)
    b = cmd.add_parser("build", help="build the site into DIR (replacing it)")
    b.add_argument("dir", metavar="DIR")
    b.add_argument("--contents", action="append", default=None, metavar="PATH",
                   help="notebooks/files to include (repeatable; default: the tutorials of examples/notebooks/)")
    from .cli import add_packages_url_option
    add_packages_url_option(b)
    s = cmd.add_parser("serve", help="serve DIR on 127.0.0.1 with COOP/COEP (the kernel's interrupt needs them)")
    s.add_argument("dir", metavar="DIR")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0: any free one)")
    return lite


def main(ns):
    from pathlib import Path
    if ns.lite_command == "build":
        from .cli import packages_url_of
        from .lite_site import build_site, site_size
        site = build_site(ns.dir, contents=ns.contents, log=sys.stderr, packages_url=packages_url_of(ns))
        size, files = site_size(site)
        print(f"webtorch: built {site} ({size / 2**20:.1f} MiB, {files} files); serve it with "
              f"`webtorch lite serve {ns.dir}`")
        return 0
    from .server import Server
    site = Path(ns.dir)
    if not (site / "jupyter-lite.json").is_file():
        print(f"webtorch: {site} is not a JupyterLite site (no jupyter-lite.json): build one with "
              f"`webtorch lite build {ns.dir}`", file=sys.stderr)
        return 2
    server = Server(roots={"": site}, cross_origin_isolated=True, port=ns.port)
    print(f"webtorch: serving {site} at {server.url}/lab/index.html (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
