"""The app kernel's answers about names (webtorch.notebook.introspect): Tab completion over the kernel's
namespace, `name?` / `name??` lines of a cell answered as Jupyter does, and valid Python left alone."""
import asyncio
import concurrent.futures
import builtins
import json
import sys

import pytest

import webtorch
from webtorch.notebook import host as host_mod
from webtorch.notebook import introspect, kernel


def test_complete_names_attributes_and_keywords():
    ns = {"learning_rate": 0.1, "learner": object(), "webtorch": webtorch, "__builtins__": __builtins__}
    assert introspect.complete("x = learn", ns) == {"matches": ["learner", "learning_rate"], "length": 5}
    r = introspect.complete("webtorch.nn.Line", ns)
    assert r["length"] == 4 and "Linear" in r["matches"] and all(m.startswith("Line") for m in r["matches"])
    assert introspect.complete("[].app", {}) == {"matches": [], "length": 0}  # names only: no expression is run
    assert introspect.complete("import", {})["matches"] == ["import"]
    assert introspect.complete("print(len", {"__builtins__": __builtins__})["matches"] == ["len"]
    assert introspect.complete("x = ", ns) == {"matches": [], "length": 0}
    private = introspect.complete("webtorch.nn.", ns)["matches"]
    assert private and not private[0].startswith("_")  # public names first, as Jupyter lists them


def test_help_lines_rewrite_only_question_mark_lines():
    src = "x = 1\nlen?\n  webtorch.nn.Linear??\n??print"
    out = introspect.help_lines(src)
    lines = out.split("\n")
    assert lines[0] == "x = 1"
    assert lines[1].endswith("pinfo('len', 1)") and lines[2].startswith("  __import__(")
    assert lines[2].endswith("pinfo('webtorch.nn.Linear', 2)") and lines[3].endswith("pinfo('print', 2)")
    assert introspect.help_lines("x = 1 +") is None


def test_describe_like_jupyter():
    text = introspect.describe(webtorch.nn.Linear)
    assert text.startswith("Init signature: Linear(in_features, out_features, bias=True")
    assert "\nType:           type" in text and "\nFile:           " in text and "linear.py" in text
    source = introspect.describe(introspect.describe, 2)
    assert "Source:\ndef describe(obj, detail=1):" in source
    value = introspect.describe([1, 2])
    assert value.startswith("String form:    [1, 2]") and "Type:           list" in value


@pytest.fixture
def start_kernel(monkeypatch):
    """Installs the app's kernel when called (in the test's body: pytest sets sys.stdout again between a
    fixture and the test); returns the list its messages go to. What it replaces is restored afterwards."""
    for name in ("stdout", "stderr"):
        monkeypatch.setattr(sys, name, getattr(sys, name))
    monkeypatch.setattr(host_mod, "_app_host", None)
    monkeypatch.setattr(builtins, "help", builtins.help)

    def install():
        sent = []
        kernel.install(lambda kind, text, did: sent.append((kind, text)))
        return sent
    return install


def _run(source):
    # in a thread of its own: a browser test earlier in the session may leave its event loop running here
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, kernel.run_cell(source, 1)).result()


def test_question_mark_cells(start_kernel):
    sent = start_kernel()
    assert _run("def twice(x):\n    'Double x.'\n    return 2 * x\ntwice?\nnowhere?\nif?") == "ok"
    shown = [json.loads(t)["data"]["text/plain"] for k, t in sent if k == "display"]
    assert shown[0].startswith("Signature:      twice(x)\nDocstring:\nDouble x.")
    assert shown[1] == "Object `nowhere` not found."
    assert shown[2] == "`if` is a Python keyword, not an object"
    sent.clear()
    assert _run("s = 'what?'\nlen(s)") == "ok"  # valid Python is never rewritten
    assert json.loads(next(t for k, t in sent if k == "result"))["data"]["text/plain"] == "5"
    assert _run("x = (1 +\ny?") == "error"  # other syntax errors stay syntax errors
    assert json.loads(next(t for k, t in sent if k == "error"))["ename"] == "SyntaxError"


def test_complete_reads_the_kernel_namespace(start_kernel):
    start_kernel()
    assert _run("kernel_side_value = 3") == "ok"
    assert json.loads(kernel.complete("kernel_side_v")) == {"matches": ["kernel_side_value"], "length": 13}


def test_help_alone_says_how_to_ask(start_kernel):
    """pydoc's interactive help() reads input(), which the kernel has not: a message instead of an I/O error;
    help(obj) is pydoc's own."""
    sent = start_kernel()
    assert _run("help()") == "ok"
    out = "".join(t for k, t in sent if k == "stdout")
    assert "this kernel has no input" in out and "help(torch.nn.Linear)" in out
    sent.clear()
    assert _run("help(len)") == "ok"
    assert "Return the number of items in a container." in "".join(t for k, t in sent if k == "stdout")
