"""The offline JupyterLite site (`webtorch lite build`), in headless Chromium: every tutorial notebook runs
through JupyterLab's own run-all command with no error output and falling losses, no request leaves
127.0.0.1, an interrupt stops a training loop that reads its loss back synchronously, leaving the
kernel usable, and a traceback names the lines of webtorch's frames. Screenshots of the final states (and of
failures) go to the test's tmp dir."""
import contextlib
import json
import re
import shutil
from pathlib import Path

import pytest

from webtorch_devtools.chromium import FLAGS, find_chromium
from webtorch_devtools.server import Server
from webtorch_devtools.lite_driver import LitePage, output_text
from webtorch_devtools.lite_site import PLUGIN, cached_site, default_contents
from webtorch_devtools.lite_wheels import find_wheel

from deep_error import DEEP_ERROR, source_frames, webtorch_frames

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = Path(__file__).parent / "lite" / "webtorch_in_jupyterlite.ipynb"
NOTEBOOKS = sorted(p.name for p in default_contents() if p.suffix == ".ipynb") + [FIXTURE.name]
LOSS = re.compile(r"\bloss\b[^0-9\n]{0,12}?(\d+\.\d+(?:e[-+]?\d+)?)", re.I)
# anything a page tries outside 127.0.0.1 fails at DNS (and is recorded and reported by the test)
NO_NETWORK = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"

SYNC_TRAINING_LOOP = """import webtorch as torch
import webtorch.nn.functional as F
w = torch.randn(64, 10, device="webgpu", requires_grad=True)
x, y = torch.randn(256, 64, device="webgpu"), torch.randint(0, 10, (256,), device="webgpu")
opt = torch.optim.SGD([w], lr=0.1)
step = 0
while True:  # interrupted by the test
    loss = F.cross_entropy(x @ w, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    loss.item()
    step += 1
    if step == 3:
        print("training", flush=True)"""


@pytest.fixture(scope="module")
def site_root():
    """The site built once (cached by its inputs)."""
    return cached_site(contents=default_contents() + [FIXTURE])


@pytest.fixture(scope="module")
def site(site_root, tmp_path_factory, webtorch_playwright):
    """(site URL, Playwright browser, folder for screenshots)."""
    server = Server(roots={"": site_root}, cross_origin_isolated=True)
    browser = webtorch_playwright.chromium.launch(executable_path=find_chromium(), headless=True,
                                                  args=[*FLAGS, NO_NETWORK])
    try:
        yield server.url, browser, tmp_path_factory.mktemp("lite_screens")
    finally:
        browser.close()
        server.close()


@contextlib.contextmanager
def lite_page(site, name, also=()):
    """A LitePage in a fresh browser context, every request URL recorded; a screenshot of the final state
    (or of the failure) is saved as <name>-final.png / <name>-failure.png; then no request may have left
    (for other origins than the site's: ``also``, URL prefixes)."""
    url, browser, shots = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    requests = []
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    lp = LitePage(page, url)
    try:
        yield lp
    except BaseException:
        page.screenshot(path=str(shots / f"{name}-failure.png"))
        raise
    else:
        page.screenshot(path=str(shots / f"{name}-final.png"))
    finally:
        context.close()
    # the kernel worker's own fetches are recorded too (else this check would prove nothing)
    assert any(u.endswith("/pyodide.asm.wasm") for u in requests), requests
    outside = [u for u in requests if not u.startswith((url + "/", f"blob:{url}/", "data:", *also))]
    assert not outside, f"requests left 127.0.0.1: {outside}"


def _losses(outputs):
    """Loss values a cell printed, in order (stream text only: a live plot or progress bar's display keeps
    just its last state)."""
    return [float(m) for o in outputs if o["output_type"] == "stream" for m in LOSS.findall(output_text(o))]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_all_cells(site, notebook):
    with lite_page(site, notebook) as lite:
        _run_all_checked(lite, notebook)


