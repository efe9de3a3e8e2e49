"""``display(obj)``, ``update_display``, ``clear_output`` (IPython.display's signatures) and the mime bundle of any
object (also the last expression of a notebook cell)."""
import base64
import numbers

from .host import LiveOutput, current, new_display_id

MAX_TABLE_ROWS = 200


def _is_number(v):
    return isinstance(v, numbers.Number)


def _scalar(v):
    """A plain number for a 0-d tensor (tables of metrics often hold them), else ``v``."""
    if hasattr(v, "item") and getattr(v, "dim", None) is not None and v.dim() == 0:
        return v.item()
    return v


def _cell(v):
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _table(obj):
    """(header, rows) when ``obj`` is a dict of numbers, a list of numbers, a list of dicts of numbers or a
    list of lists of numbers; else None."""
    if isinstance(obj, dict) and obj and all(_is_number(_scalar(v)) for v in obj.values()):
        return ["key", "value"], [[str(k), _scalar(v)] for k, v in obj.items()]
    if not isinstance(obj, list) or not obj:  # tuples keep their repr, as in Jupyter
        return None
    items = [_scalar(v) for v in obj]
    if all(_is_number(v) for v in items):
        return ["", "value"], [[i, v] for i, v in enumerate(items)]
    if all(isinstance(v, dict) and v for v in obj):
        keys = list(dict.fromkeys(k for row in obj for k in row))
        rows = [[_scalar(row.get(k, "")) for k in keys] for row in obj]
        if all(_is_number(v) or v == "" for row in rows for v in row):
            return ["", *map(str, keys)], [[i, *row] for i, row in enumerate(rows)]
        return None
    if all(isinstance(v, (list, tuple)) and v for v in obj):
        rows = [[_scalar(v) for v in row] for row in obj]
        if all(_is_number(v) for row in rows for v in row):
            return ["", *map(str, range(max(map(len, rows))))], [[i, *row] for i, row in enumerate(rows)]
    return None


def _table_bundle(header, rows):
    import html  # here, not at the top: html imports html.entities, 0.1 s of the kernel's start in Pyodide
    shown = rows[:MAX_TABLE_ROWS]
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>" for row in shown)
    more = f"<p>({len(rows) - len(shown)} more rows)</p>" if len(rows) > len(shown) else ""
    table = f'<table class="wt-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}'
    widths = [max(len(_cell(r[i])) if i < len(r) else 0 for r in [header, *shown]) for i in range(len(header))]
    lines = ["  ".join(_cell(v).rjust(w) for v, w in zip(row, widths)) for row in [header, *shown]]
    return {"text/html": table, "text/plain": "\n".join(lines)}


# IPython's _repr_*_ methods, richest first; a method may return the value or (value, metadata)
_REPR_METHODS = (("text/html", "_repr_html_"), ("text/markdown", "_repr_markdown_"), ("text/latex", "_repr_latex_"),
                 ("image/svg+xml", "_repr_svg_"), ("image/png", "_repr_png_"), ("image/jpeg", "_repr_jpeg_"),
                 ("application/json", "_repr_json_"))


def _json_value(value):
    """Bytes (PNG, JPEG) as base64 text, as Jupyter's formatters send them."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return value


def mime_bundle(obj):
    """(bundle, metadata) for ``obj``: its own _repr_mimebundle_/_repr_html_/_repr_png_/... when it has one,
    a table for dicts/lists of numbers, else its repr (tensors and modules print as in PyTorch)."""
    if hasattr(obj, "_repr_mimebundle_") and not isinstance(obj, type):
        out = obj._repr_mimebundle_()
        bundle, metadata = out if isinstance(out, tuple) else (out, {})
        return {"text/plain": repr(obj), **{k: _json_value(v) for k, v in bundle.items()}}, metadata or {}
    bundle, metadata = {"text/plain": repr(obj)}, {}
    for mime, method in _REPR_METHODS:
        fn = getattr(obj, method, None)
        if fn is not None and not isinstance(obj, type):
            value = fn()
            if isinstance(value, tuple):
                value, metadata[mime] = value
            if value is not None:
                bundle[mime] = _json_value(value)
    if len(bundle) == 1:
        table = _table(obj)
        if table is not None:
            bundle.update(_table_bundle(*table))
            bundle["text/plain"] = repr(obj) if len(repr(obj)) <= 200 else bundle["text/plain"]
    return bundle, metadata


class DisplayHandle:
    """What ``display(obj, display_id=...)`` returns: ``update(obj)`` redraws that output in place."""

    def __init__(self, display_id=None):
        self.display_id = display_id or new_display_id()

    def __repr__(self):
        return f"<DisplayHandle display_id={self.display_id}>"

    def display(self, obj, **kwargs):
        display(obj, display_id=self.display_id, **kwargs)

    def update(self, obj, **kwargs):
        update_display(obj, display_id=self.display_id, **kwargs)


def _bundle(obj, raw, include, exclude, metadata):
    bundle, md = (obj, {}) if raw else mime_bundle(obj)
    if include is not None:
        bundle = {k: v for k, v in bundle.items() if k in include}
    if exclude is not None:
        bundle = {k: v for k, v in bundle.items() if k not in exclude}
    return bundle, {**md, **(metadata or {})}


def display(*objs, include=None, exclude=None, metadata=None, transient=None, display_id=None, raw=False,
            clear=False):
    """Show each object as rich output below the cell (text where the host has no rich output), with
    IPython.display.display's arguments: ``display_id=True`` (a new id) or a string returns a DisplayHandle
    whose ``update(obj)`` redraws the output; ``raw=True`` takes mime bundles; ``clear=True`` clears the
    cell's output first."""
    if transient and transient.get("display_id") and display_id is None:
        display_id = transient["display_id"]
    handle = None if display_id is None else DisplayHandle(None if display_id is True else display_id)
    if clear:
        clear_output(wait=True)
    for obj in objs:
        if isinstance(obj, LiveOutput):
            obj._show()
            continue
        bundle, md = _bundle(obj, raw, include, exclude, metadata)
        current().show(bundle, md, display_id=handle and handle.display_id)
    return handle


def update_display(obj, *, display_id, include=None, exclude=None, metadata=None, raw=False):
    """Redraw every output shown with ``display_id`` (IPython.display.update_display)."""
    bundle, md = _bundle(obj, raw, include, exclude, metadata)
    current().update(bundle, md, display_id=display_id)


def clear_output(wait=False):
    """Clear the running cell's output; ``wait=True`` clears when the next output arrives (no flicker)."""
    current().clear(wait)
