"""Drive runs of Python scripts inside Pyodide in headless Chromium (the host side of ``webtorch run --browser``).

    with BrowserSession() as s:
        r = s.run("examples/digits_classifier.py", ["--epochs", "2"], stdout=sys.stdout.write)
        r.status, r.stdout, r.timings

One session = one local server + one Chromium; each run gets a fresh browser context (a clean page,
Pyodide booted anew), so runs never share state. Output arrives live through a Playwright binding.
"""
import itertools
import json
import time
from pathlib import Path

from .chromium import launch
from .lite_wheels import cache_dir as user_wheels_dir, user_wheels
from .server import Server
from .wheel import build_wheel, repo_root

TIMEOUT_STATUS = 124
CRASH_STATUS = 1
BOOT_ATTEMPTS = 3  # a page that crashes before the script starts is booted again (nothing of the script ran)
_POLL_MS = 25


def extra_wheels_dir():
    """Where scripts/setup.d/browser.sh downloads the pure-Python wheels in-browser pytest needs."""
    root = repo_root()
    return root / ".cache" / "pyodide-wheels" if root else None


class RunResult:
    __slots__ = ("status", "stdout", "stderr", "timed_out", "timings", "reports", "seconds")

    def __init__(self):
        self.status = None
        self.stdout = ""
        self.stderr = ""
        self.timed_out = False
        self.timings = {}
        self.reports = []  # (kind, text) sent by webtorch.browser.runner.report (inside Pyodide)
        self.seconds = 0.0

    def __repr__(self):
        return f"RunResult(status={self.status}, timed_out={self.timed_out}, seconds={self.seconds:.1f})"


