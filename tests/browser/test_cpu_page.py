"""Which device code lands on in the page, and device "cpu" there (the WebAssembly backend):
- with WebGPU (SwiftShader, a CPU fallback): the default device is "cpu" as PyTorch's, torch.accelerator is webgpu,
  "cuda" names nothing (the alias is off on a CPU fallback) until ``webtorch.cuda.use_webgpu()`` / ``--cuda webgpu``
  turn it on, and the notebook's device panel (webtorch.notebook.devices) says so;
- a script written for CPU/CUDA PyTorch (tests/browser/scripts/cuda_or_cpu.py: ``"cuda" if
  torch.cuda.is_available() else "cpu"``) prints what CPython prints with the same seed (one Philox stream): on
  webgpu through the cuda alias, and on "cpu" in a Chromium whose WebGPU is off (launched without
  --enable-unsafe-webgpu: navigator.gpu exists but requestAdapter() gives null), where "cuda" stays unavailable even
  when asked for, against CPython with the same kernels (WEBTORCH_CPU_BACKEND=wasm, through wasmtime)."""
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

from webtorch_devtools.chromium import find_chromium

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "browser" / "scripts" / "cuda_or_cpu.py"


def no_webgpu_chromium(folder):
    """A Chromium executable that drops --enable-unsafe-webgpu from its arguments (a browser without WebGPU)."""
    wrapper = Path(folder) / "chromium-without-webgpu"
    wrapper.write_text("#!/bin/sh\n"
                       'for a in "$@"; do shift; [ "$a" = "--enable-unsafe-webgpu" ] || set -- "$@" "$a"; done\n'
                       f'exec "{find_chromium()}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def _run(args, **env):
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "PYTHONPATH": str(ROOT / "py"), **env})
    assert r.returncode == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout.splitlines()


def _same(native, page):
    """Lines equal, numbers within float32 rounding of a different summation order."""
    assert len(native) == len(page), (native, page)
    for a, b in zip(native, page):
        wa, wb = a.split(), b.split()
        assert len(wa) == len(wb), (a, b)
        for u, v in zip(wa, wb):
            try:
                fu, fv = float(u), float(v)
            except ValueError:
                assert u == v, (a, b)
                continue
            assert math.isclose(fu, fv, rel_tol=1e-4, abs_tol=1e-5), (a, b)


POLICY = """
import json
import webtorch as torch
from webtorch.notebook.devices import page_devices
out = {"default": str(torch.get_default_device()), "accelerator": str(torch.accelerator.current_accelerator()),
       "cuda": torch.cuda.is_available(), "cuda_type": torch.device("cuda").type, "panel": page_devices()}
try:
    torch.zeros(1).cuda()
except RuntimeError as e:
    out["cuda_error"] = str(e)
torch.cuda.use_webgpu()  # the switch: on wherever WebGPU is
x = torch.zeros(2).cuda()
out["on"] = {"cuda": torch.cuda.is_available(), "x": str(x.device), "is_cuda": x.is_cuda,
             "model": str(torch.nn.Linear(2, 2).cuda().weight.device), "panel": page_devices()}
torch.cuda.use_webgpu(False)
out["off"] = torch.cuda.is_available()
print(json.dumps(out))
"""


def test_page_policy_on_a_cpu_fallback_adapter(webtorch_browser):
    r = webtorch_browser.run_source(POLICY)
    assert r.status == 0, f"{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert (out["default"], out["accelerator"], out["cuda"], out["cuda_type"]) == ("cpu", "webgpu", False, "cuda"), out
    assert out["cuda_error"].startswith("Torch not compiled with CUDA enabled"), out
    panel = out["panel"]
    assert panel["default"] == "cpu" and panel["accelerator"] == "webgpu" and panel["cuda"] is None, panel
    assert "SwiftShader" in panel["webgpu"] or "swiftshader" in panel["webgpu"].lower(), panel
    assert panel["cuda_why"] == ("the WebGPU adapter is a CPU fallback, where \"cpu\" trains faster; "
                                 "webtorch.cuda.use_webgpu() turns it on"), panel
    assert panel["why"].startswith("as PyTorch's: code reaches WebGPU by naming it"), panel
    assert re.match(r"WebAssembly \(kernels\.wasm, SIMD128, \d+ threads? for GEMMs; \d+ KiB", panel["cpu"]), panel
    on = out["on"]
    assert on["cuda"] and on["x"] == "webgpu" and on["is_cuda"] and on["model"] == "webgpu", on
    assert on["panel"]["cuda"] == "webgpu" and on["panel"]["cuda_why"].startswith("switched on"), on
    assert out["off"] is False


def test_cuda_idiom_trains_on_webgpu_with_cpythons_numbers(tmp_path):
    """--cuda webgpu (the alias asked for on this CPU-fallback adapter): the script picks "cuda", trains on
    webgpu, and prints the losses and predictions CPython prints with the alias on (WEBTORCH_CUDA=webgpu: wgpu-py)
    within float32 rounding. (Each device has its own default generator, as in PyTorch: the dropout masks drawn on
    webgpu are not the ones drawn on cpu, so the cpu run's losses differ.)"""
    native = _run([str(SCRIPT)], WEBTORCH_CUDA="webgpu")
    page = _run(["-m", "webtorch_devtools", "run", "--browser", "--cuda", "webgpu", str(SCRIPT)])
    assert native[0] == "device cuda default cpu accelerator False", native
    assert page[0] == "device cuda default cpu accelerator True", page
    _same(native[1:-1], page[1:-1])


def test_cuda_or_cpu_script_without_webgpu(tmp_path):
    native = _run([str(SCRIPT)], WEBTORCH_CPU_BACKEND="wasm")
    # "cuda" asked for, but without WebGPU there is nothing for it to name: the script takes "cpu"
    page = _run(["-m", "webtorch_devtools", "run", "--browser", "--cuda", "webgpu", str(SCRIPT)],
                WEBTORCH_CHROMIUM=str(no_webgpu_chromium(tmp_path)))
    assert page[0] == "device cpu default cpu accelerator False", page
    assert page[-1].startswith("numpy missing: Tensor.numpy() needs NumPy, and this Pyodide has none"), page
    assert native[-1] == "numpy ok"
    _same(native[:-1], page[:-1])