def _run_all_checked(lite, notebook):
    lite.open(notebook)
    lite.run_all(timeout_s=900)
    cells = [c for c in lite.cells() if c["cell_type"] == "code"]
    errors = [output_text(o) for c in cells for o in c["outputs"] if o["output_type"] == "error"]
    assert not errors, errors
    unrun = [i for i, c in enumerate(cells) if c["source"] and c["execution_count"] is None]
    assert not unrun, f"code cells {unrun} did not run"
    for c in cells:
        losses = _losses(c["outputs"])
        if len(losses) >= 2:
            assert losses[-1] < losses[0], f"losses did not fall: {losses}\n{''.join(c['source'])}"
    assert lite.status() == "idle"


def test_interrupt_sync_readback_training_then_run_another_cell(site):
    with lite_page(site, "interrupt") as lite:
        _interrupt_then_run(lite)


def _interrupt_then_run(lite):
    lite.open(FIXTURE.name)
    index = lite.run_cell(SYNC_TRAINING_LOOP)
    lite.wait_output(index, "training", timeout_s=180)
    lite.page.wait_for_timeout(1000)
    lite.command("kernelmenu:interrupt")
    lite.wait_output(index, "KeyboardInterrupt", timeout_s=20)
    lite.wait_done(timeout_s=20)
    after = lite.run_cell('print("after", step > 3, (torch.ones(3, device="webgpu") * 2).sum().item())')
    lite.wait_output(after, "after True 6.0", timeout_s=60)
    assert lite.status() in ("idle", "busy")


TQDM_CELL = """import time
from tqdm.auto import tqdm, trange
from tqdm import tqdm as std_import
for epoch in trange(2, desc="epochs"):
    for batch in tqdm(range(3), desc=f"epoch {epoch}"):
        time.sleep(0.2)
with std_import(total=4, desc="manual") as bar:
    bar.update(4)
print("done", type(bar).__mro__[1].__module__)"""


def test_tqdm_bars_in_jupyterlite(site):
    """PyPI's tqdm (loaded at the kernel's boot) draws one HTML progress bar per bar, updated in place."""
    with lite_page(site, "tqdm") as lite:
        lite.open(FIXTURE.name)
        index = lite.run_cell(TQDM_CELL)
        lite.wait_output(index, "done tqdm.asyncio", timeout_s=180)
        lite.wait_done(timeout_s=60)
        outputs = lite.cell_outputs(index)
        bars = [o["data"] for o in outputs if o["output_type"] == "display_data"]
        assert [b["text/plain"].split(":")[0] for b in bars] == ["epochs", "epoch 0", "epoch 1", "manual"], outputs
        assert '<progress value="2" max="2"' in bars[0]["text/html"]
        assert all("100%" in b["text/plain"] for b in bars)
        assert not [o for o in outputs if o.get("name") == "stderr"], outputs  # no terminal bar, no warning
        lite.page.locator(".jp-OutputArea-output progress").last.scroll_into_view_if_needed()


STAND_IN_PACKAGE = "pytz==2026.1.post1"  # in Pyodide 314's lock, not loaded by the kernel (setup.d/browser.sh)


class _SiteWithPackagesURL(Server):
    """The site, its jupyter-lite.json naming a package URL (as `webtorch lite build --packages-url URL`)."""

    def __init__(self, root, packages_url):
        super().__init__(roots={"": root}, cross_origin_isolated=True)
        config = json.loads((Path(root) / "jupyter-lite.json").read_text())
        config["jupyter-config-data"]["litePluginSettings"][PLUGIN]["loadPyodideOptions"]["webtorchPackagesURL"] = \
            packages_url
        self._config = json.dumps(config).encode()

    def resolve(self, path):
        return (self._config, "application/json") if path == "/jupyter-lite.json" else super().resolve(path)


