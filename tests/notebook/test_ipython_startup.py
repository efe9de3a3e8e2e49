"""The JupyterLite kernel's IPython start-up (webtorch.notebook.ipython_startup), in CPython's IPython: the startup
file it writes installs webtorch's hooks on the shell -- import errors shown from the user's line, webtorch's line
numbers restored before a traceback is shown, and webtorch's docstrings fetched before IPython's inspector or
help() reads one (the fetch itself, a synchronous request in the kernel's worker, runs in Chromium:
tests/browser/test_lite_site.py)."""
import builtins
import sys

import pytest
from IPython.core.interactiveshell import InteractiveShell

from webtorch import _line_tables
from webtorch.browser import docstrings, packages
from webtorch.notebook import ipython_startup


@pytest.fixture
def shell(monkeypatch, tmp_path):
    """A fresh IPython shell after the default profile's startup files ran, as the lite kernel's."""
    monkeypatch.setattr(builtins, "help", builtins.help)  # the startup replaces it: restored after the test
    ipython_startup.install_startup(home=tmp_path)
    startup = sorted((tmp_path / ".ipython" / "profile_default" / "startup").glob("*.py"))
    assert [p.name for p in startup] == ["50-webtorch.py"]
    shell = InteractiveShell.instance(colors="nocolor")
    try:
        for path in startup:
            exec(path.read_text(), {"get_ipython": lambda: shell})
        yield shell
    finally:
        InteractiveShell.clear_instance()


def test_ipython_shows_the_import_error_without_the_hook_frame(shell, monkeypatch, capsys):
    """IPython itself hides ``__tracebackhide__`` frames except the one that raised, which here is the import
    hook's: the startup has it show the error from the user's line."""
    finder = packages.UnavailableFinder()
    finder.reasons["no_such_pkg_xyz"] = "No module named 'no_such_pkg_xyz': because"
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    shell.run_cell("import json\nimport no_such_pkg_xyz")
    out = capsys.readouterr().out
    assert "import no_such_pkg_xyz" in out and "No module named 'no_such_pkg_xyz': because" in out, out
    assert "packages.py" not in out and "find_spec" not in out, out


def test_ipython_restores_webtorch_lines_before_a_traceback(shell, monkeypatch, capsys):
    """The wheel's bytecode has no line tables until webtorch/_line_tables.py restores them: every traceback IPython
    shows (the import errors' handler's too) comes after a restore."""
    monkeypatch.setattr(_line_tables, "restore", lambda: print("RESTORED"))
    shell.run_cell("1 / 0")
    out = capsys.readouterr().out
    assert out.startswith("RESTORED") and "ZeroDivisionError" in out, out
    finder = packages.UnavailableFinder()
    finder.reasons["no_such_pkg_xyz"] = "No module named 'no_such_pkg_xyz': because"
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    shell.run_cell("import no_such_pkg_xyz")
    out = capsys.readouterr().out
    assert out.startswith("RESTORED") and "No module named 'no_such_pkg_xyz'" in out, out


FETCHED = "Fetched before the inspector read it."


@pytest.mark.parametrize("cell", ["Undocumented?", "Undocumented??", "%pdoc Undocumented", "help(Undocumented)"])
def test_docstrings_are_fetched_before_they_are_read(shell, monkeypatch, capsys, cell):
    """Each way a notebook shows a docstring calls the fetch first (it sets the docstrings it fetched, as
    webtorch._docstrings.attach does), so the text it shows is the fetched one."""
    calls = []

    def fetch():
        calls.append(cell)
        shell.user_ns["Undocumented"].__doc__ = FETCHED
        return True

    monkeypatch.setattr(docstrings, "load_sync", fetch)
    shell.run_cell("class Undocumented:\n    pass")
    capsys.readouterr()
    shell.run_cell(cell)
    out = capsys.readouterr().out
    assert calls == [cell] and FETCHED in out, out


def test_the_inspectors_tooltip_fetches_too(shell, monkeypatch):
    """The kernel's inspect request (Shift+Tab, the contextual help panel): IPython's object_inspect_mime."""
    monkeypatch.setattr(docstrings, "load_sync", lambda: setattr(shell.user_ns["Undocumented"], "__doc__", FETCHED))
    shell.run_cell("class Undocumented:\n    pass")
    assert FETCHED in shell.object_inspect_mime("Undocumented")["text/plain"]


def test_without_a_table_the_docstrings_are_as_they_were(shell, monkeypatch, capsys):
    """From the sources (no URL set) nothing is fetched and help() shows the source's docstrings."""
    monkeypatch.delenv(docstrings.URL_VARIABLE, raising=False)
    shell.run_cell("import webtorch\nhelp(webtorch.nn.Linear)")
    out = capsys.readouterr().out
    assert "Help on class Linear" in out and "y = x A^T + b" in out, out
