"""``obj?``, ``obj??``, ``%pdoc``, the inspector's tooltips and ``help()`` with webtorch's docstrings in an IPython
kernel (the JupyterLite site's). The wheel's bytecode has none; the first of these calls fetches the table beside
the wheel (webtorch.browser.docstrings.load_sync: IPython's inspector and pydoc are synchronous, and the kernel
runs in a Web Worker, where a synchronous request is allowed) and sets the docstrings on webtorch's objects before
IPython or pydoc reads them. Where there is no table to fetch (from the sources) they answer as before.

IPython reads every docstring it shows through its inspector's ``info`` (``obj?``, ``obj??``, tooltips) and
``pdoc`` (``%pdoc``); the shell builds its inspector from its ``inspector_class``, which ``install_ipython`` sets
to ``Inspector`` and builds it again.
"""
import _sitebuiltins
import builtins

from IPython.core import oinspect

from ..browser import docstrings


class Inspector(oinspect.Inspector):
    """IPython's inspector, webtorch's docstrings fetched before the first object is inspected."""

    def info(self, obj, *args, **kwargs):
        docstrings.load_sync()
        return super().info(obj, *args, **kwargs)

    def pdoc(self, obj, *args, **kwargs):
        docstrings.load_sync()
        return super().pdoc(obj, *args, **kwargs)


class Helper(_sitebuiltins._Helper):
    """The ``help`` builtin, webtorch's docstrings fetched before pydoc reads any."""

    def __call__(self, *args, **kwargs):
        docstrings.load_sync()
        return super().__call__(*args, **kwargs)


def install_ipython(shell):
    """Have the IPython ``shell``'s inspector and the ``help`` builtin fetch webtorch's docstrings first."""
    shell.inspector_class = Inspector
    # as InteractiveShell builds its inspector
    shell.inspector = Inspector(theme_name=shell.colors, str_detail_level=shell.object_info_string_level,
                                parent=shell)
    builtins.help = Helper()
