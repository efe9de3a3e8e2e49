"""The notebook app (web/notebook/) in headless Chromium, driven through its UI: running notebooks (the app's
fixture and every tutorial in examples/notebooks/), streaming, interrupt, restart, autosave, .ipynb round
trip (validated with nbformat), files up and down, keyboard shortcuts, the no-WebGPU message.

One server and one browser page serve the whole module (each kernel boot costs seconds on 2 cores);
screenshots of each notebook's final state, and of any failure, go under the test run's tmp folder."""
import json
from pathlib import Path

import nbformat
import pytest
import torch

from webtorch_devtools.chromium import find_chromium, launch
from webtorch_devtools.notebook_app import CSP, NotebookServer, notebooks_dir

from notebook_ui import (KERNEL_BOOT_MS, cells, full_screenshot, new_notebook, open_app, outputs_summary, run_all,
                         run_code, screenshot_if_failed, set_source, wait_devices, wait_done,
                         wait_idle)

FIXTURE = Path(__file__).parent / "fixtures" / "tiny_mlp.ipynb"
TUTORIALS = sorted(notebooks_dir().glob("*.ipynb")) if notebooks_dir() and notebooks_dir().is_dir() else []


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("notebook_screenshots")


@pytest.fixture(scope="module")
def server():
    s = NotebookServer(FIXTURE)
    yield s
    s.close()


@pytest.fixture(scope="module")
def browser(webtorch_playwright):
    b = launch(webtorch_playwright)
    yield webtorch_playwright, b
    b.close()


@pytest.fixture(scope="module")
def page(browser, server, shots):
    context = browser[1].new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    open_app(pg, server.app_url)
    yield pg
    context.close()


@pytest.fixture(autouse=True)
def screenshot_on_failure(request, shots):
    yield
    screenshot_if_failed(request, shots)


def _check_ran_clean(page, name, shots, min_images=0, min_plots=0):
    s = outputs_summary(page)
    full_screenshot(page, shots / f"{name}.png")
    assert not s["errors"], f"{name}: error outputs:\n" + "\n---\n".join(s["errors"])
    assert all(p not in ("[ ]:", "[*]:") for p in s["prompts"]), f"{name}: cells not run: {s['prompts']}"
    assert s["images"] >= min_images and s["plots"] >= min_plots, f"{name}: outputs {s}"
    assert not page.errors, page.errors
    return s


def test_runs_the_opened_notebook(page, shots):
    """`webtorch notebook PATH` opens PATH; Run all trains with a live plot, a progress bar and images."""
    assert page.locator("#nb-name").input_value() == "tiny_mlp"
    run_all(page)
    s = _check_ran_clean(page, "tiny_mlp", shots, min_images=1, min_plots=1)
    assert s["progress"] >= 1
    text = page.inner_text("#notebook")
    assert "Sequential(" in text and "step 25: loss" in text and "30/30" in text
    losses = [float(line.split("loss ")[1]) for line in text.splitlines() if line.startswith("step ")]
    assert losses[-1] < losses[0], losses
    dev = page.inner_text("#device-info")
    assert "swiftshader" in dev.lower() and "CPU fallback" in dev and "alias on" in dev
    dispatches = int(dev.split("dispatches, last cell")[1].split()[0])
    assert dispatches > 0


def _panel_shows(page, text):
    page.wait_for_function("t => document.getElementById('device-info').innerText.includes(t)", arg=text,
                           timeout=KERNEL_BOOT_MS)
    return page.inner_text("#device-info")