class BrowserSession:
    """A local server and a headless Chromium. ``playwright``: a started Playwright to launch it with (one thread
    can hold only one sync Playwright, so a test session shares one); by default the session starts and stops its
    own. ``cross_origin_isolated``: the server sends COOP/COEP, so pages get SharedArrayBuffer (WebAssembly
    threads)."""

    def __init__(self, chromium=None, headless=True, playwright=None, cross_origin_isolated=False):
        wheels_dir = extra_wheels_dir()
        libraries = user_wheels()  # the pure-Python libraries scripts import (tqdm), as the notebook sites ship
        self.server = Server(build_wheel(), wheels_dir=wheels_dir if wheels_dir and wheels_dir.is_dir() else None,
                             roots={"user-wheels": user_wheels_dir()}, cross_origin_isolated=cross_origin_isolated)
        self._user_wheel_urls = [f"{self.server.url}/user-wheels/{p.name}" for p in libraries]
        self._names = itertools.count(1)
        if playwright is None:
            from playwright.sync_api import sync_playwright
            self._own_pw = sync_playwright().start()
            playwright = self._own_pw
        else:
            self._own_pw = None
        try:
            self.browser = launch(playwright, chromium, headless=headless)
        except BaseException:
            self._stop_playwright()
            self.server.close()
            raise

    def _stop_playwright(self):
        if self._own_pw is not None:
            self._own_pw.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        try:
            self.browser.close()
        finally:
            self._stop_playwright()
            self.server.close()

    def wheel_urls(self, names):
        """URLs of extra wheels (by file name) in the downloaded-wheels folder."""
        folder = self.server.roots.get("wheels")
        missing = [n for n in names if folder is None or not (folder / n).is_file()]
        if missing:
            raise FileNotFoundError(f"wheels {missing} are missing from {extra_wheels_dir()}: run scripts/setup.sh")
        return [f"{self.server.url}/wheels/{n}" for n in names]

    def run(self, script, argv=(), worker=False, timeout=None, stdout=None, stderr=None, wheel_urls=(),
            on_report=None, packages_url=None, cuda="auto"):
        """Run ``script`` (its whole folder is copied in) with ``argv``; returns a RunResult.

        ``stdout``/``stderr``: callables receiving text as the script writes it. PyPI's tqdm is installed, its bars
        written as text lines (webtorch.browser.runner). ``timeout``: seconds
        for the whole run (boot included); past it the run is stopped and ``status`` is 124. ``packages_url``:
        where Pyodide packages the script imports are fetched from when the local Pyodide folder lacks them. ``cuda``:
        what "cuda" names in the page, "auto" (webgpu when the adapter is a GPU), "webgpu" or "none" (loader.js).
        A page that crashes while Pyodide boots (before any line of the script ran) is booted again, up to
        BOOT_ATTEMPTS times in all; a crash while the script runs ends the run with status 1 and says when.
        """
        script = Path(script).resolve()
        if not script.is_file():
            raise FileNotFoundError(f"no such script: {script}")
        name = f"run{next(self._names)}"
        self.server.folders[name] = script.parent
        cfg = {"indexURL": f"{self.server.url}/pyodide/", "wheelURL": f"{self.server.url}/wheel/"
               f"{self.server.wheel.name}", "wheelURLs": [*self._user_wheel_urls, *wheel_urls], "filesURL":
               f"{self.server.url}/files/{name}.zip", "dir": f"/home/pyodide/{script.parent.name or 'root'}",
               "script": script.name, "argv": [str(a) for a in argv], "worker": bool(worker),
               "packagesURL": packages_url, "cuda": cuda}
        t0 = time.perf_counter()
        deadline = None if timeout is None else t0 + timeout
        try:
            for attempt in range(1, BOOT_ATTEMPTS + 1):
                res, boot_crashed = self._attempt(cfg, deadline, {"stdout": stdout, "stderr": stderr}, on_report,
                                                  last=attempt == BOOT_ATTEMPTS)
                if not boot_crashed:
                    break
            res.timings["boot_attempts"] = attempt
        finally:
            self.server.folders.pop(name, None)
        res.seconds = time.perf_counter() - t0
        return res

    @staticmethod
    def _start(page, cfg):
        """Start the run in a booted page (web/pages/run_page.js)."""
        page.evaluate("cfg => window.webtorchStart(cfg)", cfg)

    def _attempt(self, cfg, deadline, sinks, on_report, last):
        """One page: boot Pyodide, run the script. Returns (RunResult, whether the page crashed before the script
        started)."""
        res = RunResult()
        out = {"stdout": [], "stderr": []}
        t0 = time.perf_counter()
        started = []  # the page sends its timings just before the script's first line runs (web/run.js)
        crashes = []

        def emit(kind, text):
            if kind == "output":  # stdout/stderr pieces in the order the script wrote them (web/run.js)
                for stream, piece in json.loads(text):
                    out[stream].append(piece)
                    if sinks[stream]:
                        sinks[stream](piece)
            elif kind == "stderr":  # the page's own messages (crashes, errors outside the script)
                out["stderr"].append(text)
                if sinks["stderr"]:
                    sinks["stderr"](text)
            elif kind == "done":
                res.status = int(text)
            elif kind == "timing":
                started.append(True)
                res.timings.update(json.loads(text))
            else:
                res.reports.append((kind, text))
                if on_report:
                    on_report(kind, text)

        def crashed(*_):
            when = (f"while the script ran, {time.perf_counter() - t0:.1f} s after the page opened" if started else
                    f"while Pyodide booted, before the script started (booted {BOOT_ATTEMPTS} times)")
            if started or last:
                emit("stderr", f"webtorch: the browser page crashed {when}\n")
            crashes.append(True)
            res.status = CRASH_STATUS

        context = self.browser.new_context()
        try:
            page = context.new_page()
            page.on("pageerror", lambda e: emit("stderr", f"webtorch: page error: {e}\n"))
            page.on("crash", crashed)
            page.expose_function("webtorchEmit", emit)
            page.goto(f"{self.server.url}/web/pages/run.html")
            page.wait_for_function("window.webtorchReady === true")
            self._start(page, cfg)
            while res.status is None:
                if deadline is not None and time.perf_counter() > deadline:
                    res.timed_out = True
                    res.status = TIMEOUT_STATUS
                    break
                try:
                    page.wait_for_timeout(_POLL_MS)
                except Exception:  # noqa: BLE001 -- the page closed under us: a crash already set the status
                    if res.status is None:
                        raise
        except Exception:  # noqa: BLE001 -- a crash during goto/evaluate interrupts them; anything else propagates
            if not crashes:
                raise
        finally:
            res.stdout, res.stderr = "".join(out["stdout"]), "".join(out["stderr"])
            context.close()
        return res, bool(crashes) and not started
