"""Inside Pyodide: fetch webtorch's docstrings the first time ``help()``/``obj?`` needs them. The wheel's bytecode
has none (webtorch_devtools/docstrings.py writes them beside the wheel, ~125 KiB that a page which never asks
does not download); web/loader.js puts their URL in ``WEBTORCH_DOCSTRINGS_URL`` and the notebook app's kernel
awaits ``load()`` before a cell that asks for help runs. From the sources (no URL) there is nothing to load."""
import gzip
import json
import os
import sys

URL_VARIABLE = "WEBTORCH_DOCSTRINGS_URL"


async def load():
    """Fetch the docstrings once and set them on webtorch's objects; False when there are none to fetch (then
    ``help()`` shows no docstring text, as before)."""
    from .. import _docstrings
    url = os.environ.get(URL_VARIABLE)
    if _docstrings.loaded() or not url:
        return _docstrings.loaded()
    from pyodide.http import pyfetch
    try:
        r = await pyfetch(url)
        if not r.ok:
            raise OSError(f"HTTP {r.status}")
        table = json.loads(gzip.decompress(await r.bytes()))
    except Exception as e:  # noqa: BLE001 -- help() still answers, without the docstring text
        print(f"webtorch: docstrings not loaded from {url} ({e}); help() shows signatures only", file=sys.stderr)
        os.environ.pop(URL_VARIABLE)  # asked once
        return False
    _docstrings.attach(table)
    return True
