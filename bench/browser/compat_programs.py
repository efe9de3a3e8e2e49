"""The in-page half of bench/bench_device_policy.py --browser: runs the compat programs copied beside it (NAME.py,
their initial weights as NAME.pt) unmodified, ``import torch`` -> webtorch, under one device option, and prints
each program's RESULTS line and seconds.

    argv: JSON {"names": [...], "args": {name: [...]}, "cpu_backend": "wasm" | "numpy", "default": "cpu" | "webgpu",
                "accelerator": "webgpu" | null, "cuda": "webgpu" | null}
"""
import json
import runpy
import sys
import time

import webtorch
import webtorch.compat
from webtorch import _device

CFG = json.loads(sys.argv[1])
# the loader imported webtorch before this script (WEBTORCH_CPU_BACKEND is read then): no cpu backend exists yet,
# so naming the module here is what the environment variable would have done
_device._BACKEND_MODULES["cpu"] = _device._CPU_BACKENDS[CFG["cpu_backend"]]

webtorch.compat.alias_torch()
webtorch.accelerator.use_webgpu(CFG["accelerator"] == "webgpu")
webtorch.cuda.use_webgpu(CFG["cuda"] == "webgpu")
if CFG["default"] == "webgpu" and not webtorch.webgpu.is_available():
    raise SystemExit("this option needs WebGPU, and the browser has none")
webtorch.set_default_device(CFG["default"])
print("PAGE", json.dumps({"default": str(webtorch.get_default_device()),
                          "accelerator": str(webtorch.accelerator.current_accelerator(check_available=True)),
                          "cuda": webtorch.cuda.is_available()}))
for name in CFG["names"]:
    sys.argv = [f"{name}.py", *CFG["args"].get(name, []), "--init", f"{name}.pt"]
    print("PROGRAM", name, flush=True)
    t0 = time.perf_counter()
    try:
        runpy.run_path(f"{name}.py", run_name="__main__")
    except Exception as e:  # noqa: BLE001 -- a program that raises fails this option; the next one runs
        print("RESULTS", json.dumps({"check": {f"raised {type(e).__name__}: {str(e)[:200]}": False}}))
    print("SECONDS", time.perf_counter() - t0, flush=True)
