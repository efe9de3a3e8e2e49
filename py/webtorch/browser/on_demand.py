"""Inside Pyodide: webtorch's on-demand modules, the wheel's second archive (served beside it; which modules:
webtorch_devtools/bytecode.py's ON_DEMAND), fetched from a URL. ``start(url)`` (web/loader.js, the JupyterLite
kernel) tells the archive's finder (webtorch/_bytecode_archive.py) to fetch it synchronously at the first import
of one of its modules, and fetches it in the background meanwhile, so an import after the first idle moments
finds it there and does not wait. Once it lands, the line numbers of webtorch's bytecode (its tables are in that
archive) are restored in the background too (webtorch/_line_tables.py)."""
import asyncio

from .. import _bytecode_archive


def start(url):
    """Fetch the on-demand archive from ``url``: now in the background, synchronously if an import (or a traceback's
    line numbers) needs it first. Nothing to do for webtorch from its sources (no archive)."""
    finder = _bytecode_archive.finder
    if finder is None:
        return
    finder.fetch_from(lambda: fetch_sync(url), url)
    asyncio.ensure_future(_prefetch(url, finder))


def fetch_sync(url):
    """The bytes at ``url``, fetched by a synchronous XMLHttpRequest (a page's main thread allows only text there:
    each byte comes back as one character of the x-user-defined charset, U+0000-U+007F and U+F780-U+F7FF, whose
    low byte it is). Raises OSError when the request fails."""
    from js import XMLHttpRequest
    request = XMLHttpRequest.new()
    request.open("GET", url, False)
    request.overrideMimeType("text/plain; charset=x-user-defined")
    try:
        request.send()
    except Exception as e:  # noqa: BLE001 -- a network error comes as a JavaScript exception
        raise OSError(f"network error: {e}") from None
    if request.status != 200:
        raise OSError(f"HTTP {request.status}")
    return request.responseText.encode("utf-16-le")[::2]


async def _prefetch(url, finder):
    from pyodide.http import pyfetch
    try:
        r = await pyfetch(url)
        if not r.ok:
            return
        finder.provide(await r.bytes())
    except Exception:  # noqa: BLE001 -- only a head start: the first import fetches it again and says why it fails
        return
    from .. import _line_tables
    await _line_tables.restore_async()
