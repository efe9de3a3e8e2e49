"""Run by tests/browser/test_wasm_threads_browser.py: device "cpu"'s GEMM and convolution on the page's wasm worker
threads equal one thread's bit for bit. argv[1]: the threads the page should get (2+ cross-origin isolated on a multi-core
machine, 1 otherwise). Prints one JSON line."""
import asyncio
import json
import sys

from pyodide.ffi import run_sync

import webtorch as torch
from webtorch.backends.wasm import get_backend

rt = get_backend().rt
want = int(sys.argv[1])
for _ in range(200):  # the workers start in the background (the event loop turns while this sleeps)
    if rt.threads() >= want:
        break
    run_sync(asyncio.sleep(0.05))
threads, parallel = rt.threads(), rt.parallel
calls = []
rt.parallel = lambda name, parts: (calls.append(len(parts)), parallel(name, parts))[1]

CASES = {  # name: (a, b) given randn's keywords; transposed operands are strided views
    "1024 square": lambda dt: (torch.randn(1024, 1024, **dt), torch.randn(1024, 1024, **dt)),
    "odd sizes": lambda dt: (torch.randn(333, 517, **dt), torch.randn(517, 259, **dt)),
    "a transposed": lambda dt: (torch.randn(517, 333, **dt).t(), torch.randn(517, 259, **dt)),
    "b transposed": lambda dt: (torch.randn(333, 517, **dt), torch.randn(259, 517, **dt).t()),
    "batched": lambda dt: (torch.randn(4, 130, 257, **dt), torch.randn(4, 257, 150, **dt)),
    "broadcast weight": lambda dt: (torch.randn(3, 200, 300, **dt), torch.randn(300, 70, **dt)),
    "few rows": lambda dt: (torch.randn(37, 2000, **dt), torch.randn(2000, 100, **dt)),
}
results = {}
for dtype in (torch.float32, torch.float64):
    for name, make in CASES.items():
        torch.manual_seed(0)
        a, b = make({"dtype": dtype, "device": "cpu"})
        before = len(calls)
        multi = (a @ b).tolist()
        split = len(calls) > before
        torch.set_num_threads(1)
        single = (a @ b).tolist()
        torch.set_num_threads(threads)
        results[f"{name} {dtype}"] = {"split": split, "equal": multi == single}
for dtype in (torch.float32, torch.float64):  # conv and its input gradient split their samples
    torch.manual_seed(0)
    x = torch.randn(9, 6, 32, 32, dtype=dtype, device="cpu", requires_grad=True)
    w = torch.randn(16, 6, 5, 5, dtype=dtype, device="cpu")
    runs = []
    for n in (threads, 1):
        torch.set_num_threads(n)
        before = len(calls)
        y = torch.nn.functional.conv2d(x, w, padding=1)
        (y * y).sum().backward()
        runs.append((y.tolist(), x.grad.tolist(), len(calls) - before))
        x.grad = None
    torch.set_num_threads(threads)
    results[f"conv2d {dtype}"] = {"split": runs[0][2] >= 2 and runs[1][2] == 0, "equal": runs[0][:2] == runs[1][:2]}
print(json.dumps({"threads": threads, "isolated": bool(__import__("js").crossOriginIsolated), "results": results}))
