"""The libraries notebook users import, in the notebook app in headless Chromium: PyPI's tqdm (shipped with the
app) drawn as the app's live progress bars, and Pyodide packages loaded before a cell runs from the site's
folder, then from the package URL (here a local server standing in for Pyodide's package host, holding a
pure-Python package of Pyodide's lock), with a clear error for a package neither has.
Screenshots go to the test run's tmp folder."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from webtorch_devtools.chromium import launch
from webtorch_devtools.lite_wheels import cache_dir as lite_wheels_dir, find_wheel
from webtorch_devtools.notebook_app import NotebookServer
from webtorch_devtools.server import Server

from notebook_ui import cells, full_screenshot, new_notebook, open_app, run_code, set_source, wait_done

ROOT = Path(__file__).resolve().parents[2]
STAND_IN_PACKAGE = "six==1.17.0"  # in Pyodide 314's lock (pure Python), downloaded at set-up (lite.sh)


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("notebook_libraries")


@pytest.fixture(scope="module")
def package_host(tmp_path_factory):
    """A server standing in for Pyodide's package host: another origin, with the CORS header a CDN sends."""
    folder = tmp_path_factory.mktemp("package_host")
    wheel = find_wheel(lite_wheels_dir(), STAND_IN_PACKAGE)
    assert wheel is not None, "scripts/setup.d/lite.sh downloads it"
    shutil.copyfile(wheel, folder / wheel.name)
    s = Server(roots={"": folder})
    s.headers = (("Access-Control-Allow-Origin", "*"),)
    yield s
    s.close()


@pytest.fixture(scope="module")
def page(webtorch_playwright, package_host):
    server = NotebookServer(packages_url=package_host.url + "/")
    browser = launch(webtorch_playwright)
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    open_app(pg, server.app_url)
    new_notebook(pg)
    yield pg
    browser.close()
    server.close()


def _bars(page, index):
    return cells(page).nth(index).locator(".output progress")


def test_tqdm_bars_are_live_nested_and_one_line_each(page, shots):
    code = """import time
from tqdm import tqdm
from tqdm.auto import tqdm as auto_tqdm, trange
from tqdm.notebook import tqdm as notebook_tqdm
for epoch in trange(2, desc="epochs"):
    for batch in auto_tqdm(range(3), desc=f"epoch {epoch}"):
        time.sleep(0.3)
with tqdm(total=5, desc="manual", unit="img") as bar:
    bar.update(5)
    bar.set_postfix(loss=0.25)
for _ in notebook_tqdm(range(2), desc="hidden when done", leave=False):
    pass
print(type(bar).__mro__[1].__module__)"""
    set_source(page, 0, code)
    page.keyboard.press("Control+Enter")
    # live: a bar is on the page while the cell still runs
    page.wait_for_function("() => document.querySelector('.cell.running .output progress') !== null")
    wait_done(page)
    full_screenshot(page, shots / "tqdm.png")
    texts = cells(page).nth(0).locator(".output .progress-text").all_inner_texts()
    assert len(texts) == 4, texts  # epochs, one bar per epoch (nested), manual; the leave=False one emptied
    assert texts[0].startswith("epochs: 2/2") and texts[1].startswith("epoch 0: 3/3")
    assert texts[2].startswith("epoch 1: 3/3") and texts[3].startswith("manual: 5/5") and "loss=0.25" in texts[3]
    bars = _bars(page, 0)
    assert [bars.nth(i).get_attribute("value") for i in range(4)] == ["2", "3", "3", "5"]
    out = cells(page).nth(0).locator(".outputs").inner_text()
    assert "tqdm.asyncio" in out  # PyPI's tqdm class underneath, not a look-alike
    assert "hidden when done" not in out and "\r" not in out
    assert not page.errors, page.errors


def test_a_package_from_the_package_url(page, package_host, shots):
    out = run_code(page, "import six\nprint('six', six.__version__, six.__file__)", index=0)
    full_screenshot(page, shots / "package_url.png")
    assert "six 1.17.0" in out, out
    assert "loading six: 1/1" in out  # the progress line of the load
    assert page.evaluate("webtorchNotebook.ipynb().cells[0].outputs.length") == 2


def test_a_package_nowhere_gives_an_error_naming_it_and_the_way_out(page, package_host, shots):
    out = run_code(page, "import numpy as np", index=0)
    full_screenshot(page, shots / "package_missing.png")
    err = cells(page).nth(0).locator(".output-error").inner_text()
    assert "ModuleNotFoundError: No module named 'numpy'" in err, out
    assert "Pyodide's package 'numpy'" in err and "/pyodide/" in err and package_host.url in err
    assert "webtorch.notebook.LinePlot" in err and "show_image" in err
    assert 'device "cpu" runs on WebAssembly' in err  # tensors need no NumPy, on either device
    # the user's line and the message only: no frame of the import machinery, no load still "in progress"
    lines = err.splitlines()
    assert lines[0] == "Traceback (most recent call last):" and lines[1].startswith('  File "<cell '), err
    assert lines[2] == "    import numpy as np" and lines[3].startswith("ModuleNotFoundError"), err
    assert len(lines) == 4 and "packages.py" not in err, err
    assert "loading numpy" not in out and not cells(page).nth(0).locator(".output progress").count(), out
    # asked again: the same error at once, without fetching again
    assert "No module named 'numpy'" in run_code(page, "import numpy", index=0)


def test_run_browser_takes_a_package_url(package_host, tmp_path):
    """`webtorch run --browser --packages-url URL`: the script's imports are loaded before it runs."""
    script = tmp_path / "uses_packages.py"
    script.write_text("import six\nprint('six', six.__version__)\nimport numpy\n")
    r = subprocess.run([sys.executable, "-m", "webtorch_devtools", "run", "--browser", "--packages-url",
                        package_host.url + "/", str(script)], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 1 and r.stdout == "six 1.17.0\n", (r.stdout, r.stderr)
    assert "webtorch: loading Pyodide packages numpy, six: 1/2" in r.stderr, r.stderr
    last = r.stderr.rstrip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: No module named 'numpy': it is Pyodide's package 'numpy'"), last
    assert package_host.url in last and "LinePlot" in last
