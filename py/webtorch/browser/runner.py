"""Inside Pyodide: run a script as ``__main__`` the way ``python SCRIPT args`` would, return its exit status.

Entered from web/run.js through ``runPythonAsync``, so the script may read webgpu tensors synchronously
(``pyodide.ffi.run_sync`` can stack-switch). ``report(kind, text)`` sends a structured message to the
host (test counts, benchmark figures) beside stdout/stderr. web/run.js installs
webtorch.notebook's tqdm hook first: tqdm's bars are written as text lines (at most two a second, and the last
state) to tqdm's own stream.
"""
import os
import runpy
import sys
import traceback


def report(kind, text):
    """Send ``text`` to whoever drives this run (the host's session), tagged ``kind``. In a page (not a Web
    Worker) returns a promise that settles once the host has handled it: ``run_sync`` on it waits for the host."""
    import js
    return js.webtorchReport(kind, text)


def _exit_status(code, stderr):
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)
    return 1


def _print_traceback(exc):
    """The traceback without the frames of this runner and runpy (as ``python script.py`` shows it), with webtorch's
    line numbers (webtorch/_line_tables.py)."""
    from .. import _line_tables
    _line_tables.restore()
    tb = exc.__traceback__
    # code file names, not __file__: the wheel ships bytecode only (__file__ names the .pyc)
    ours = (_print_traceback.__code__.co_filename, runpy._run_code.__code__.co_filename, "<frozen runpy>")
    while tb is not None and tb.tb_frame.f_code.co_filename in ours:
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)


async def _load_imported_packages(path):
    """Load the Pyodide packages the script imports (numpy, ...) from the package source web/loader.js set; one
    that cannot be loaded raises, at its import, an error naming it and where it was looked for."""
    from .packages import current
    with open(path, encoding="utf-8") as f:
        source = f.read()
    if current() is not None:
        await current().load_imports(source, progress=_print_loading)


def _print_loading(done, total, names):
    print(f"webtorch: loading Pyodide packages {', '.join(names)}: {done}/{total}", file=sys.stderr)


async def run_script(path, argv):
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    sys.argv = [path, *argv]
    sys.path.insert(0, folder)
    os.chdir(folder)
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True)
    try:
        await _load_imported_packages(path)
        runpy.run_path(path, run_name="__main__")
        status = 0
    except SystemExit as e:
        status = _exit_status(e.code, sys.stderr)
    except BaseException as e:  # noqa: BLE001 -- anything the script raises is its failure, reported as python does
        _print_traceback(e)
        status = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return status
