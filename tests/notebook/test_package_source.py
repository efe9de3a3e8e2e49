"""webtorch.browser.packages, the parts that run in CPython: Pyodide's lock read into import names and
dependency order, and the error an import of an unavailable package gives (the loading itself runs in
Chromium: tests/browser/test_notebook_packages.py)."""
import importlib
import json
import linecache
import sys
from pathlib import Path

import pytest

from webtorch.browser import packages

LOCK = Path(__file__).resolve().parents[2] / "node_modules" / "pyodide" / "pyodide-lock.json"


def test_lock_index_maps_imports_and_orders_dependencies_first():
    imports, entries = packages.lock_index(json.loads(LOCK.read_text()))
    assert imports["matplotlib"] == imports["pylab"] == "matplotlib"
    assert imports["dateutil"] == "python-dateutil"
    order = packages.closure(entries, ["matplotlib"])
    assert order[-1] == "matplotlib" and "numpy" in order and "python-dateutil" in order
    for i, name in enumerate(order):  # every dependency comes before what needs it
        assert all(order.index(packages.canonical(d)) < i for d in entries[name]["depends"]), name


def test_an_unavailable_package_raises_a_message_with_the_way_out(monkeypatch):
    finder = packages.UnavailableFinder()
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    looked = ["this site (http://127.0.0.1:1/pyodide/)"]
    finder.reasons["no_such_pkg_xyz"] = packages.unavailable_message("no_such_pkg_xyz", "no-such-pkg", "1.0", looked)
    with pytest.raises(ModuleNotFoundError) as e:
        importlib.import_module("no_such_pkg_xyz.sub")
    msg = str(e.value)
    assert e.value.name == "no_such_pkg_xyz"  # the package, imported first
    assert "Pyodide's package 'no-such-pkg' (1.0)" in msg and "http://127.0.0.1:1/pyodide/" in msg
    assert "--packages-url" in msg and "webtorch.notebook.LinePlot" in msg and "show_image" in msg
    online = packages.unavailable_message("m", "m", "1", [*looked, "the package URL (https://example/)"])
    assert "https://example/" in online and "--packages-url" not in online
    import json as found  # modules found elsewhere are untouched
    assert found is json


def test_the_kernel_shows_the_error_without_the_hook_frame(monkeypatch):
    from webtorch.notebook import kernel
    finder = packages.UnavailableFinder()
    finder.reasons["no_such_pkg_xyz"] = "No module named 'no_such_pkg_xyz': because"
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    source = "import json\nimport no_such_pkg_xyz"
    monkeypatch.delitem(linecache.cache, "<cell 1>", raising=False)  # another test's cell 1 (its source lines)
    try:
        exec(compile(source, "<cell 1>", "exec"), {})
    except ModuleNotFoundError as e:
        lines = kernel._trimmed_traceback(e, "<cell ")
    assert lines == ["Traceback (most recent call last):", '  File "<cell 1>", line 2, in <module>',
                     "ModuleNotFoundError: No module named 'no_such_pkg_xyz': because"], lines


def test_loading_on_import_only_for_the_users_own_imports(monkeypatch):
    asked = []
    finder = packages.UnavailableFinder(load=lambda name: asked.append(name) or False)
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    with pytest.raises(ModuleNotFoundError):
        exec("import no_such_pkg_main", {"__name__": "__main__"})
    with pytest.raises(ModuleNotFoundError):
        exec("import no_such_pkg_library", {"__name__": "some_library"})  # a library's optional import
    assert asked == ["no_such_pkg_main"]


def test_the_kernel_hides_frames_that_ask_to_be_hidden_in_every_chained_exception(monkeypatch):
    """``__tracebackhide__`` (IPython's convention) hides a frame of the machinery; the user's frames and every
    exception of the chain stay."""
    from webtorch.notebook import kernel

    def machinery():
        __tracebackhide__ = True  # noqa: F841
        raise KeyError("inner")

    source = "try:\n    machinery()\nexcept KeyError as e:\n    raise ValueError('outer') from e"
    monkeypatch.delitem(linecache.cache, "<cell 7>", raising=False)
    try:
        exec(compile(source, "<cell 7>", "exec"), {"machinery": machinery})
    except ValueError as e:
        lines = kernel._trimmed_traceback(e, "<cell ")
    files = [line for line in lines if line.startswith("  File ")]
    assert files == ['  File "<cell 7>", line 2, in <module>', '  File "<cell 7>", line 4, in <module>'], lines
    assert lines[-1] == "ValueError: outer" and "KeyError: 'inner'" in lines

