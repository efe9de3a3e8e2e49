"""The notebook app's kernel, Python side (runs in Pyodide inside web/notebook/kernel_worker.js).

``install(send)`` routes stdout/stderr and rich output to ``send(kind, text, display_id)`` (a JS function that
batches messages to the page) and provides ``IPython.display`` when IPython is not installed;
``await run_cell(source, count)`` runs one cell the way Jupyter does: top-level ``await`` allowed, ``name?``
lines answered with help, the last expression's value shown, errors reported with the traceback trimmed to the
user's code. ``complete(text)`` answers the editor's tab completion.
"""
import ast
import builtins
import importlib.util
import inspect
import io
import json
import linecache
import os
import sys
import traceback

from . import ipython_display
from .display import mime_bundle
from .host import AppHost, LiveOutput, set_app_host
from .progress import LoadingLine
from .tracebacks import shown_frames
from . import tqdm_hook

_host = None


class _Stream(io.TextIOBase):
    """sys.stdout/sys.stderr of the kernel: every write goes to the page (the worker batches them)."""

    def __init__(self, name, send):
        self.name = name
        self._send = send

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self._send(self.name, text, None)
        return len(text)

    def writable(self):
        return True

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"


def install(send):
    """Make this interpreter the app's kernel: output (streams, rich displays) goes to ``send``. (The worker
    also turns on webtorch.compat's ``import torch`` alias unless the user switched it off.)"""
    global _host
    _host = AppHost(send)
    set_app_host(_host)
    if os.getcwd() not in sys.path:  # a notebook imports helpers beside it, as in Jupyter
        sys.path.insert(0, os.getcwd())
    sys.stdout = _Stream("stdout", send)
    sys.stderr = _Stream("stderr", send)
    _provide_ipython_display()
    _help_without_a_prompt()
    tqdm_hook.install()  # `import tqdm` (shipped with the app) draws the app's progress bars
    # matplotlib (where a package URL makes it loadable) draws into the cell's output as PNG images
    os.environ.setdefault("MPLBACKEND", f"module://{__package__}.matplotlib_backend")


def _provide_ipython_display():
    """``from IPython.display import ...`` works in cells: ipython_display stands in for a missing IPython."""
    if "IPython" in sys.modules or importlib.util.find_spec("IPython") is not None:
        return
    import types
    ipython = types.ModuleType("IPython", "webtorch's stand-in: only IPython.display (see its docstring)")
    core = types.ModuleType("IPython.core")
    ipython.__path__ = core.__path__ = []
    ipython.display = core.display = ipython_display
    ipython.core = core
    ipython.get_ipython = ipython_display.get_ipython
    sys.modules.update({"IPython": ipython, "IPython.core": core, "IPython.display": ipython_display,
                        "IPython.core.display": ipython_display})


def _help_without_a_prompt():
    """``help()`` alone is pydoc's interactive prompt, which reads input(): the kernel has no stdin, so it says
    how to ask instead of failing with an I/O error. ``help(obj)`` is pydoc's, unchanged."""
    pydoc_help = builtins.help

    def help(*args, **kwargs):  # noqa: A001 -- it is the builtin, wrapped
        if args or kwargs:
            return pydoc_help(*args, **kwargs)
        print("help() alone opens an interactive prompt, which needs input(), and this kernel has no input: "
              "ask about one thing instead, help(torch.nn.Linear) or torch.nn.Linear? in a cell")
        return None

    builtins.help = help


def complete(text_before_cursor):
    """JSON {"matches", "length"} completing the name that ends ``text_before_cursor`` (the editor's Tab)."""
    from . import introspect
    return json.dumps(introspect.complete(text_before_cursor, _namespace()))


def _parse(source, filename):
    """The cell's syntax tree; a cell that is not Python because of ``name?`` lines is read with them as help."""
    try:
        return ast.parse(source, filename)
    except SyntaxError:
        from . import introspect
        rewritten = introspect.help_lines(source)
        if rewritten is None:
            raise
        return ast.parse(rewritten, filename)


def _namespace():
    main = sys.modules["__main__"]
    main.__dict__.setdefault("__builtins__", builtins)
    return main.__dict__


