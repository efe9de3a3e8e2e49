"""The ``webtorch`` command (also ``python -m webtorch_devtools``).

    webtorch run SCRIPT.py [args]                 run in this CPython
    webtorch run --browser SCRIPT.py [args]       run inside Pyodide in headless Chromium on WebGPU
                 [--worker] [--timeout SECONDS]   ... in a module Web Worker; stop after SECONDS (exit 124)
    webtorch lite build DIR                       an offline JupyterLite site with webtorch (needs a checkout)
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
    r.add_argument("script", help="the Python script")
    r.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script as sys.argv[1:]")
    from .lite_cli import add_parser as add_lite
    add_lite(sub)
    return p


def _write(stream):
    def w(text):
        stream.write(text)
        stream.flush()
    return w


def run_browser(script, args, worker=False, timeout=None, chromium=None):
    from .chromium import ChromiumNotFoundError
    from .session import BrowserSession
    try:
        session = BrowserSession(chromium=chromium)
    except (ChromiumNotFoundError, FileNotFoundError) as e:
        print(f"webtorch: {e}", file=sys.stderr)
        return 2
    with session:
        res = session.run(script, args, worker=worker, timeout=timeout, stdout=_write(sys.stdout),
                          stderr=_write(sys.stderr))
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
        if (ns.worker or ns.timeout is not None or ns.chromium) and not ns.browser:
            _parser().error("--worker, --timeout and --chromium need --browser")
        if ns.browser:
            return run_browser(ns.script, ns.args, ns.worker, ns.timeout, ns.chromium)
        return run_cpython(ns.script, ns.args)
    if ns.command == "lite":
        from .lite_cli import main as lite_main
        return lite_main(ns)
    return 2