def test_kernel_starts_first_and_warms_up_once_ready(page):
    """The kernel's worker starts before the app's own code (web/notebook/kernel_start.js, ahead of app.js), and the
    webgpu warm-up (the first training step's kernels) starts only once the kernel is ready -- begun with Pyodide's
    boot, its compiles took the CPU from it -- and a first step still takes its pipelines."""
    page.click("[data-action=restart]")
    wait_idle(page, KERNEL_BOOT_MS)
    order = page.evaluate("() => [...document.querySelectorAll('script[type=module]')].map((s) => s.src.split('/').pop())")
    assert order == ["kernel_start.js", "app.js"], order
    new_notebook(page)
    out = run_code(page, (
        "import asyncio, js, json\nb = js.webtorchBridge\n"
        "for _ in range(600):\n    if getattr(b, 'warmDoneAt', None):\n        break\n    await asyncio.sleep(0.1)\n"
        "import webtorch as torch\nm = torch.nn.Linear(8, 4).to('webgpu')\nopt = torch.optim.Adam(m.parameters())\n"
        "loss = m(torch.randn(16, 8, device='webgpu')).square().mean()\nloss.backward()\nopt.step()\nloss.item()\n"
        "print(json.dumps([b.warmStartAt, b.warmDoneAt, b.counters.warmHits or 0]))"))
    warm_start, warm_done, hits = json.loads(out.strip().splitlines()[-1])
    t = page.evaluate("() => webtorchNotebook.kernel.info.timings")
    kernel_set_up_at = t["timeOrigin"] + t["startMs"] + t["kernelMs"]  # epoch ms, the worker's clock
    assert kernel_set_up_at <= warm_start <= warm_done, (kernel_set_up_at, warm_start, warm_done)
    assert hits > 0, out


def test_device_panel_says_where_code_lands_and_switches_cuda(page):
    """The device panel: the default device ("cpu", as PyTorch's), torch.accelerator (webgpu), what "cuda" names
    and why (nothing on this CPU-fallback adapter, the "auto" setting); the switch restarts the kernel with "cuda"
    naming webgpu, and back."""
    dev = _panel_shows(page, "CPU fallback, where")
    assert "default device\ncpu" in dev and "as PyTorch's" in dev, dev
    assert "webgpu (torch.accelerator)" in dev and "unavailable (torch.cuda.is_available() is False)" in dev, dev
    assert page.locator("#cuda-alias").input_value() == "auto"
    page.select_option("#cuda-alias", "webgpu")
    dev = _panel_shows(page, "switched on")
    assert "→ webgpu (torch.cuda.is_available() is True)" in dev, dev
    new_notebook(page)
    out = run_code(page, "import torch\ndevice = 'cuda' if torch.cuda.is_available() else 'cpu'\n"
                         "torch.nn.Linear(2, 1).to(device).weight.device, torch.ones(2).cuda().is_cuda")
    assert "(device(type='webgpu'), True)" in out, out
    page.select_option("#cuda-alias", "auto")
    _panel_shows(page, "CPU fallback, where")
    wait_idle(page, KERNEL_BOOT_MS)