def _trimmed_traceback(exc, filename_prefix):
    """Traceback lines from the first frame of the user's cell on, chained exceptions kept, the machinery's
    frames dropped (webtorch.notebook.tracebacks); webtorch's line numbers restored first (webtorch/_line_tables.py)."""
    from .. import _line_tables
    _line_tables.restore()
    tb = exc.__traceback__
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(filename_prefix):
        tb = tb.tb_next
    exc.__traceback__ = None if isinstance(exc, SyntaxError) else tb
    chained, seen = exc, set()
    while chained is not None and id(chained) not in seen:  # what format_exception shows: causes and contexts
        seen.add(id(chained))
        chained.__traceback__ = shown_frames(chained.__traceback__)
        chained = chained.__cause__ or (None if chained.__suppress_context__ else chained.__context__)
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).rstrip("\n").split("\n")


def _send(kind, payload):
    _host.send(kind, json.dumps(payload), None)


def _webgpu_counters():
    """The device panel's counters; None until a cell has used the webgpu device (the kernel does not set the
    device up itself: a cell that needs it does, so the kernel is ready as soon as Python is)."""
    try:
        from .. import webgpu
        if not webgpu.is_initialized():
            return None
        s = webgpu.stats()
        return {"dispatches": s.get("dispatches", 0), "kernels_compiled": s.get("kernels_compiled", 0),
                "memory_allocated": s.get("memory_allocated", 0), "adapter": s.get("adapter")}
    except Exception:  # noqa: BLE001 -- the device panel must never turn a cell into an error
        return None


async def _run(code, ns):
    value = eval(code, ns)  # noqa: S307 -- running the user's cell is the kernel's job
    if inspect.iscoroutine(value):
        value = await value
    return value


def _asks_for_help(tree):
    """Whether the cell calls help() or has ``name?`` lines (introspect.pinfo calls once parsed)."""
    return any(isinstance(n, ast.Call) and (isinstance(n.func, ast.Name) and n.func.id == "help"
                                            or isinstance(n.func, ast.Attribute) and n.func.attr == "pinfo")
               for n in ast.walk(tree))


async def _load_imports(source):
    """Load the Pyodide packages the cell imports (webtorch.browser.packages; none outside a page)."""
    from ..browser import packages
    if packages.current() is not None:
        await packages.current().load_imports(source, progress=LoadingLine())


def _flush_figures():
    if "matplotlib.pyplot" in sys.modules:
        from .matplotlib_backend import flush_figures
        flush_figures()


async def run_cell(source, count):
    """Run one cell, after loading the Pyodide packages it imports; sends "result" or "error" and then "stats"
    (device counters for the device panel). Returns "ok" or "error"."""
    filename = f"<cell {count}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    ns = _namespace()
    before = _webgpu_counters()
    status = "ok"
    try:
        tree = _parse(source, filename)
        await _load_imports(ast.unparse(tree))  # the cell as parsed (help lines answered, not imported)
        if _asks_for_help(tree):  # the wheel's bytecode has no docstrings: fetched beside it the first time
            from ..browser import docstrings
            await docstrings.load()
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        if tree.body:
            await _run(compile(tree, filename, "exec", flags=flags), ns)
        if last is not None:
            value = await _run(compile(ast.Expression(last.value), filename, "eval", flags=flags), ns)
            if value is not None and not isinstance(value, LiveOutput):
                ns["_"] = value
                bundle, metadata = mime_bundle(value)
                _send("result", {"data": bundle, "metadata": metadata, "execution_count": count})
    except BaseException as exc:  # noqa: BLE001 -- KeyboardInterrupt and SystemExit end the cell, not the kernel
        status = "error"
        _send("error", {"ename": type(exc).__name__, "evalue": str(exc),
                        "traceback": _trimmed_traceback(exc, "<cell ")})
    finally:
        try:
            _flush_figures()
            _host.flush()
        except BaseException as exc:  # noqa: BLE001 -- a failing live output must not hide the cell's status
            _send("error", {"ename": type(exc).__name__, "evalue": str(exc), "traceback": [repr(exc)]})
    after = _webgpu_counters()
    if after is not None:
        after["dispatches_last_cell"] = after["dispatches"] - (before or {}).get("dispatches", 0)
    _send("stats", {"webgpu": after})
    return status
