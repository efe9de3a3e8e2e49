"""webtorch inside Pyodide on the browser's WebGPU: tensors, autograd, readback (sync and async), a 200-step
training loop with flat memory."""
import json
from pathlib import Path

SCRIPTS = Path(__file__).parent / "scripts"


def _ok(r):
    assert r.status == 0, f"status {r.status}\n{r.stdout}\n{r.stderr}"
    return r


def test_tensor_computation_on_webgpu(webtorch_browser):
    r = _ok(webtorch_browser.run_source(
        "import sys\n"
        "import webtorch as torch\n"
        "assert sys.platform == 'emscripten'\n"
        "print(torch.get_default_device(), torch.webgpu.is_available(), torch.accelerator.current_accelerator())\n"
        "torch.set_default_device('webgpu')\n"
        "x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)\n"
        "y = (x @ x).relu().sum()\n"
        "y.backward()\n"
        "print(x.device.type, y.item(), x.grad.tolist())\n"
        "print(torch.arange(5).sum().item(), (torch.ones(3, dtype=torch.int32) * 7).tolist())\n"
        "s = torch.webgpu.stats()\n"
        "print(s['submits'] > 0, 'browser WebGPU' in s['adapter'], s['host_fallbacks'])\n"
        "import importlib.util\n"
        "print('numpy' if importlib.util.find_spec('numpy') else 'no numpy')\n"))
    assert r.stdout.splitlines() == ["cpu True webgpu", "webgpu 54.0 [[7.0, 11.0], [9.0, 13.0]]", "10 [7, 7, 7]",
                                     "True True 0", "no numpy"]


def test_async_readback_and_sync_error(webtorch_browser):
    r = _ok(webtorch_browser.run_source(
        "import js\n"
        "from pyodide.ffi import create_proxy, run_sync\n"
        "import webtorch as torch\n"
        "torch.set_default_device('webgpu')\n"
        "x = torch.linspace(0, 1, 5) * 4\n"
        "async def main():\n"
        "    await torch.webgpu.synchronize_async()\n"
        "    print(await x.tolist_async(), await x.sum().item_async(), await x[1:3].tolist_async())\n"
        "run_sync(main())\n"
        "def sync_read():\n"  # entered from JS synchronously: Pyodide cannot wait for the GPU there
        "    try:\n"
        "        (x + 1).tolist()\n"
        "    except RuntimeError as e:\n"
        "        return str(e)\n"
        "f = create_proxy(sync_read)\n"
        "print(js.Function.new('f', 'return f()')(f))\n"
        "f.destroy()\n"))
    lines = r.stdout.splitlines()
    assert lines[0] == "[0.0, 1.0, 2.0, 3.0, 4.0] 10.0 [1.0, 2.0]"
    assert "await t.numpy_async()" in lines[1] and "await webtorch.webgpu.synchronize_async()" in lines[1]


def test_sync_read_while_a_background_task_grows_pythons_memory(webtorch_browser):
    """A synchronous readback waits in run_sync; meanwhile the event loop runs other Python (the page's background
    tasks: the on-demand prefetch, the line-table restore) that may grow Pyodide's memory, which detaches every
    typed-array view of it taken before: the bridge takes its view of the destination when the data lands."""
    r = _ok(webtorch_browser.run_source(
        "import asyncio\n"
        "import webtorch as torch\n"
        "x = torch.arange(4096., device='webgpu') * 2\n"
        "held = []\n"
        "async def grow():\n"
        "    held.append(bytearray(512 * 1024 * 1024))  # past the heap's size: the wasm memory grows\n"
        "task = asyncio.ensure_future(grow())\n"
        "print(x.tolist()[4095], len(held), x.sum().item())\n"))
    assert r.stdout.splitlines() == ["8190.0 1 16773120.0"], r.stdout


def test_training_loop_200_steps_flat_memory(webtorch_browser):
    r = _ok(webtorch_browser.run(SCRIPTS / "train_loop.py", "200"))
    out = json.loads(r.stdout.strip().splitlines()[-1])
    losses, mem, tables = out["losses"], out["memory"], out["tables"]
    assert losses[-1] < 0.2 * losses[0], losses
    assert len(set(mem[1:])) == 1, mem  # flat after the first step
    assert len({t["buffers"] for t in tables[1:]}) == 1, tables  # no JS-side buffer growth
    assert max(t["bindGroups"] for t in tables) <= 8192, tables  # a bounded cache (bridge.js BIND_CACHE_MAX)
    assert len({t["pipelines"] for t in tables[1:]}) == 1, tables
    assert out["fallbacks"] == {}


def test_worker_runs_webgpu(webtorch_browser):
    r = _ok(webtorch_browser.run(SCRIPTS / "train_loop.py", "20", worker=True))
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["losses"][-1] < out["losses"][0]


