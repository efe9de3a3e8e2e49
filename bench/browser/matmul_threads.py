"""The measured half of bench/bench_browser_threads.py, run in a cross-origin isolated page: device "cpu"'s matmul
GFLOP/s with every worker thread (torch's default) and on one thread (torch.set_num_threads(1)), in interleaved
rounds. argv: rounds, products per round and mode, sizes (comma-separated). Prints one JSON line."""
import asyncio
import json
import sys
import time

from pyodide.ffi import run_sync

import webtorch as torch
from webtorch.backends.wasm import get_backend

rt = get_backend().rt
for _ in range(200):  # the workers start in the background (the event loop turns while this sleeps)
    if rt.threads() >= 2:
        break
    run_sync(asyncio.sleep(0.05))
threads = rt.threads()
rounds, reps, sizes = int(sys.argv[1]), int(sys.argv[2]), [int(n) for n in sys.argv[3].split(",")]
torch.manual_seed(0)
gflops = {}
for n in sizes:
    a, b = torch.randn(n, n), torch.randn(n, n)
    (a @ b).sum().item()
    for r in range(rounds):
        for mode in ((threads, 1) if r % 2 == 0 else (1, threads)):  # neither always second
            torch.set_num_threads(mode)
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                (a @ b).sum().item()
                times.append(time.perf_counter() - t)
            gflops.setdefault(f"{n} {mode}", []).append(2 * n ** 3 / sorted(times)[reps // 2] / 1e9)
    torch.set_num_threads(threads)
print(json.dumps({"threads": threads, "gflops": gflops}))
