"""Progress bars in notebooks: ``ProgressOutput`` (one bar's live output, drawn by the host) and ``tqdm``, a
small tqdm-compatible bar for hosts without the tqdm package (PyPI's tqdm, where installed, draws through
``ProgressOutput`` too: ``tqdm_bar``)."""
import time

from .host import LiveOutput

PROGRESS_MIME = "application/vnd.webtorch.progress+json"
_BAR = 24


def _clock(seconds):
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "?"
    seconds = int(seconds)
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60:02d}:{rest % 60:02d}"


class ProgressOutput(LiveOutput):
    """One progress bar's live output. ``state()``: {"n", "total", "desc", "unit", "elapsed", "rate", "eta",
    "postfix", "closed"}; ``line()``: the bar as one text line. The app draws the state (its progress mime type),
    IPython an HTML <progress>, a text host the line. ``hide()`` empties it (a bar closed with leave=False)."""

    hidden = False

    def state(self):
        raise NotImplementedError

    def line(self):
        raise NotImplementedError

    def hide(self):
        self.hidden = True
        if self._sent_at is not None:
            self.send_update()

    def bundle(self, rich):
        import html  # here, not at the top: html imports html.entities, 0.1 s of the kernel's start in Pyodide
        if self.hidden:
            return {"text/plain": ""}
        line = self.line()
        if not rich:
            return {"text/plain": line}
        if self.host.app:
            return {PROGRESS_MIME: self.state(), "text/plain": line}
        state = self.state()
        value = f' value="{state["n"]}" max="{state["total"]}"' if state["total"] else ""
        # the <progress> element stands where the line's text bar was: "desc: 40%|████      | 2/5 [...]"
        left, bar, right = line.partition("%|")
        before, after = (left + "%", right.partition("|")[2].lstrip()) if bar else ("", line)
        before = f"<code>{html.escape(before)}</code> " if before else ""
        return {"text/html": f'<div>{before}<progress{value} style="width: 16em"></progress> '
                             f'<code>{html.escape(after)}</code></div>', "text/plain": line}


class tqdm(ProgressOutput):  # noqa: N801 -- tqdm's own name, so `from webtorch.notebook import tqdm` is a drop-in
    """Wrap an iterable (or count by hand with ``update``) and show n/total, rate and ETA.

        for batch in tqdm(loader, desc="epoch 1"):
            ...
        with tqdm(total=100) as bar:
            bar.update(10); bar.set_postfix(loss=0.3)
    """

    def __init__(self, iterable=None, total=None, desc=None, unit="it", leave=True, **_ignored):
        super().__init__()
        self.iterable = iterable
        if total is None and iterable is not None:
            try:
                total = len(iterable)
            except TypeError:
                total = None
        self.total = total
        self.desc = desc
        self.unit = unit
        self.n = 0
        self.postfix = ""
        self.closed = False
        self.start = time.monotonic()
        self._show()

    def __len__(self):
        if self.total is not None:
            return int(self.total)
        return len(self.iterable)

    def __iter__(self):
        if self.iterable is None:
            raise TypeError("tqdm() without an iterable cannot be iterated: pass one, or call update(n) yourself")
        try:
            for item in self.iterable:
                yield item
                self.update(1)
        finally:
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def update(self, n=1):
        self.n += n
        self._changed()

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        items = dict(ordered_dict or {}, **kwargs)
        self.postfix = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in items.items())
        self._changed()

    def set_description(self, desc=None, refresh=True):
        self.desc = desc
        self._changed()

    def close(self):
        if not self.closed:
            self.closed = True
            self._changed(force=True)

    def refresh(self):
        self._changed(force=True)

    def state(self):
        elapsed = time.monotonic() - self.start
        rate = self.n / elapsed if elapsed > 0 and self.n else None
        eta = (self.total - self.n) / rate if rate and self.total is not None else None
        return {"n": self.n, "total": self.total, "desc": self.desc, "unit": self.unit, "elapsed": elapsed,
                "rate": rate, "eta": eta, "postfix": self.postfix, "closed": self.closed}

    def line(self):
        s = self.state()
        head = f"{self.desc}: " if self.desc else ""
        rate = f"{s['rate']:.2f}{self.unit}/s" if s["rate"] else f"?{self.unit}/s"
        tail = f", {self.postfix}" if self.postfix else ""
        if self.total:
            frac = min(1.0, self.n / self.total)
            fill = int(frac * _BAR)
            bar = "█" * fill + " " * (_BAR - fill)
            return (f"{head}{frac * 100:3.0f}%|{bar}| {self.n}/{self.total} "
                    f"[{_clock(s['elapsed'])}<{_clock(s['eta'])}, {rate}{tail}]")
        return f"{head}{self.n}{self.unit} [{_clock(s['elapsed'])}, {rate}{tail}]"


class LoadingLine:
    """A ``progress(done, total, names)`` callback (webtorch.browser.packages) drawn as a progress bar: the
    line of the Pyodide packages a cell's imports load. A load that failed takes its line away: the import's
    error, right below, says what could not be loaded and why."""

    def __init__(self):
        self.bar = None

    def __call__(self, done, total, names):
        if self.bar is None or self.bar.closed:  # a load begins
            self.bar = tqdm(total=total, desc=f"loading {', '.join(names)}", unit="pkg")
        else:  # it ended: ``done`` of them loaded
            self.bar.update(done - self.bar.n)
            self.bar.close()
            if done < total:
                self.bar.hide()
