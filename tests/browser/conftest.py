"""Browser suites: Playwright drives Debian's Chromium against pages served on 127.0.0.1 (never skipped:
scripts/setup.sh installs Chromium and the wheels)."""
import sys
from pathlib import Path

import pytest
from webtorch_devtools.pytest_plugin import webtorch_browser, webtorch_browser_session, webtorch_playwright  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parent))  # oracle.py (the recording plugin), by bare name


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """item.rep_setup / rep_call / rep_teardown, so fixtures can save screenshots of failed UI tests."""
    outcome = yield
    setattr(item, "rep_" + outcome.get_result().when, outcome.get_result())
