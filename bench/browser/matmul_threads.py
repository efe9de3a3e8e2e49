"""The measured half of bench/bench_browser_threads.py, run in a cross-origin isolated page: device "cpu"'s matmul
GFLOP/s in three modes, in interleaved rounds: "auto" (no set_num_threads: each kernel's jobs take what it measured
faster, backends/wasm/threads.py), "all" (set_num_threads(every thread)), "1" (set_num_threads(1)). argv: rounds,
products per round and mode, sizes (comma-separated). Prints one JSON line."""
import asyncio
import json
import sys
import time

from pyodide.ffi import run_sync

import webtorch as torch
from webtorch.backends.wasm import get_backend, threads as wasm_threads

rt = get_backend().rt
for _ in range(200):  # the workers start in the background (the event loop turns while this sleeps)
    if rt.threads() >= 2:
        break
    run_sync(asyncio.sleep(0.05))
threads = rt.threads()
MODES = {"auto": None, "all": threads, "1": 1}
rounds, reps, sizes = int(sys.argv[1]), int(sys.argv[2]), [int(n) for n in sys.argv[3].split(",")]
torch.manual_seed(0)
gflops = {}
for n in sizes:
    a, b = torch.randn(n, n), torch.randn(n, n)
    (a @ b).sum().item()
    for r in range(rounds):
        for mode in (list(MODES) if r % 2 == 0 else list(MODES)[::-1]):  # none always last
            if MODES[mode]:
                torch.set_num_threads(MODES[mode])
            else:
                wasm_threads.cap["threads"] = None  # as in a program that never called set_num_threads
            times = []
            for _ in range(reps):
                t = time.perf_counter()
                (a @ b).sum().item()
                times.append(time.perf_counter() - t)
            gflops.setdefault(f"{n} {mode}", []).append(2 * n ** 3 / sorted(times)[reps // 2] / 1e9)
print(json.dumps({"threads": threads, "gflops": gflops}))