@pytest.mark.parametrize("path", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_runs(page, shots, path):
    page.click("[data-action=restart]")
    wait_idle(page, KERNEL_BOOT_MS)
    page.locator("#tutorial-list a", has_text=path.stem.replace("_", " ")).first.click()
    page.wait_for_function("n => document.getElementById('nb-name').value === n", arg=path.stem)
    run_all(page, timeout=600_000)
    nb = json.loads(path.read_text())
    has_images = any("show_image" in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    has_plots = any("LinePlot" in "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    _check_ran_clean(page, f"tutorial-{path.stem}", shots, min_images=int(has_images), min_plots=int(has_plots))


def test_output_streams_while_the_cell_runs(page):
    new_notebook(page)
    set_source(page, 0, "import time\nfor i in range(6):\n    print('line', i)\n    time.sleep(0.4)\n'end'")
    page.keyboard.press("Control+Enter")
    page.wait_for_function("() => document.querySelector('.cell .outputs').innerText.includes('line 1')", timeout=30_000)
    assert page.evaluate("document.body.dataset.kernel") == "busy"
    assert "end" not in cells(page).nth(0).locator(".outputs").inner_text()
    wait_done(page)
    out = cells(page).nth(0).locator(".outputs").inner_text()
    assert "line 5" in out and "'end'" in out


def test_device_cpu_runs_a_gemm_on_worker_threads_under_the_apps_policy(page):
    """The kernel (a Web Worker under the app's CSP, worker-src 'self') starts device cpu's WebAssembly worker
    threads from wasm_host.js beside loader.js; a GEMM split across them gives one thread's bits."""
    new_notebook(page)
    out = run_code(page, "import asyncio, torch\nfrom pyodide.ffi import run_sync\n"
                         "from webtorch.backends.wasm import get_backend\nrt = get_backend().rt\n"
                         "for _ in range(200):\n    if rt.threads() >= 2:\n        break\n"
                         "    run_sync(asyncio.sleep(0.05))\n"
                         "a, b = torch.randn(512, 512, device='cpu'), torch.randn(512, 512, device='cpu')\n"
                         "multi = (a @ b).tolist()\ntorch.set_num_threads(1)\nsingle = (a @ b).tolist()\n"
                         "torch.set_num_threads(rt.threads())\nprint('threads >= 2', rt.threads() >= 2, multi == single)")
    assert "threads >= 2 True True" in out, out


def _timed_interrupt(page, timeout_ms):
    """Click Interrupt; seconds from the click to the kernel's idle status, timed in the page (the driver's
    round trips on a loaded machine are not the kernel's)."""
    page.evaluate("""() => {
      window.__interrupt = {};
      document.querySelector("[data-action=interrupt]").addEventListener("click",
        () => { window.__interrupt.t0 ??= performance.now(); }, { capture: true, once: true });
      new MutationObserver((_, obs) => {
        if (document.body.dataset.kernel === "idle") { window.__interrupt.t1 = performance.now(); obs.disconnect(); }
      }).observe(document.body, { attributes: true, attributeFilter: ["data-kernel"] });
    }""")
    page.click("[data-action=interrupt]")
    page.wait_for_function("() => window.__interrupt.t1 !== undefined", timeout=timeout_ms)
    return page.evaluate("(window.__interrupt.t1 - window.__interrupt.t0) / 1000")


def test_interrupt_stops_an_infinite_loop_and_the_kernel_stays(page):
    new_notebook(page)
    run_code(page, "x = 41")
    set_source(page, 0, "n = 0\nwhile True:\n    n += 1")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("body[data-kernel=busy]")
    page.wait_for_timeout(700)
    took = _timed_interrupt(page, 5_000)
    assert took < 1.0, f"interrupt took {took:.2f} s"
    assert "KeyboardInterrupt" in cells(page).nth(0).locator(".output-error").inner_text()
    assert run_code(page, "x + 1, n > 0").strip() == "(42, True)"


def test_restart_clears_state_and_counts(page):
    new_notebook(page)
    run_code(page, "y = 5")
    page.click("[data-action=restart]")
    wait_idle(page, KERNEL_BOOT_MS)
    assert "NameError" in run_code(page, "y")
    assert cells(page).nth(0).locator(".prompt").inner_text() == "[1]:"


def test_keyboard_shortcuts(page):
    new_notebook(page)
    set_source(page, 0, "1 + 1")
    page.keyboard.press("Shift+Enter")  # runs, adds a cell below and edits it
    wait_done(page)
    assert cells(page).count() == 2
    assert cells(page).nth(0).locator(".outputs").inner_text().strip() == "2"
    page.keyboard.insert_text("'second'")
    page.keyboard.press("Escape")
    page.keyboard.press("a")  # above the second
    assert cells(page).count() == 3
    page.keyboard.press("m")  # to Markdown
    page.keyboard.press("Enter")
    page.keyboard.insert_text("# Title *here*\n\nmath: $E = mc^2$, money: $5 and $6")
    page.keyboard.press("Shift+Enter")
    assert page.locator(".cell.markdown.rendered-md h1").inner_text() == "Title here"
    assert page.locator(".cell.markdown.rendered-md .katex").count() == 1
    assert "money: $5 and $6" in page.locator(".cell.markdown.rendered-md p").inner_text()
    page.keyboard.press("Escape")
    page.keyboard.press("k")  # select the Markdown cell again
    page.keyboard.press("b")
    assert cells(page).count() == 4
    page.keyboard.press("d")
    page.keyboard.press("d")
    assert cells(page).count() == 3
    assert page.locator(".cell.markdown").count() == 1


def test_ipynb_round_trip(page, tmp_path):
    new_notebook(page)
    run_code(page, "from webtorch.notebook import show_image, LinePlot\nimport torch\nprint('hello')\n"
                   "p = LinePlot(title='p')\nfor i in range(3): p.append(i, loss=1.0 / (i + 1))\n"
                   "show_image(torch.rand(2, 1, 4, 4))\ntorch.ones(2)")
    page.locator("#nb-name").fill("round trip")
    page.locator("#nb-name").press("Enter")
    with page.expect_download() as dl:
        page.click("[data-action=download]")
    path = tmp_path / "rt.ipynb"
    dl.value.save_as(path)
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.nbformat_minor == 5
    outs = nb.cells[0].outputs
    kinds = [o.output_type for o in outs]
    assert kinds == ["stream", "display_data", "display_data", "execute_result"], kinds
    assert outs[0].text == "hello\n"
    assert "image/png" in outs[1].data, "a plot is saved with a PNG snapshot for Jupyter"
    assert outs[1].data["application/vnd.webtorch.plot+json"]["series"]["loss"][-1] == pytest.approx(1 / 3)
    assert "image/png" in outs[2].data
    assert outs[3].data["text/plain"] == "tensor([1., 1.])"
    # back in: the same cells and outputs
    page.set_input_files("#open-input", str(path))
    page.wait_for_function("() => document.getElementById('nb-name').value === 'rt'")
    assert page.locator(".cell .output img").count() >= 1
    assert "tensor([1., 1.])" in page.inner_text("#notebook")


def test_autosave_survives_reload(page):
    new_notebook(page)
    set_source(page, 0, "autosaved_marker = 1")
    page.wait_for_function("() => document.getElementById('save-state').textContent === 'autosaved'", timeout=10_000)
    page.reload()
    wait_idle(page, KERNEL_BOOT_MS)
    assert "autosaved_marker = 1" in page.inner_text("#notebook")
    assert page.locator("#local-list li").count() >= 2


def test_upload_a_checkpoint_and_download_one(page, tmp_path):
    torch.manual_seed(0)
    ref = torch.nn.Linear(3, 2)
    torch.save(ref.state_dict(), tmp_path / "ckpt.pt")
    page.set_input_files("#upload-input", str(tmp_path / "ckpt.pt"))
    page.wait_for_selector("#file-list li:has-text('ckpt.pt')")
    new_notebook(page)
    out = run_code(page, "import torch\nm = torch.nn.Linear(3, 2)\nm.load_state_dict(torch.load('ckpt.pt'))\n"
                         "with torch.no_grad():\n    m.weight.mul_(2)\ntorch.save(m.state_dict(), 'trained.pt')\n"
                         "m.weight.sum().item()")
    assert float(out) == pytest.approx(2 * ref.weight.sum().item(), rel=1e-5)
    page.wait_for_selector("#file-list li:has-text('trained.pt')")
    with page.expect_download() as dl:
        page.locator("#file-list li", has_text="trained.pt").locator("button[title=Download]").click()
    dl.value.save_as(tmp_path / "trained.pt")
    sd = torch.load(tmp_path / "trained.pt")
    torch.testing.assert_close(sd["weight"], 2 * ref.weight.detach())
    torch.testing.assert_close(sd["bias"], ref.bias.detach())


def test_no_webgpu_message(browser, server, shots):
    p, _ = browser
    b = p.chromium.launch(executable_path=find_chromium(), headless=True,
                          args=["--no-sandbox", "--disable-background-networking", "--no-first-run"])
    try:
        pg = b.new_page()
        pg.goto(server.app_url)
        pg.wait_for_selector("#banner:not([hidden])", timeout=KERNEL_BOOT_MS)
        pg.screenshot(path=str(shots / "no-webgpu.png"))
        text = pg.inner_text("#banner")
        assert "WebGPU is not available" in text and "cpu" in text
        wait_idle(pg, KERNEL_BOOT_MS)
        wait_devices(pg)
        panel = pg.inner_text("#device-info")
        assert "not available" in panel and "WebAssembly" in panel and "no WebGPU adapter" in panel, panel
        assert "default device\ncpu" in panel and "unavailable: this browser has no WebGPU adapter" in panel, panel
        new_notebook(pg)
        out = run_code(pg, "import torch\ntorch.ones(2) * 2")  # device "cpu": the WebAssembly backend
        assert "tensor([2., 2.])" in out, out
    finally:
        b.close()


def test_cli_serves_and_prints_the_url():
    import subprocess
    import sys
    import urllib.request
    proc = subprocess.Popen([sys.executable, "-m", "webtorch_devtools", "notebook", str(FIXTURE), "--no-open"],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("webtorch notebook: http://127.0.0.1:"), line
        url = line.split(": ", 1)[1].strip()
        assert url.endswith("?open=/opened/tiny_mlp.ipynb")
        with urllib.request.urlopen(url) as r:
            assert r.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
            assert b"webtorch notebook" in r.read()
    finally:
        proc.terminate()
        proc.wait(10)


def test_static_site_without_isolation_restarts_on_interrupt(browser, tmp_path, shots):
    """`webtorch notebook --build DIR` on a plain static server (no COOP/COEP): the app boots from the site's
    own files, and interrupt falls back to restarting the kernel, saying so."""
    import functools
    import subprocess
    import sys
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "webtorch_devtools", "notebook", "--build", str(site)], check=True)
    assert (site / "index.html").is_file() and (site / "notebook-config.json").is_file()
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in (site / "web/notebook/index.html").read_text()
    assert f"/web/*\n  Content-Security-Policy: {CSP}; frame-ancestors 'none'\n" in (site / "_headers").read_text()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(SimpleHTTPRequestHandler, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    context = browser[1].new_context()
    try:
        pg = context.new_page()
        open_app(pg, f"http://127.0.0.1:{httpd.server_address[1]}/")
        assert pg.evaluate("crossOriginIsolated") is False
        # the meta tag's policy holds on a host that sends no headers: an inline handler does not run
        assert pg.evaluate("""() => new Promise((resolve) => {
          const img = document.createElement('img');
          img.setAttribute('onerror', 'window.__inline = 1');
          img.addEventListener('error', () => setTimeout(() => resolve(window.__inline ?? 'blocked'), 100));
          img.src = 'data:,';
          document.body.append(img);
        })""") == "blocked"
        assert "restarts the kernel" in pg.inner_text("#device-info")
        new_notebook(pg)  # a first visit opens the first tutorial, when the site has tutorials
        set_source(pg, 0, "while True:\n    pass")
        pg.keyboard.press("Control+Enter")
        pg.wait_for_selector("body[data-kernel=busy]")
        pg.click("[data-action=interrupt]")
        pg.wait_for_selector("#banner:not([hidden])")
        assert "restarted" in pg.inner_text("#banner")
        wait_idle(pg, KERNEL_BOOT_MS)
        assert run_code(pg, "21 * 2").strip() == "42"
        pg.screenshot(path=str(shots / "static-site.png"))
    finally:
        context.close()
        httpd.shutdown()


def test_save_writes_the_opened_file_back(browser, tmp_path):
    import shutil
    nb_path = tmp_path / "mine.ipynb"
    shutil.copyfile(FIXTURE, nb_path)
    s = NotebookServer(nb_path)
    context = browser[1].new_context()
    try:
        pg = context.new_page()
        pg.goto(s.app_url)
        pg.wait_for_selector("[data-action=save-file]:not([hidden])")
        set_source(pg, 1, "print('edited in the app')")
        pg.keyboard.press("Escape")
        pg.keyboard.press("Control+s")
        pg.wait_for_function("() => document.getElementById('save-state').textContent === 'saved to disk'")
        nb = nbformat.read(nb_path, as_version=4)
        nbformat.validate(nb)
        assert nb.cells[1].source == "print('edited in the app')"
        assert len(nb.cells) == len(nbformat.read(FIXTURE, as_version=4).cells)
        other = pg.evaluate("fetch('/notebooks/x.ipynb', {method: 'PUT', body: '{}'}).then((r) => r.status)")
        assert other == 403
    finally:
        context.close()
        s.close()


def test_interrupt_a_training_loop_with_item_readbacks(page):
    """A loop that reads the loss back every step (synchronous .item(), run_sync) stops within a second too,
    and the kernel keeps computing correctly (needs runtime_browser's deferred SIGINT during run_sync)."""
    new_notebook(page)
    set_source(page, 0, "import torch\nm = torch.nn.Linear(4, 1).to('webgpu')\nopt = torch.optim.SGD(m.parameters(), lr=0.01)\n"
                        "x = torch.randn(8, 4, device='webgpu')\nsteps = 0\nwhile True:\n    loss = m(x).pow(2).mean()\n"
                        "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n    loss.item()\n    steps += 1")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("body[data-kernel=busy]")
    page.wait_for_timeout(1500)
    took = _timed_interrupt(page, 10_000)
    assert took < 1.0, f"interrupt took {took:.2f} s"
    assert "KeyboardInterrupt" in cells(page).nth(0).locator(".output-error").inner_text()
    out = run_code(page, "import math\nsteps > 0, math.isfinite(loss.item()), (torch.ones(3, device='webgpu') * 2).sum().item()")
    assert out.strip() == "(True, True, 6.0)"
