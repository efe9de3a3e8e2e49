"""matplotlib's figures as PNG images in the notebook's output, as Jupyter's inline backend shows them.

The app's kernel names this module as matplotlib's backend (``MPLBACKEND=module://webtorch.notebook.
matplotlib_backend``, set at start, read when a cell first imports matplotlib): ``plt.show()`` shows every open
figure below the cell and closes it, and the figures a cell drew without ``show()`` are shown when the cell ends
(``flush_figures``, called by the kernel). Drawing is matplotlib's Agg renderer; nothing here imports
matplotlib until matplotlib itself loads this backend.
"""
import base64
import io
import sys

from matplotlib.backend_bases import FigureManagerBase
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .host import current

BACKEND = f"module://{__name__}"

FigureCanvas = FigureCanvasAgg
FigureManager = FigureManagerBase


def figure_bundle(fig):
    """The mime bundle of a figure: PNG (as the figure is saved, tight) and its repr."""
    buf = io.BytesIO()
    fig.canvas.print_figure(buf, format="png", bbox_inches="tight")
    return {"image/png": base64.b64encode(buf.getvalue()).decode("ascii"), "text/plain": repr(fig)}


def show(block=None):
    """``plt.show()``: every open figure goes below the cell as an image, then is closed."""
    from matplotlib import pyplot as plt
    from matplotlib._pylab_helpers import Gcf
    for manager in Gcf.get_all_fig_managers():
        current().show(figure_bundle(manager.canvas.figure))
    plt.close("all")


def flush_figures():
    """What a cell drew and did not show is shown when it ends (a no-op until pyplot is imported)."""
    if "matplotlib.pyplot" in sys.modules and sys.modules["matplotlib"].get_backend() == BACKEND:
        show()
