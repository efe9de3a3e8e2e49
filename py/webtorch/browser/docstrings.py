"""Inside Pyodide: fetch webtorch's docstrings the first time ``help()``/``obj?`` needs them. The wheel's bytecode
has none (webtorch_devtools/docstrings.py writes them beside the wheel, ~125 KiB that a page which never asks
does not download); the page puts their URL in ``WEBTORCH_DOCSTRINGS_URL`` (web/loader.js; in the JupyterLite
site, its kernel's webtorch-kernel.mjs). The notebook app's kernel awaits ``load()`` before a cell that asks for
help runs; IPython's inspector and ``help()`` are synchronous calls, so the JupyterLite kernel (a Web Worker)
fetches with ``load_sync()`` as they start (webtorch.notebook.ipython_help). From the sources (no URL) there is
nothing to load."""
import gzip
import json
import os
import sys

URL_VARIABLE = "WEBTORCH_DOCSTRINGS_URL"


async def load():
    """Fetch the docstrings once and set them on webtorch's objects; False when there are none to fetch (then
    ``help()`` shows no docstring text, as before)."""
    url = _pending_url()
    if url is None:
        return _loaded()
    from pyodide.http import pyfetch
    try:
        r = await pyfetch(url)
        if not r.ok:
            raise OSError(f"HTTP {r.status}")
        data = await r.bytes()
    except Exception as e:  # noqa: BLE001 -- help() still answers, without the docstring text
        return _failed(url, e)
    return _attach(url, data)


def load_sync():
    """``load()`` as a synchronous request (on_demand.fetch_sync, the on-demand archive's)."""
    url = _pending_url()
    if url is None:
        return _loaded()
    from .on_demand import fetch_sync
    try:
        data = fetch_sync(url)
    except Exception as e:  # noqa: BLE001 -- as load()
        return _failed(url, e)
    return _attach(url, data)


def _loaded():
    from .. import _docstrings
    return _docstrings.loaded()


def _pending_url():
    """The table's URL while it is still to be fetched; None once attached or when there is none."""
    return None if _loaded() else os.environ.get(URL_VARIABLE)


def _attach(url, data):
    from .. import _docstrings
    try:
        table = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError) as e:  # not a gzip file, truncated, not JSON
        return _failed(url, e)
    _docstrings.attach(table)
    return True


def _failed(url, error):
    print(f"webtorch: docstrings not loaded from {url} ({error}); help() shows signatures only", file=sys.stderr)
    os.environ.pop(URL_VARIABLE)  # asked once
    return False
