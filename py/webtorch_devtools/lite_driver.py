"""Drive a JupyterLite site's JupyterLab from Playwright through JupyterLab's own commands (the site sets
``exposeAppInBrowser``, so ``window.jupyterapp`` is the application). Used by the site's tests and bench.

    lite = LitePage(page, site_url)
    lite.open("tutorial.ipynb")          # waits for the kernel to be idle
    lite.run_all()                        # notebook:run-all-cells, waits until it finished (or errored)
    lite.outputs()                        # nbformat outputs of every code cell
"""
import time

# the open notebook panel, its kernel and its code cells' outputs, as page-side helpers
_PAGE_HELPERS = """
window.webtorchLite = {
  panel() { return window.jupyterapp.shell.currentWidget; },
  kernel() {
    const p = this.panel();
    return p && p.sessionContext && p.sessionContext.session && p.sessionContext.session.kernel;
  },
  status() { const k = this.kernel(); return k ? k.status : null; },
  cells() { return [...this.panel().content.model.cells].map((c) => c.toJSON()); },
  // queued or running code cells (JupyterLab sets a cell's executionState from the execute request on)
  running() { return this.panel().content.widgets.some((w) => w.model.executionState === 'running'); },
};
"""


class LiteTimeout(AssertionError):
    pass


class LitePage:
    def __init__(self, page, site_url):
        self.page = page
        self.url = site_url.rstrip("/")

    def open(self, path, timeout_s=240):
        """Navigate to the notebook ``path`` (relative to the site's contents); returns seconds to kernel idle."""
        t0 = time.perf_counter()
        self.page.goto(f"{self.url}/lab/index.html?path={path}")
        self.page.wait_for_function("window.jupyterapp !== undefined", timeout=timeout_s * 1000)
        self.page.evaluate(_PAGE_HELPERS)
        self.page.wait_for_function(
            "() => { const p = webtorchLite.panel(); return p && p.context && p.context.path.endsWith("
            f"{path!r}) && webtorchLite.status() === 'idle'; }}", timeout=timeout_s * 1000, polling=100)
        return time.perf_counter() - t0

    def status(self):
        return self.page.evaluate("webtorchLite.status()")

    def command(self, name, args=None):
        """Start JupyterLab command ``name`` (not waiting for its promise: a run may last long)."""
        self.page.evaluate("([n, a]) => { window.jupyterapp.commands.execute(n, a || {}); }", [name, args])

    def cells(self):
        return self.page.evaluate("webtorchLite.cells()")

    def outputs(self):
        """Outputs (nbformat dicts) of each code cell, in order."""
        return [c.get("outputs", []) for c in self.cells() if c["cell_type"] == "code"]

    def wait_done(self, timeout_s):
        """Wait until no cell is queued or running and the kernel is idle (or a cell errored: run-all stops)."""
        self.page.wait_for_function(
            "() => webtorchLite.status() === 'idle' && !webtorchLite.running()", timeout=timeout_s * 1000,
            polling=250)

    def run_all(self, timeout_s=600):
        """notebook:run-all-cells; returns the seconds it took."""
        t0 = time.perf_counter()
        self.command("notebook:run-all-cells")
        self.page.wait_for_timeout(500)  # the kernel turns busy
        self.wait_done(timeout_s)
        return time.perf_counter() - t0

    def append_cell(self, source):
        """A new code cell with ``source`` at the end, made the active cell; returns its index."""
        return self.page.evaluate("""async (src) => {
          const nb = webtorchLite.panel().content;
          nb.activeCellIndex = nb.widgets.length - 1;
          await window.jupyterapp.commands.execute('notebook:insert-cell-below');
          await window.jupyterapp.commands.execute('notebook:change-cell-to-code');
          nb.activeCell.model.sharedModel.setSource(src);
          return nb.activeCellIndex;
        }""", source)

    def run_cell(self, source):
        """Append a code cell with ``source`` and start it (notebook:run-cell); returns the cell's index."""
        index = self.append_cell(source)
        self.command("notebook:run-cell")
        return index

    def cell_outputs(self, index):
        return self.cells()[index].get("outputs", [])

    def wait_output(self, index, text, timeout_s=120):
        """Wait until cell ``index`` has an output whose text contains ``text``."""
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            if any(text in output_text(o) for o in self.cell_outputs(index)):
                return
            self.page.wait_for_timeout(200)
        raise LiteTimeout(f"cell {index} printed no {text!r} within {timeout_s} s: {self.cell_outputs(index)}")


def output_text(output):
    """The text of an nbformat output (stream text, text/plain data, or an error's name and value)."""
    if output["output_type"] == "stream":
        t = output["text"]
    elif output["output_type"] == "error":
        t = f"{output['ename']}: {output['evalue']}"
    else:
        t = output.get("data", {}).get("text/plain", "")
    return "".join(t) if isinstance(t, list) else t