def test_compile_error_reported_at_next_wait(webtorch_browser):
    r = _ok(webtorch_browser.run_source(
        "import webtorch as torch\n"
        "torch.set_default_device('webgpu')\n"
        "from webtorch.backends.webgpu import get_backend\n"
        "from webtorch.backends.webgpu.runtime import ShaderCompileError\n"
        "rt = get_backend().rt\n"
        "rt.compile('bad_kernel', '@compute @workgroup_size(1)\\nfn main() {\\n  let x: i32 = 1.5;\\n}\\n')\n"
        "try:\n"
        "    torch.webgpu.synchronize()\n"
        "except ShaderCompileError as e:\n"
        "    print(str(e).replace('\\n', ' | '))\n"
        "print((torch.ones(2) * 3).tolist())\n"))  # the device still works afterwards
    first, second = r.stdout.splitlines()
    assert "WGSL kernel 'bad_kernel' failed to compile" in first and "let x: i32 = 1.5;" in first, first
    assert second == "[3.0, 3.0]"


def test_device_errors_belong_to_their_flush(webtorch_browser):
    """bridge.js runs allocations and flushes inside error scopes: a failed allocation (SwiftShader cannot
    back a 1 GiB buffer) or an invalid dispatch is raised for the work that caused it, the next read after
    it works, and no invalid buffer is handed out again; a kernel's error word is read with the data."""
    r = _ok(webtorch_browser.run_source(
        "import webtorch as torch\n"
        "torch.set_default_device('webgpu')\n"
        "from webtorch.backends.webgpu import get_backend\n"
        "from webtorch.backends.webgpu.runtime import Batch, WebGPUError\n"
        "be = get_backend()\n"
        "def attempt(fn):\n"
        "    try:\n"
        "        fn()\n"
        "        print('no error')\n"
        "    except WebGPUError as e:\n"
        "        print(type(e).__name__, str(e).splitlines()[0][:90])\n"
        "    print((torch.ones(2) * 3).tolist())\n"
        "big = torch.empty(2 ** 28)\n"
        "attempt(lambda: big.fill_(1.0).sum().item())\n"
        "del big\n"
        "x = torch.ones(4) * 2\n"
        "torch.webgpu.synchronize()\n"
        "b = Batch()\n"
        "b.add(be.planner.pipeline('probe', 'fn x() {}\\n@compute @workgroup_size(1)\\nfn main() {}\\n'), [], b'',"
        " (1 << 20, 1, 1))\n"
        "attempt(lambda: (be.rt.run(b), torch.webgpu.synchronize()))\n"
        "try:\n"
        "    (torch.arange(3) * 4 - 5 + torch.arange(3)).gather(0, torch.tensor([0]) + 7).item()\n"
        "except RuntimeError as e:\n"
        "    print(str(e))\n"
        "print(x.tolist())\n"
        "from pyodide.ffi import run_sync\n"
        "async def main():\n"
        "    try:\n"
        "        await x.gather(0, torch.tensor([0]) + 9).sum().item_async()\n"
        "    except RuntimeError as e:\n"
        "        print(str(e))\n"
        "run_sync(main())\n"))
    lines = r.stdout.splitlines()
    assert lines[0].startswith("OutOfMemoryError webgpu out of memory: could not allocate 1073741824 bytes"), lines
    assert lines[1] == lines[3] == "[3.0, 3.0]", lines
    assert lines[2].startswith("WebGPUError WebGPU error:"), lines
    assert lines[4] == "index 7 is out of bounds for dimension 0 with size 3 (gather, checked on the webgpu device)"
    assert lines[5] == "[2.0, 2.0, 2.0, 2.0]"
    assert lines[6] == "index 9 is out of bounds for dimension 0 with size 4 (gather, checked on the webgpu device)"


def test_first_step_takes_the_warmed_pipelines(webtorch_browser):
    """web/loader.js reads the wheel's warm-up manifest and bridge.js builds those pipelines while Pyodide boots;
    the recorded MLP step (webtorch_devtools/warmup.py, run here as a file) then compiles none of them again."""
    from webtorch_devtools import warmup
    r = _ok(webtorch_browser.run_source(
        "import json, time\n"
        "from importlib import resources\n"
        "import js\n"
        "from pyodide.ffi import run_sync\n"
        "from recorded import _mlp_step\n"
        "b = js.webtorchBridge\n"
        "manifest = json.loads(resources.files('webtorch').joinpath('backends/webgpu/warmup.json').read_text())"
        "['cpu' if b.cpu else 'gpu']\n"
        "t = time.monotonic()\n"
        "while b.warmed.size < len(manifest) and time.monotonic() - t < 120:\n"
        "    run_sync(js.Promise.new(lambda ok, err: js.setTimeout(ok, 50)))\n"
        "_mlp_step()\n"
        "print(json.dumps([len(manifest), b.counters.warmHits or 0, b.warmed.size]))\n",
        files={"recorded.py": Path(warmup.__file__).read_text()}))
    n, hits, left = json.loads(r.stdout.strip().splitlines()[-1])
    assert n > 10 and hits == n and left == 0, (n, hits, left)
