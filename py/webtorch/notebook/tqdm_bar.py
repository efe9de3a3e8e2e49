"""PyPI's tqdm drawn as the notebook's progress bar: ``tqdm`` here is tqdm's own class (its counting, rate,
``set_postfix``, ``write``, async iteration) with one change, what ``tqdm.notebook`` changes for Jupyter's
widgets: ``display`` hands the bar's state to a ``ProgressOutput`` (one live output per bar, so nested bars
are one line each) instead of writing to a terminal. ``tqdm_hook`` puts it into the tqdm modules users import.
"""
from tqdm.asyncio import tqdm_asyncio

from .host import TextHost
from .progress import ProgressOutput


class _BarOutput(ProgressOutput):
    def __init__(self, bar):
        self.bar = bar
        super().__init__()
        if not self.host.rich:  # text: lines on tqdm's own stream (stderr, or the bar's file=)
            self.host = TextHost(bar.fp)

    def state(self):
        d = self.bar.format_dict
        n, total, elapsed = d["n"], d["total"], d["elapsed"]
        rate = d["rate"] if d["rate"] is not None else (n / elapsed if elapsed and n else None)
        eta = (total - n) / rate if rate and total is not None else None
        return {"n": n, "total": total, "desc": d["prefix"] or None, "unit": d["unit"], "elapsed": elapsed,
                "rate": rate, "eta": eta, "postfix": d["postfix"] or "", "closed": self.bar.disable}

    def line(self):
        return self.bar.format_meter(**self.bar.format_dict)


class tqdm(tqdm_asyncio):  # noqa: N801 -- the name users import
    """tqdm's progress bar, shown as a live notebook output (see the module docstring)."""

    monitor_interval = 0  # tqdm's monitor is a thread, and Pyodide starts none

    def __init__(self, *args, **kwargs):
        self._output = None
        # gui=True: tqdm's base class keeps no terminal printer (and so never writes to the bar's file)
        super().__init__(*args, **{**kwargs, "gui": True})
        if not self.disable and self.delay <= 0:
            self.display()

    def display(self, msg=None, pos=None):
        if self._output is None:
            self._output = _BarOutput(self)
            self._output._show()
        else:
            self._output._changed()
        return True

    def clear(self, *_, **__):
        pass

    def close(self):
        if self.disable:
            return
        pos = abs(self.pos)
        super().close()  # sets disable, frees the bar's position
        if self._output is None:
            return
        if self.leave or (self.leave is None and pos == 0):
            self._output._changed(force=True)
        else:
            self._output.hide()


def trange(*args, **kwargs):
    """``tqdm(range(*args), **kwargs)``."""
    return tqdm(range(*args), **kwargs)


# module -> its names that become the classes above (tqdm.notebook's widget bar, the auto choice, the console bar)
TARGETS = {
    "tqdm": ("tqdm", "trange"),
    "tqdm.auto": ("tqdm", "trange"),
    "tqdm.autonotebook": ("tqdm", "trange"),
    "tqdm.notebook": ("tqdm", "trange", "tqdm_notebook", "tnrange"),
}


def patch(module):
    """Point ``module``'s bar names (TARGETS) at this module's tqdm/trange."""
    for name in TARGETS.get(module.__name__, ()):
        setattr(module, name, trange if name in ("trange", "tnrange") else tqdm)
