"""Browser suites: Playwright drives Debian's Chromium against pages served on 127.0.0.1 (never skipped:
scripts/setup.sh installs Chromium and the wheels)."""
from webtorch_devtools.pytest_plugin import webtorch_browser, webtorch_browser_session  # noqa: F401

import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)
