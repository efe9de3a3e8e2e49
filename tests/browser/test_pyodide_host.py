"""webtorch in a Pyodide host that did not boot it with web/loader.js (as JupyterLite's kernel): Pyodide in a
module worker, the wheel unpacked, nothing else. webtorch installs its WebGPU bridge from the wheel, and a
kernel interrupt (the SharedArrayBuffer interrupt buffer, page served with COOP/COEP) stops a synchronous
``.item()`` loop with a clean KeyboardInterrupt, leaving the kernel usable."""
import time
from pathlib import Path

import pytest

from webtorch_devtools.chromium import launch
from webtorch_devtools.server import Server
from webtorch_devtools.wheel import build_wheel

HOST = Path(__file__).parent / "pyodide_host"

SYNC_ITEM_LOOP = """
import webtorch as torch
x = torch.randn(64, 64, device="webgpu", requires_grad=True)


def step():
    loss = ((x @ x).tanh() ** 2).mean()
    loss.backward()
    return loss.item()
"""
LOOP = """
import js
steps = 0
while True:  # a training-like loop that reads the loss back synchronously every step
    step()
    steps += 1
    if steps == 3:
        js.postMessage(js.Object.fromEntries([["progress", steps]]))
"""


@pytest.fixture(scope="module")
def host(tmp_path_factory, webtorch_playwright):
    wheel = build_wheel()
    server = Server(wheel, roots={"host": HOST}, cross_origin_isolated=True)
    browser = launch(webtorch_playwright)
    shots = tmp_path_factory.mktemp("pyodide_host")
    try:
        yield browser, server, wheel, shots
    finally:
        browser.close()
        server.close()


def _boot(host):
    browser, server, wheel, _ = host
    page = browser.new_page()
    page.goto(server.url + "/host/index.html")
    assert page.evaluate("hostIsolated()"), "the page is not cross-origin isolated (COOP/COEP headers missing)"
    page.evaluate("u => hostStart(u)", f"{server.url}/wheel/{wheel.name}")
    return page


def test_bridge_from_the_wheel_and_interrupt_during_sync_item(host):
    page = _boot(host)
    try:
        r = page.evaluate("hostRun(`import js, webtorch as torch\n"
                          "assert not hasattr(js.globalThis, 'webtorchBridge')\n"
                          "x = torch.arange(4.0, device='webgpu')\n"
                          "f'{torch.get_default_device()} {x.device} {(x * 2).sum().item()}'`)")
        assert r["ok"] and r["value"] == "cpu webgpu 12.0", r
        # the bridge webtorch made started compiling the wheel's warm-up kernels (as web/loader.js does)
        warmed = page.evaluate("hostRun('import asyncio, js\\nfor _ in range(200):\\n    if js.webtorchBridge.warmed.size:"
                               "\\n        break\\n    await asyncio.sleep(0.1)\\njs.webtorchBridge.warmed.size')")
        assert warmed["ok"] and int(warmed["value"]) > 0, warmed
        warm = page.evaluate("c => hostRun(c)", SYNC_ITEM_LOOP + "step()")  # the step's kernels compile here
        assert warm["ok"], warm
        run = page.evaluate_handle("c => ({ p: hostRun(c) })", LOOP)
        page.wait_for_function("window.hostProgress === 3", timeout=120000)  # well into the loop
        t0 = time.perf_counter()
        page.evaluate("hostInterrupt()")
        out = page.evaluate("h => Promise.race([h.p, new Promise(r => setTimeout(() => r('hung'), 20000))])", run)
        took = time.perf_counter() - t0
        assert out != "hung", "the interrupted sync-readback loop never settled"
        assert out["ok"] is False and "KeyboardInterrupt" in out["value"], out
        assert took < 10, took
        after = page.evaluate("hostRun('import webtorch as torch\\n"
                              "f\"{steps > 0} {(torch.ones(3, device=\\'webgpu\\') * 2).sum().item()}\"')")
        assert after["ok"] and after["value"] == "True 6.0", after
    except BaseException:
        page.screenshot(path=str(host[3] / "interrupt_failure.png"))
        raise
    finally:
        page.close()


def test_synchronous_entry_asks_for_init_async_then_works(host):
    page = _boot(host)
    try:
        first = page.evaluate("hostRun('import webtorch as torch\\ntorch.ones(2, device=\"webgpu\")', 'sync')")
        assert not first["ok"] and "await webtorch.webgpu.init_async()" in first["value"], first
        # the default device ("cpu") needs no browser answer; after init_async webgpu works from synchronous code
        cpu = page.evaluate("hostRun('str(torch.ones(2).device)', 'sync')")
        assert cpu["ok"] and cpu["value"] == "cpu", cpu
        ok = page.evaluate("hostRun('await torch.webgpu.init_async()')")
        assert ok["ok"] and ok["value"] == "true", ok
        dev = page.evaluate("hostRun('str(torch.ones(2, device=\"webgpu\").device)', 'sync')")
        assert dev["value"] == "webgpu", dev
    finally:
        page.close()


def test_cpu_from_the_wheel_even_when_entered_synchronously(host):
    """Device "cpu" (WebAssembly) needs nothing from web/loader.js and no await: webtorch compiles the wheel's
    kernels.wasm itself, even under a synchronous entry (runPython)."""
    page = _boot(host)
    try:
        r = page.evaluate("hostRun(`import js, webtorch as torch\n"
                          "from webtorch._device import backend_for\n"
                          "assert not hasattr(js.globalThis, 'webtorchWasmModule')\n"
                          "x = torch.arange(6.0, device='cpu').reshape(2, 3)\n"
                          "f'{(x @ x.t()).tolist()} {backend_for(\"cpu\").rt.stats[\"compiled_in_python\"]}'`, 'sync')")
        assert r["ok"] and r["value"] == "[[5.0, 14.0], [14.0, 50.0]] True", r
    finally:
        page.close()


def test_cpu_threads_from_the_packaged_host_script(host):
    """Where nothing imported wasm_host.js (no loader.js: its URL is unknown), device "cpu"'s worker threads run its
    packaged text from a blob: URL; a GEMM split across them gives one thread's bits."""
    page = _boot(host)
    try:
        r = page.evaluate("hostRun(`import asyncio, js, webtorch as torch\n"
                          "from webtorch._device import backend_for\n"
                          "assert not hasattr(js.globalThis, 'webtorchWasmHostUrl')\n"
                          "rt = backend_for('cpu').rt\n"
                          "for _ in range(200):\n"
                          "    if rt.threads() >= 2:\n"
                          "        break\n"
                          "    await asyncio.sleep(0.05)\n"
                          "x = torch.randn(300, 300, device='cpu')\n"
                          "multi = (x @ x).tolist()\n"
                          "torch.set_num_threads(1)\n"
                          "single = (x @ x).tolist()\n"
                          "torch.set_num_threads(rt.threads())\n"
                          "f'{rt.threads() >= 2} {multi == single}'`)")
        assert r["ok"] and r["value"] == "True True", r
    finally:
        page.close()
