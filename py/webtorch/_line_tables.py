"""Line numbers for the wheel's bytecode, which ships without them: ``restore()`` gives each module's code objects
back the line tables the build took out.

The build (webtorch_devtools/bytecode.py) replaces the line table of every code object of the wheel's first
archive (a module's code and each code object nested in its constants, walked by ``code_objects``) by a table that
gives every instruction no location (``no_location``), and ships the originals in the on-demand archive beside the
wheel: {module name: its tables in walk order}. That takes ~77 KiB off the wheel. Until ``restore()`` runs,
tracebacks through webtorch's frames say ``line None``.

``restore()`` reads the tables (the on-demand archive: prefetched bytes, the file beside the first archive, or the
page's synchronous fetch; webtorch/_bytecode_archive.py) and points each code object's line table at its original
one, in place: frames already in a traceback, ``tb_lineno``, ``co_lines()`` and traceback formatting all read it
from there. The pointer's place in the code object is found at run time on two probe code objects (never assumed),
and a module is swapped only when every one of its code objects has exactly the no-location table the build made
for it and its original table covers exactly its instructions; otherwise its lines stay None (never a wrong line)
and a warning says which module and why. The old tables are kept alive (no reference is released).

When it runs: in the page, in the background, in short slices yielding to the event loop, once the on-demand
archive's prefetch lands (webtorch/browser/on_demand.py); and at once before a traceback is formatted by
``sys.excepthook``, the notebook app's kernel, ``webtorch run --browser``'s runner and the JupyterLite kernel's
IPython. A module imported after that gets its tables before it runs. If the archive cannot be had, a warning says
so and tracebacks keep ``line None``.

Before that (the first moments after start-up, until the prefetch lands): a traceback formatted through one of the
hooks above fetches the tables first; one formatted elsewhere (``traceback.print_exc()`` in user code, logging)
shows ``line None`` for webtorch's frames; ``warnings.warn`` records its line when it is called, so a warning whose
frame is webtorch's says line -1 (webtorch's own warnings point at the caller's frame: stacklevel), and as the
"default" filter remembers warnings by line, it may show once more with its real line after the restore.

Swapping a table changes ``hash()`` and ``==`` of a code object (both read the line table): nothing in webtorch
keys a dict or set by code objects. A tracer (sys.settrace, sys.monitoring: a debugger, coverage) that instrumented
a code object before its swap keeps the line events it derived then. From the sources (CPython, tests) nothing is
stripped and nothing runs here.
"""
import re
import sys
import types

_NO_LOCATION = 15  # the entry kind that gives its code units no location (CPython's Objects/locations.md)
_SLICE_S = 0.004  # restore_async's work between two yields to the event loop


def code_objects(code):
    """[``code`` and every code object nested in its constants], depth first: the order of a module's tables."""
    found, stack = [], [code]
    while stack:
        code = stack.pop()
        found.append(code)
        stack.extend(reversed([c for c in code.co_consts if isinstance(c, types.CodeType)]))
    return found


def no_location(units):
    """The line table giving ``units`` code units no location: kind-15 entries of up to 8 units each."""
    full, rest = divmod(units, 8)
    head = 0x80 | _NO_LOCATION << 3
    return bytes([head | 7]) * full + (bytes([head | rest - 1]) if rest else b"")


def units_covered(table):
    """How many code units a line table covers (CPython 3.11+'s format, Objects/locations.md), None when it is not
    one: entries of a byte with its top bit set (kind in bits 3-6, units - 1 in bits 0-2) and the kind's payload,
    bytes without it (``_ENTRIES``)."""
    if _ENTRIES.fullmatch(table) is None:
        return None
    return sum(table.translate(_UNITS))


_VARINT = rb"(?:[\x40-\x7f]*[\x00-\x3f])"  # 6-bit chunks, bit 6 set on all but the last
_ENTRIES = re.compile(rb"(?:[\x80-\xcf][\x00-\x7f]"  # kinds 0-9, short form: one byte of columns
                      rb"|[\xd0-\xe7][\x00-\x7f]{2}"  # kinds 10-12, one-line form: start and end column
                      rb"|[\xe8-\xef]" + _VARINT +  # kind 13, no columns: a line delta
                      rb"|[\xf0-\xf7]" + _VARINT + rb"{4}"  # kind 14, long form: lines and columns
                      rb"|[\xf8-\xff])*")  # kind 15: no location
_UNITS = bytes((b & 7) + 1 if b & 0x80 else 0 for b in range(256))  # code units an entry's first byte gives


