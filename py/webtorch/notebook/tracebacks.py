"""Tracebacks that show the user's code, not the machinery, as Jupyter's do: frames that set
``__tracebackhide__`` (IPython's convention; webtorch.browser.packages' import hook sets it) and the import
system's frozen frames (no source to show) are dropped.

The app's kernel trims its tracebacks with ``shown_frames``. IPython (the JupyterLite kernel) hides such frames
itself, except the frame that raised: an import of a package that cannot be loaded would still show the hook's
frame, so ``install_ipython`` (the lite site's kernel calls it at start-up: ipython_startup.py) has IPython show
import errors through ``shown_frames`` too, and restores webtorch's line numbers before a traceback is shown.
"""


def shown_frames(tb):
    """The traceback ``tb`` relinked without the machinery's frames; its first kept entry (None: none kept)."""
    kept = []
    while tb is not None:
        frame = tb.tb_frame
        if not frame.f_code.co_filename.startswith("<frozen ") and not frame.f_locals.get("__tracebackhide__"):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:] + [None]):
        a.tb_next = b
    return kept[0] if kept else None


def _show_import_error(shell, etype, value, tb, tb_offset=None):
    """IPython's custom exception handler (``set_custom_exc``): the traceback shown without hidden frames."""
    shell.showtraceback((etype, value, shown_frames(tb)), tb_offset=tb_offset)


def install_ipython(shell):
    """Have the IPython ``shell`` show import errors without the machinery's frames, and every traceback with
    webtorch's line numbers (restored before the first is shown: webtorch/_line_tables.py)."""
    shell.set_custom_exc((ImportError,), _show_import_error)
    show = shell.showtraceback

    def showtraceback(*args, **kwargs):
        from .. import _line_tables
        _line_tables.restore()
        return show(*args, **kwargs)

    shell.showtraceback = showtraceback

