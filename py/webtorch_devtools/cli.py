"""The ``webtorch`` command (also ``python -m webtorch_devtools``).

    webtorch run SCRIPT.py [args]                 run in this CPython
    webtorch run --browser SCRIPT.py [args]       run inside Pyodide in headless Chromium (default device "cpu",
                                                  torch.accelerator webgpu)
                 [--cuda auto|webgpu|none]        ... "cuda" names webgpu: on a GPU adapter (auto), always, never
                 [--worker] [--timeout SECONDS]   ... in a module Web Worker; stop after SECONDS (exit 124)
                 [--packages-url [URL]]           ... loading Pyodide packages it imports from URL
    webtorch notebook [PATH.ipynb] [--port N]     serve the notebook app (prints its URL)
    webtorch notebook --build DIR                 write the notebook app as a static site
                 [--packages-url [URL]]           ... whose kernel loads Pyodide packages it lacks (NumPy,
                                                  matplotlib) from URL (default: Pyodide's package host)
    webtorch lite build DIR [--packages-url [URL]]  a JupyterLite site with webtorch (needs a checkout);
                                                  offline, or loading Pyodide packages from URL once online
    webtorch lite serve DIR [--port N]            serve it with COOP/COEP
"""
import argparse
import runpy
import sys


def _parser():
    p = argparse.ArgumentParser(prog="webtorch", description="webtorch command line")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run a Python script (in CPython, or with --browser in headless Chromium)")
    r.add_argument("--browser", action="store_true", help="run inside Pyodide in headless Chromium (WebGPU)")
    r.add_argument("--worker", action="store_true", help="with --browser: run in a module Web Worker")
    r.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="with --browser: stop the run after SECONDS (boot included) and exit 124")
    r.add_argument("--chromium", default=None, metavar="PATH", help="Chromium executable (default: $WEBTORCH_CHROMIUM, "
                   "then the system's chromium, then Playwright's)")
    add_packages_url_option(r)
    r.add_argument("--cuda", choices=("auto", "webgpu", "none"), default=None,
                   help='with --browser: what "cuda" names in the page -- auto (default): the webgpu device when the '
                        'adapter is a GPU, not on a CPU fallback; webgpu: always when WebGPU is there; none: no CUDA')
    r.add_argument("script", help="the Python script")
    r.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script as sys.argv[1:]")
    n = sub.add_parser("notebook", help="the notebook app: serve it locally, or --build a static site")
    n.add_argument("path", nargs="?", default=None, help="a .ipynb notebook to open")
    n.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    n.add_argument("--build", metavar="DIR", default=None, help="write a static site into DIR instead of serving")
    n.add_argument("--no-open", action="store_true", help="do not open a browser (none is opened without a display)")
    add_packages_url_option(n)
    from .lite_cli import add_parser as add_lite
    add_lite(sub)
    return p


def add_packages_url_option(parser):
    parser.add_argument("--packages-url", nargs="?", const="pyodide", default=None, metavar="URL",
                        help="fetch Pyodide packages the code imports and the site lacks (NumPy, matplotlib, ...) from "
                        "URL once online; without a value, Pyodide's own package host for its version (default: off, "
                        "only the site's own packages)")


def packages_url_of(ns):
    if ns.packages_url == "pyodide":
        from .server import pyodide_packages_url
        return pyodide_packages_url()
    return ns.packages_url


def _write(stream):
    def w(text):
        stream.write(text)
        stream.flush()
    return w


def run_browser(script, args, worker=False, timeout=None, chromium=None, packages_url=None, cuda="auto"):
    from .chromium import ChromiumNotFoundError
    from .session import BrowserSession
    try:
        session = BrowserSession(chromium=chromium)
    except (ChromiumNotFoundError, FileNotFoundError) as e:
        print(f"webtorch: {e}", file=sys.stderr)
        return 2
    with session:
        res = session.run(script, args, worker=worker, timeout=timeout, stdout=_write(sys.stdout),
                          stderr=_write(sys.stderr), packages_url=packages_url, cuda=cuda)
    if res.timed_out:
        print(f"webtorch: {script} did not finish within {timeout:g} s (--timeout); stopped it", file=sys.stderr)
    return res.status


def run_cpython(script, args):
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")
    return 0


def main(argv=None):
    ns = _parser().parse_args(argv)
    if ns.command == "run":
        if (ns.worker or ns.timeout is not None or ns.chromium or ns.packages_url or ns.cuda) and not ns.browser:
            _parser().error("--worker, --timeout, --chromium, --packages-url and --cuda need --browser "
                            "(in CPython: WEBTORCH_CUDA=webgpu)")
        if ns.browser:
            return run_browser(ns.script, ns.args, ns.worker, ns.timeout, ns.chromium, packages_url_of(ns),
                               ns.cuda or "auto")
        return run_cpython(ns.script, ns.args)
    if ns.command == "notebook":
        from . import notebook_app
        if ns.build:
            if ns.path:
                _parser().error("--build writes the app with the tutorials; open a notebook in it with ?open=URL")
            site = notebook_app.build_site(ns.build, packages_url=packages_url_of(ns))
            print(f"webtorch notebook: site written to {site}")
            return 0
        return notebook_app.serve(ns.path, ns.port, open_browser=not ns.no_open, packages_url=packages_url_of(ns))
    if ns.command == "lite":
        from .lite_cli import main as lite_main
        return lite_main(ns)
    return 2
