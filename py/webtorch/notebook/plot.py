"""``LinePlot``: a live line chart that updates in place while a loop appends points."""
import math

from .host import LiveOutput

PLOT_MIME = "application/vnd.webtorch.plot+json"
_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
_W, _H, _M = 560, 300, 44  # SVG size and margin


def _num(v, name):
    if hasattr(v, "item"):
        v = v.item()
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise TypeError(f"LinePlot.append: {name} must be a number (or a one-element tensor), got {type(v).__name__}")
    return float(v)


def _fmt(v):
    return f"{v:.4g}"


class LinePlot(LiveOutput):
    """A line chart that displays itself when created; ``append(x, name=value, ...)`` adds one point to each
    named series (series may start late; missing points are gaps).

        plot = LinePlot(title="training", ylabel="loss")
        plot.append(step, loss=loss.item(), acc=acc)
    """

    def __init__(self, title=None, xlabel="step", ylabel=None):
        super().__init__()
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.x = []
        self.series = {}
        if self.host.rich:  # as text, the first point is the first line
            self._show()

    def append(self, x, **series):
        if not series:
            raise TypeError("LinePlot.append needs at least one named value, e.g. plot.append(step, loss=0.3)")
        x = _num(x, "x")
        values = {name: _num(v, name) for name, v in series.items()}
        self.x.append(x)
        for name, v in values.items():
            if name not in self.series:
                self.series[name] = [None] * (len(self.x) - 1)
            self.series[name].append(v)
        for values in self.series.values():
            if len(values) < len(self.x):
                values.append(None)
        self._changed()

    def __len__(self):
        return len(self.x)

    def _last_line(self):
        if not self.x:
            return f"{self.title or 'LinePlot'}: no points yet"
        vals = " ".join(f"{k}={_fmt(v[-1])}" for k, v in self.series.items() if v[-1] is not None)
        return f"{self.title + ': ' if self.title else ''}{self.xlabel}={_fmt(self.x[-1])} {vals}"

    def bundle(self, rich):
        if not rich:
            return {"text/plain": self._last_line()}
        if not self.host.app:  # Jupyter & co. draw SVG; the app draws the data with its charting library
            return {"image/svg+xml": self.svg(), "text/plain": self._last_line()}
        return {PLOT_MIME: {"title": self.title, "xlabel": self.xlabel, "ylabel": self.ylabel, "x": self.x,
                            "series": self.series}, "text/plain": self._last_line()}

    def svg(self):
        """The chart as SVG (for hosts without the app's charting library: Jupyter, saved notebooks)."""
        import html  # here, not at the top: html imports html.entities, 0.1 s of the kernel's start in Pyodide
        pts = [v for vals in self.series.values() for v in vals if v is not None and math.isfinite(v)]
        xs = [x for x in self.x if math.isfinite(x)]
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" font-family="sans-serif" '
                 f'font-size="11"><rect width="{_W}" height="{_H}" fill="white"/>']
        if self.title:
            parts.append(f'<text x="{_W / 2}" y="16" text-anchor="middle" font-size="13">{html.escape(self.title)}</text>')
        if pts and xs:
            x0, x1 = min(xs), max(xs)
            y0, y1 = min(pts), max(pts)
            x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
            sx = lambda x: _M + (x - x0) / (x1 - x0) * (_W - 2 * _M)  # noqa: E731
            sy = lambda y: _H - _M - (y - y0) / (y1 - y0) * (_H - 2 * _M)  # noqa: E731
            parts.append(f'<rect x="{_M}" y="{_M}" width="{_W - 2 * _M}" height="{_H - 2 * _M}" fill="none" stroke="#999"/>')
            for v, anchor, x, y in ((y0, "end", _M - 4, sy(y0)), (y1, "end", _M - 4, sy(y1) + 8),
                                    (x0, "start", _M, _H - _M + 14), (x1, "end", _W - _M, _H - _M + 14)):
                parts.append(f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{_fmt(v)}</text>')
            for i, (name, vals) in enumerate(self.series.items()):
                color = _COLORS[i % len(_COLORS)]
                path, pen = [], "M"
                for x, y in zip(self.x, vals):
                    if y is None or not math.isfinite(y) or not math.isfinite(x):
                        pen = "M"
                        continue
                    path.append(f"{pen}{sx(x):.1f},{sy(y):.1f}")
                    pen = "L"
                parts.append(f'<path d="{" ".join(path)}" fill="none" stroke="{color}" stroke-width="1.5"/>')
                parts.append(f'<text x="{_W - _M + 4}" y="{_M + 12 + 14 * i}" fill="{color}">{html.escape(name)}</text>')
        if self.xlabel:
            parts.append(f'<text x="{_W / 2}" y="{_H - 8}" text-anchor="middle">{html.escape(self.xlabel)}</text>')
        if self.ylabel:
            parts.append(f'<text x="12" y="{_H / 2}" text-anchor="middle" transform="rotate(-90 12 {_H / 2})">'
                         f'{html.escape(self.ylabel)}</text>')
        parts.append("</svg>")
        return "".join(parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.bundle(self.host.rich), {}
