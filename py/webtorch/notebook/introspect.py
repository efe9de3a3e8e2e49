"""The kernel's answers about names, as Jupyter's: tab completion (``complete``) and ``obj?`` / ``obj??`` help
(``help_lines`` rewrites such lines of a cell into ``pinfo`` calls; ``pinfo`` shows signature, docstring, type,
file and, for ``??``, the source). Completion is the standard library's rlcompleter over the kernel's namespace
(jedi is not in the offline Pyodide)."""
import inspect
import keyword
import re
import rlcompleter

MAX_MATCHES = 200
_TOKEN = re.compile(r"(?<![\w.)\]'\"])[A-Za-z_][\w.]*$|$")  # a dotted name, not an attribute of an expression
_MISSING = object()
_HELP_LINE = re.compile(r"^(\s*)(\?{1,2})?([A-Za-z_][\w.]*)(\?{1,2})?\s*$")


def complete(text_before_cursor, namespace):
    """{"matches": [...], "length": n}: names that complete the dotted name ending ``text_before_cursor``
    (``length`` characters before the cursor are replaced), attributes after a dot, keywords and builtins."""
    token = _TOKEN.search(text_before_cursor).group()
    if not token:
        return {"matches": [], "length": 0}
    completer = rlcompleter.Completer(namespace)
    seen = []
    for state in range(10_000):
        try:
            m = completer.complete(token, state)
        except Exception:  # noqa: BLE001 -- a property that raises while listing attributes ends the list
            break
        if m is None or len(seen) >= MAX_MATCHES:
            break
        m = m.rstrip("( ")  # rlcompleter marks callables and keywords; the editor inserts the name only
        if m not in seen:
            seen.append(m)
    if "." not in token:
        seen = [m for m in seen if not m.startswith("__") or token.startswith("__")]
    base = token.rsplit(".", 1)[0] + "." if "." in token else ""
    matches = sorted(seen, key=lambda m: (m[len(base):].startswith("_"), m.lower()))
    return {"matches": [m[len(base):] for m in matches], "length": len(token) - len(base)}


def help_lines(source):
    """``source`` with each ``name?``/``name??``/``?name`` line turned into a ``pinfo`` call, or None when it
    has none. (Called only for a cell that is not valid Python, so a ``?`` inside a string is never touched.)"""
    lines = source.split("\n")
    changed = False
    for i, line in enumerate(lines):
        m = _HELP_LINE.match(line)
        if m and (m.group(2) or m.group(4)):
            indent, name = m.group(1), m.group(3)
            detail = max(len(m.group(2) or ""), len(m.group(4) or ""))
            lines[i] = f"{indent}__import__('webtorch.notebook.introspect').notebook.introspect.pinfo({name!r}, {detail})"
            changed = True
    return "\n".join(lines) if changed else None


def _field(name, value):
    return f"{name + ':':<16}{value}"


def describe(obj, detail=1):
    """Jupyter's ``obj?`` text: signature, docstring, type, file; ``detail=2`` (``obj??``) adds the source."""
    out = []
    if not inspect.ismodule(obj) and not callable(obj):
        text = repr(obj)
        out.append(_field("String form", text if len(text) < 400 else text[:400] + "..."))
    if callable(obj):
        try:
            label = "Init signature" if inspect.isclass(obj) else "Signature"
            out.append(_field(label, f"{getattr(obj, '__name__', '')}{inspect.signature(obj)}"))
        except (TypeError, ValueError):
            pass
    source = None
    if detail >= 2:
        try:
            source = inspect.getsource(obj)
        except (OSError, TypeError):
            pass
    if source is not None:
        out.append("Source:\n" + source.rstrip("\n"))
    else:
        doc = inspect.getdoc(obj)
        out.append("Docstring:" + ("\n" + doc if doc else " <no docstring>"))
    try:
        out.append(_field("File", inspect.getsourcefile(obj) or inspect.getfile(obj)))
    except TypeError:
        pass
    out.append(_field("Type", type(obj).__name__))
    return "\n".join(out)


def pinfo(name, detail=1):
    """Show ``describe`` of the object ``name`` names in the kernel's namespace (a dotted name)."""
    import __main__
    import builtins

    from .display import display
    head, *attrs = name.split(".")
    ns = vars(__main__)
    if keyword.iskeyword(head):
        return display({"text/plain": f"`{head}` is a Python keyword, not an object"}, raw=True)
    obj = ns[head] if head in ns else getattr(builtins, head, _MISSING)
    for a in attrs:
        obj = getattr(obj, a, _MISSING)
    if obj is _MISSING:
        return display({"text/plain": f"Object `{name}` not found."}, raw=True)
    display({"text/plain": describe(obj, detail)}, raw=True)
