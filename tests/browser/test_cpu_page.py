"""Device "cpu" in the page is the WebAssembly backend, and a browser without WebGPU trains: `webtorch run --browser`
in a Chromium whose WebGPU is off (launched without --enable-unsafe-webgpu: navigator.gpu exists but
requestAdapter() gives null) runs a script written for CPU/CUDA PyTorch (tests/browser/scripts/cuda_or_cpu.py) and
prints what CPython prints with the same kernels (WEBTORCH_CPU_BACKEND=wasm, through wasmtime): the same seeded
Philox stream, the same losses."""
import math
import os
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


def test_cuda_or_cpu_script_without_webgpu(tmp_path):
    native = _run([str(SCRIPT)], WEBTORCH_CPU_BACKEND="wasm")
    page = _run(["-m", "webtorch_devtools", "run", "--browser", str(SCRIPT)],
                WEBTORCH_CHROMIUM=str(no_webgpu_chromium(tmp_path)))
    assert page[0] == "device cpu default cpu accelerator False", page
    assert page[-1].startswith("numpy missing: Tensor.numpy() needs NumPy, and this Pyodide has none"), page
    assert native[-1] == "numpy ok"
    _same(native[:-1], page[:-1])
