"""pytest support for browser runs: ``-p webtorch_devtools.pytest_plugin`` (or import the fixtures in a conftest).

Fixtures:
  * ``webtorch_browser``: runs scripts inside Pyodide in headless Chromium and returns RunResults::

        def test_trains(webtorch_browser):
            r = webtorch_browser.run_source("import webtorch as torch\\nprint(torch.ones(2).sum().item())")
            assert r.status == 0 and r.stdout == "2.0\\n"

    ``.pytest(paths, args)`` runs pytest itself inside Pyodide over the given test files (pytest and its
    dependencies come from the wheels scripts/setup.sh downloads) and returns the outcome counts.
Marker: ``@pytest.mark.browser`` tags tests that drive the browser (select with ``-m browser``).
"""
import json
import shutil
import tempfile
from pathlib import Path

import pytest

from .session import BrowserSession, extra_wheels_dir

DEFAULT_TIMEOUT = 600

_PYTEST_DRIVER = '''\
import json, sys
import pytest
from webtorch.browser.runner import report


class _Collect:
    def __init__(self):
        self.counts = {"passed": 0, "failed": 0, "skipped": 0, "error": 0}
        self.failed = []

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            key = "error" if report.when != "call" and report.outcome == "failed" else report.outcome
            self.counts[key] += 1
            if report.outcome == "failed":
                self.failed.append(report.nodeid)


c = _Collect()
code = pytest.main(sys.argv[1:], plugins=[c])
report("pytest", json.dumps({"exit": int(code), "counts": c.counts, "failed": c.failed}))
sys.exit(0)
'''


class BrowserRunner:
    def __init__(self, session, tmp_root):
        self.session = session
        self.tmp_root = Path(tmp_root)
        self._n = 0

    def _folder(self):
        self._n += 1
        d = self.tmp_root / f"browser_run{self._n}"
        d.mkdir(parents=True)
        return d

    def run(self, script, *args, worker=False, timeout=DEFAULT_TIMEOUT, wheel_urls=()):
        return self.session.run(script, args, worker=worker, timeout=timeout, wheel_urls=wheel_urls)

    def run_source(self, source, *args, worker=False, timeout=DEFAULT_TIMEOUT, files=None):
        """Run Python ``source`` as a script; ``files``: {name: text} written beside it."""
        d = self._folder()
        for name, text in (files or {}).items():
            (d / name).write_text(text)
        (d / "main.py").write_text(source)
        return self.run(d / "main.py", *args, worker=worker, timeout=timeout)

    def pytest(self, paths, args=(), worker=False, timeout=DEFAULT_TIMEOUT, extra_files=()):
        """Run pytest inside Pyodide over copies of ``paths`` (+ ``extra_files``, e.g. conftest/helpers).

        Returns (counts dict {"passed", "failed", "skipped", "error"}, failed node ids, RunResult)."""
        folder = extra_wheels_dir()
        wheels = sorted(p.name for p in folder.glob("*.whl")) if folder and folder.is_dir() else []
        if not any(w.startswith("pytest-") for w in wheels):
            raise FileNotFoundError(f"pytest's wheels are missing from {folder}: run scripts/setup.sh")
        d = self._folder()
        for p in [*paths, *extra_files]:
            shutil.copy(p, d / Path(p).name)
        (d / "run_pytest.py").write_text(_PYTEST_DRIVER)
        res = self.session.run(d / "run_pytest.py", ["-q", "-p", "no:cacheprovider", *args,
                                                     *[Path(p).name for p in paths]],
                               worker=worker, timeout=timeout, wheel_urls=self.session.wheel_urls(wheels))
        outcome = [json.loads(t) for k, t in res.reports if k == "pytest"]
        if not outcome:
            raise AssertionError(f"pytest did not finish inside the browser (status {res.status}):\n"
                                 f"{res.stdout[-4000:]}\n{res.stderr[-4000:]}")
        return outcome[0]["counts"], outcome[0]["failed"], res


@pytest.fixture(scope="session")
def webtorch_playwright():
    """The test session's one Playwright (sync API): a thread can run only one, so every fixture that drives a
    browser launches it from this one."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def webtorch_browser_session(webtorch_playwright):
    """One local server + headless Chromium for the whole test session."""
    s = BrowserSession(playwright=webtorch_playwright)
    yield s
    s.close()


@pytest.fixture(scope="session")
def webtorch_browser(webtorch_browser_session):
    """Runs scripts, sources and pytest inside Pyodide in headless Chromium on WebGPU (see the module doc)."""
    tmp = tempfile.mkdtemp(prefix="webtorch-browser-")
    yield BrowserRunner(webtorch_browser_session, tmp)
    shutil.rmtree(tmp, ignore_errors=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "browser: runs inside Pyodide in headless Chromium")
