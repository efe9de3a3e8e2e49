"""Load Pyodide's NumPy package the first time device "cpu" (webtorch's NumPy backend) is used in a page.

Pyodide fetches its NumPy wheel from the folder it booted from (``indexURL``) or its CDN; offline sites that
do not carry the wheel cannot load it, and then the caller raises an error that names the way out.
"""

_failed = []  # the reason of the first failed try: not fetched again on every later use of "cpu"


def load_numpy():
    """Load NumPy now; None when ``import numpy`` then works, else the reason it could not be loaded."""
    import importlib
    if _failed:
        return _failed[0]
    try:
        import pyodide_js
        from pyodide.ffi import can_run_sync, create_proxy, run_sync
    except ImportError as e:
        return f"not running in Pyodide ({e})"
    if not can_run_sync():
        return ("Python was entered synchronously (runPython), so a package cannot be fetched while it runs; "
                "enter through runPythonAsync, or load NumPy first")
    errors = []
    on_error, quiet = create_proxy(errors.append), create_proxy(lambda message: None)
    try:
        run_sync(pyodide_js.loadPackage("numpy", errorCallback=on_error, messageCallback=quiet))
    except Exception as e:  # noqa: BLE001 -- a failed fetch is reported, not raised from here
        errors.append(str(e))
    finally:
        on_error.destroy()
        quiet.destroy()
    importlib.invalidate_caches()
    try:
        importlib.import_module("numpy")
    except ImportError:
        detail = "; ".join(str(e) for e in errors) or "loadPackage finished without installing it"
        _failed.append(f"Pyodide could not load its 'numpy' package: {detail}")
        return _failed[0]
    return None
