"""Rich output for notebooks: ``display``, ``show_image``, ``LinePlot`` and ``tqdm``.

The same calls work in three hosts: webtorch's notebook app (outputs go to the page as mime bundles),
an IPython kernel (JupyterLite, Jupyter: IPython.display with live display updates) and anywhere else
(plain CPython, ``webtorch run --browser``: text lines on stdout)::

    from webtorch.notebook import display, show_image, LinePlot, tqdm
    plot = LinePlot(title="training", ylabel="loss")
    for step in tqdm(range(100), desc="train"):
        plot.append(step, loss=1 / (step + 1))
"""
from .display import display
from .image import show_image
from .plot import LinePlot
from .progress import tqdm

__all__ = ["display", "show_image", "LinePlot", "tqdm"]
