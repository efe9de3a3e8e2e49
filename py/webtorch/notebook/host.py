"""Where rich output goes: the notebook app's kernel, an IPython kernel, or plain text on stdout.

A host shows mime bundles ({"text/plain": ..., "image/png": ...}) and updates live ones by display id.
Live outputs (plots, progress bars) change many times a second; they send at most one update per
``interval`` and ``flush()`` sends the rest (the app's kernel calls it when a cell ends, IPython after
each execution).
"""
import itertools
import json
import sys
import time

_ids = itertools.count(1)
_app_host = None  # set by webtorch.notebook.kernel.install in the app's worker


def new_display_id():
    return f"wt-{time.time_ns() % 10**9:x}-{next(_ids)}"


class Host:
    rich = True   # shows images and HTML
    app = False   # webtorch's notebook app: draws the plot/progress mime types itself
    interval = 0.1

    def __init__(self):
        self._pending = {}  # display id -> live output waiting for its next update

    def show(self, bundle, metadata=None, display_id=None):
        raise NotImplementedError

    def update(self, bundle, metadata=None, display_id=None):
        raise NotImplementedError

    def clear(self, wait=False):
        raise NotImplementedError

    def defer(self, live):
        self._pending[live.display_id] = live

    def flush(self):
        pending, self._pending = self._pending, {}
        for live in pending.values():
            live.send_update()


class AppHost(Host):
    """The notebook app's worker: ``send(kind, json_text, display_id)`` posts to the page."""

    app = True

    def __init__(self, send):
        super().__init__()
        self.send = send

    def show(self, bundle, metadata=None, display_id=None):
        self.send("display", json.dumps({"data": bundle, "metadata": metadata or {}, "display_id": display_id}),
                  display_id)

    def update(self, bundle, metadata=None, display_id=None):
        self.send("update", json.dumps({"data": bundle, "metadata": metadata or {}, "display_id": display_id}),
                  display_id)

    def clear(self, wait=False):
        self.send("clear", json.dumps({"wait": bool(wait)}), None)


class IPythonHost(Host):
    interval = 0.5  # each update re-renders SVG/HTML in the frontend

    def __init__(self, shell):
        super().__init__()
        shell.events.register("post_execute", self.flush)

    def show(self, bundle, metadata=None, display_id=None):
        from IPython.display import display
        display(bundle, raw=True, metadata=metadata or {}, display_id=display_id)

    def update(self, bundle, metadata=None, display_id=None):
        from IPython.display import update_display
        update_display(bundle, raw=True, metadata=metadata or {}, display_id=display_id)

    def clear(self, wait=False):
        from IPython.display import clear_output
        clear_output(wait=wait)


class TextHost(Host):
    """Plain text on ``file`` (None: sys.stdout at the time): a bundle's text/plain, live outputs at most one line
    per half second."""
    rich = False
    interval = 0.5

    def __init__(self, file=None):
        super().__init__()
        self.file = file
        self._last = None  # (display id, line) printed last: a bar closing in the state just printed adds no line

    def show(self, bundle, metadata=None, display_id=None):
        text = bundle.get("text/plain")
        if text and (display_id is None or self._last != (display_id, text)):
            print(text, file=self.file or sys.stdout, flush=True)
            self._last = (display_id, text)

    update = show

    def clear(self, wait=False):  # lines already printed stay: a terminal cannot take them back
        pass

    def defer(self, live):  # text lines are never sent late: the next change prints the newest state
        pass


_ipython_host = None
_text_host = TextHost()


def current():
    """The host for output made now."""
    global _ipython_host
    if _app_host is not None:
        return _app_host
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is not None and hasattr(shell, "events"):
        if _ipython_host is None:
            _ipython_host = IPythonHost(shell)
        return _ipython_host
    return _text_host


def set_app_host(host):
    global _app_host
    _app_host = host


class LiveOutput:
    """An output that displays itself once and then updates in place, throttled to the host's interval."""

    def __init__(self):
        self.host = current()
        self.display_id = new_display_id()
        self._sent_at = None

    def bundle(self, rich):
        raise NotImplementedError

    def _show(self):
        self.host.show(self.bundle(self.host.rich), display_id=self.display_id)
        self._sent_at = time.monotonic()

    def _changed(self, force=False):
        if self._sent_at is None:
            self._show()
        elif force or time.monotonic() - self._sent_at >= self.host.interval:
            self.send_update()
        else:
            self.host.defer(self)

    def send_update(self):
        self.host._pending.pop(self.display_id, None)
        self.host.update(self.bundle(self.host.rich), display_id=self.display_id)
        self._sent_at = time.monotonic()
