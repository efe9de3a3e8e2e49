"""The runtime wheel's line tables (webtorch/_line_tables.py), in Pyodide under Node: the first archive's bytecode
has none (tracebacks say line None in webtorch's frames), ``restore()`` gives them back from the on-demand archive
so every frame names the line CPython names running the same code from the sources -- frames raised before the
restore, modules imported after it, warnings --, in slices that yield to the event loop when it runs in the
background, refuses a table that does not fit its code, and without the archive tracebacks still format. The
page's background restore and its kernels: tests/browser/test_line_tables_browser.py."""
import shutil

from webtorch_devtools.bytecode import on_demand_path
from webtorch_devtools.wheel import build_wheel

from deep_error import DEEP_ERROR
from in_pyodide import run_json

# run in both Pythons: an error raised six webtorch frames deep, one from a module first imported after the restore
# (Adam: not imported by `import webtorch`), a warning whose frame is webtorch's (a forward hook's stacklevel=2)
CASES = """
import os, sys, traceback, warnings
import webtorch
from webtorch import nn
ROOT = os.path.dirname(webtorch.__file__)
DEEP_ERROR = %r


def frames(exc):
    return [[p, f.lineno] for f in traceback.extract_tb(exc.__traceback__)
            for p in [os.path.relpath(f.filename, ROOT)] if not p.startswith("..")]


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return e


def deep():
    exec(DEEP_ERROR, {})


def adam():
    webtorch.optim.Adam([webtorch.zeros(2, requires_grad=True)], lr=-1.0)


def warned():
    m = nn.Linear(2, 2)
    m.register_forward_hook(lambda mod, i, o: warnings.warn("from a hook", stacklevel=2))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m(webtorch.zeros(1, 2))
    return [[os.path.relpath(r.filename, ROOT), r.lineno] for r in rec]
""" % DEEP_ERROR

RESTORED = CASES + """
import json, types
from webtorch import _bytecode_archive, _line_tables
finder = _bytecode_archive.finder
early = raised(deep)
before, warned_before = frames(early), warned()
adam_imported_before = "webtorch.optim.adam" in sys.modules
# one module's first table one code unit too long: refused, its lines stay None
tables = finder.line_tables()
tables["webtorch._print"] = (tables["webtorch._print"][0] + bytes([0xf8]),) + tables["webtorch._print"][1:]
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    ok = _line_tables.restore()
    again = _line_tables.restore()
printing = {line for f in vars(sys.modules["webtorch._print"]).values() if isinstance(f, types.FunctionType)
            and f.__module__ == "webtorch._print" for *_, line in f.__code__.co_lines()}
json.dumps({"before": before, "warned_before": warned_before, "adam_imported_before": adam_imported_before,
            "early": frames(early), "deep": frames(raised(deep)), "adam": frames(raised(adam)), "warned": warned(),
            "ok": ok, "again": again, "warnings": [str(r.message) for r in rec], "stripped_left": len(finder.stripped),
            "print_lines": sorted(map(str, printing)),
            "formatted": "".join(traceback.format_exception(early))})
"""

UNREACHABLE = CASES + """
import contextlib, io, json
from webtorch import _line_tables
e = raised(deep)
with warnings.catch_warnings(record=True) as rec:
    warnings.simplefilter("always")
    ok = _line_tables.restore()
    hook = io.StringIO()
    with contextlib.redirect_stderr(hook):
        sys.excepthook(type(e), e, e.__traceback__)
json.dumps({"ok": ok, "frames": frames(e), "hook": hook.getvalue(), "warnings": [str(r.message) for r in rec],
            "formatted": "".join(traceback.format_exception(e))})
"""


# the page's background restore driven by hand: each ``asyncio.sleep(0)`` it awaits yields to the caller
SLICED = CASES + """
import json
from webtorch import _bytecode_archive, _line_tables
finder = _bytecode_archive.finder
modules = len(finder.stripped)
restoring, yields = _line_tables.restore_async(), 0
try:
    while True:
        restoring.send(None)
        yields += 1
except StopIteration as done:
    ok = done.value
json.dumps({"modules": modules, "yields": yields, "ok": ok, "left": len(finder.stripped),
            "deep": frames(raised(deep))})
"""


def _host():
    """The same cases in this CPython, webtorch from its sources."""
    ns = {}
    exec(CASES, ns)  # noqa: S102 -- the cases above, run here as in Pyodide
    return {"deep": ns["frames"](ns["raised"](ns["deep"])), "adam": ns["frames"](ns["raised"](ns["adam"])),
            "warned": ns["warned"]()}


def test_restored_lines_are_the_sources_lines():
    got, host = run_json(build_wheel(), RESTORED), _host()
    assert len(host["deep"]) >= 6 and len(host["adam"]) >= 2, host
    # the stripping is real: before the restore webtorch's frames have no line, a warning's frame line -1
    assert [f for f, _ in got["before"]] == [f for f, _ in host["deep"]], got["before"]
    assert {line for _, line in got["before"]} == {None}, got["before"]
    assert got["warned_before"] == [[host["warned"][0][0], -1]], got["warned_before"]
    assert not got["adam_imported_before"]
    # after it: a traceback raised before it, one raised after, one through a module imported after, a warning
    assert got["early"] == host["deep"] and got["deep"] == host["deep"], (got["early"], host["deep"])
    assert got["adam"] == host["adam"] and got["warned"] == host["warned"], got
    assert f'views.py", line {host["deep"][-1][1]}' in got["formatted"], got["formatted"]
    # the tampered module is refused, said once, its lines left None; every other module restored
    assert got["ok"] is False and got["again"] is False and got["stripped_left"] == 0, got
    assert len(got["warnings"]) == 1 and "webtorch._print" in got["warnings"][0], got["warnings"]
    assert "covers" in got["warnings"][0] and "line None" in got["warnings"][0], got["warnings"]
    assert got["print_lines"] == ["None"], got["print_lines"]


def test_without_the_archive_tracebacks_still_format(tmp_path):
    wheel = shutil.copy(build_wheel(), tmp_path)  # the wheel alone: no on-demand archive beside it
    assert not on_demand_path(wheel).exists()
    got = run_json(wheel, UNREACHABLE)
    assert got["ok"] is False and {line for _, line in got["frames"]} == {None}, got
    assert 'views.py", line None' in got["formatted"] and got["hook"] == got["formatted"], got
    assert len(got["warnings"]) == 1 and "could not be restored" in got["warnings"][0], got["warnings"]
    assert "on-demand" in got["warnings"][0], got["warnings"]


def test_the_background_restore_yields_between_slices():
    got = run_json(build_wheel(), SLICED)
    assert got["ok"] is True and got["left"] == 0 and got["deep"] == _host()["deep"], got
    assert got["modules"] > 150 and got["yields"] >= 5, got  # ~150 ms of work in slices of a few ms