class _Pointers:
    """A code object's words as a ctypes array (``words(code)``): its length in code units at ``units`` (ob_size)
    and its line-table pointer at ``table``, a place found on probe code objects."""

    def __init__(self):
        import ctypes
        self._ctypes = ctypes
        word = ctypes.sizeof(ctypes.c_void_p)
        module = compile("def f(x):\n    return [x, x + 1, x * 2]\n", "<probe>", "exec")
        probes = [module, next(c for c in module.co_consts if isinstance(c, types.CodeType))]
        places = set()
        for probe in probes:
            words = (ctypes.c_size_t * 40).from_address(id(probe))
            hits = [i for i, w in enumerate(words) if w == id(probe.co_linetable)]
            places.add(tuple(hits))
            # the code units count as any variable-size object's: ob_size, right after the object header
            if words[2] != len(probe.co_code) // 2:
                raise RuntimeError("a code object's length is not where a PyVarObject keeps it")
        if len(places) != 1 or len(next(iter(places))) != 1:
            raise RuntimeError(f"the line table's pointer was not found once in a code object (found {places})")
        self.table, self.units = next(iter(places))[0], 2
        self._words = ctypes.c_size_t * (max(self.table, self.units) + 1)
        self._incref = ctypes.pythonapi.Py_IncRef
        self._incref.argtypes = [ctypes.py_object]

    def words(self, code):
        return self._words.from_address(id(code))

    def swap(self, words, table):
        """Point the code object of ``words`` at ``table``, which it holds a reference to from now on."""
        self._incref(table)
        words[self.table] = id(table)


_pointers = None  # a _Pointers once restore has its tables
_refused = {}  # {module name: why its lines stay None}
_unavailable = None  # why the tables could not be had (tried again only once the archive is in hand)


def restore():
    """Give every webtorch module that ran without its line table that table; idempotent. Returns whether every
    module has its lines. Nothing to do from the sources."""
    if not _start():
        return False
    finder = _finder()
    while finder.stripped:
        _restore_module(finder, *finder.stripped.popitem())
    _report_refused()
    return not _refused


async def restore_async():
    """``restore()`` in slices of a few ms, yielding to the event loop between them (a cell submitted meanwhile
    waits at most one slice): the page's background restore once the on-demand archive is in hand."""
    import asyncio
    import time
    if not _start():
        return False
    finder = _finder()
    start = time.perf_counter()
    while finder.stripped:
        _restore_module(finder, *finder.stripped.popitem())
        if time.perf_counter() - start > _SLICE_S:
            await asyncio.sleep(0)
            start = time.perf_counter()
    _report_refused()
    return not _refused


def install_excepthook():
    """``sys.excepthook`` restores the lines before it prints a traceback."""
    previous = sys.excepthook

    def excepthook(*exc_info):
        restore()
        previous(*exc_info)

    sys.excepthook = excepthook


def _finder():
    from ._bytecode_archive import finder
    return finder


def _start():
    """Whether the tables are in hand: read now if needed (which may fetch the on-demand archive, once)."""
    global _pointers, _unavailable
    finder = _finder()
    if finder is None:
        return False
    if _pointers is not None:
        return True
    if _unavailable is not None and not finder.on_demand_in_hand():
        return False
    try:
        finder.line_tables()
        pointers = _Pointers()
    except (ImportError, RuntimeError) as e:
        if _unavailable is None:
            _warn(f"webtorch's line numbers could not be restored ({e}): tracebacks say 'line None' in its frames")
        _unavailable = str(e)
        return False
    _pointers = pointers
    finder.restore_lines = _restore_imported  # from now on each module imported gets its tables before it runs
    return True


def _restore_imported(name, code):
    _restore_module(_finder(), name, code)
    _report_refused()


def _restore_module(finder, name, code):
    tables = finder.line_tables().pop(name, None)
    codes = code_objects(code)
    why = None
    if tables is None or len(tables) != len(codes):
        why = f"{len(codes)} code objects, {'no' if tables is None else len(tables)} line tables"
    else:
        words = [_pointers.words(c) for c in codes]
        for c, w, table in zip(codes, words, tables):
            current, units = c.co_linetable, w[_pointers.units]
            if w[_pointers.table] != id(current):
                why = f"{c.co_qualname}'s line table is not where it was found on the probes"
            elif current != no_location(units):
                why = f"{c.co_qualname} has a line table the build did not make"
            elif units_covered(table) != units:
                why = f"{c.co_qualname}'s line table covers {units_covered(table)} code units, its code {units}"
            if why:
                break
    if why:
        _refused[name] = why
        return
    for w, table in zip(words, tables):
        _pointers.swap(w, table)


_reported = set()


def _report_refused():
    new = {n: why for n, why in _refused.items() if n not in _reported}
    if new:
        _reported.update(new)
        _warn("webtorch's line numbers were not restored in " + "; ".join(f"{n} ({why})" for n, why in new.items())
              + ": tracebacks say 'line None' there")


def _warn(message):
    import warnings
    warnings.warn(message, RuntimeWarning, stacklevel=2)