def test_pyodide_packages_load_on_import_in_jupyterlite(site, site_root, tmp_path):
    """A cell's import of a Pyodide package the site lacks loads it from the package URL (a local server
    standing in for Pyodide's host); one found nowhere raises an error naming it and the way out."""
    wheel = find_wheel(ROOT / ".cache" / "pyodide-wheels", STAND_IN_PACKAGE)
    assert wheel is not None, "scripts/setup.d/browser.sh downloads it"
    shutil.copyfile(wheel, tmp_path / wheel.name)
    host = Server(roots={"": tmp_path})
    host.headers = (("Access-Control-Allow-Origin", "*"),)
    server = _SiteWithPackagesURL(site_root, host.url + "/")
    try:
        with lite_page((server.url, *site[1:]), "packages", also=(host.url + "/",)) as lite:
            lite.open(FIXTURE.name)
            index = lite.run_cell("import pytz\nprint('pytz', pytz.__version__, pytz.__file__)")
            lite.wait_output(index, "pytz 2026.1.post1", timeout_s=180)
            assert any("loading pytz" in output_text(o) for o in lite.cell_outputs(index))  # the progress line
            missing = lite.run_cell("import numpy as np")
            lite.wait_output(missing, "ModuleNotFoundError", timeout_s=120)
            lite.wait_done(timeout_s=60)
            error = next(o for o in lite.cell_outputs(missing) if o["output_type"] == "error")
            err = error["evalue"]
            assert err.startswith("No module named 'numpy': it is Pyodide's package 'numpy'"), err
            shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error["traceback"]))  # IPython's colours dropped
            # the user's line and the message: no frame of the import hook
            assert "import numpy as np" in shown and "packages.py" not in shown and "find_spec" not in shown, shown
            # the loading line of the failed load is gone
            assert not any("loading numpy" in output_text(o) for o in lite.cell_outputs(missing))
            assert server.url in err and host.url in err and "LinePlot" in err and "show_image" in err
            lite.page.locator(".jp-OutputArea-output").last.scroll_into_view_if_needed()  # for the screenshot
    finally:
        server.close()
        host.close()


def test_question_mark_and_help_show_webtorch_docstrings_in_jupyterlite(site):
    """The wheel's bytecode has no docstrings: the first `obj?` fetches their table from beside the wheel in the
    site (a synchronous request in the kernel's worker) before IPython's inspector reads one; help() and the
    inspector's tooltip (the kernel's inspect request: Shift+Tab, the contextual help) show them too."""
    with lite_page(site, "help") as lite:
        lite.open(FIXTURE.name)
        index = lite.run_cell("import webtorch as torch\nprint('before', torch.nn.Linear.__doc__)\ntorch.nn.Linear?")
        lite.wait_output(index, "Docstring:", timeout_s=180)
        text = re.sub(r"\x1b\[[0-9;]*m", "", "".join(output_text(o) for o in lite.cell_outputs(index)))
        assert "before None" in text, text  # nothing set them before the `?`
        signature = r"Init signature:\s+torch\.nn\.Linear\(\s+in_features,\s+out_features,\s+bias=True"
        assert re.search(signature, text), text
        assert re.search(r"Docstring:\s+y = x A\^T \+ b, with weight \(out_features, in_features\)", text), text
        helped = lite.run_cell("help(torch.nn.ReLU)")
        lite.wait_output(helped, "Help on class ReLU", timeout_s=60)
        text = "".join(output_text(o) for o in lite.cell_outputs(helped))
        assert "The module-specific part of repr" in text, text  # an inherited method's docstring
        tooltip = lite.page.evaluate("""async () => {
          const reply = await webtorchLite.kernel().requestInspect({code: 'torch.optim.Adam', cursor_pos: 16,
                                                                    detail_level: 0});
          return reply.content.data['text/plain'];
        }""")
        tooltip = re.sub(r"\x1b\[[0-9;]*m", "", tooltip)
        assert re.search(r"Docstring:\s+Implements Adam \(Kingma & Ba\), optionally AMSGrad", tooltip), tooltip
        lite.wait_done(timeout_s=60)
        lite.page.locator(".jp-Notebook .jp-Cell").nth(index).scroll_into_view_if_needed()  # for the screenshot


def test_tracebacks_name_webtorch_lines_in_jupyterlite(site):
    """The wheel's bytecode has no line tables until webtorch/_line_tables.py restores them (in the background, or
    before IPython shows a traceback): an error raised inside webtorch names the lines CPython names from the
    sources."""
    with lite_page(site, "traceback-lines") as lite:
        lite.open(FIXTURE.name)
        index = lite.run_cell(DEEP_ERROR)
        lite.wait_output(index, "RuntimeError", timeout_s=180)
        text = "\n".join(line for o in lite.cell_outputs(index) for line in o.get("traceback", []))
        assert webtorch_frames(text) == source_frames(), text
        lite.wait_done(timeout_s=60)
