"""The in-browser half of bench/bench_browser.py: runs inside Pyodide (``webtorch run --browser``) and sends
its figures to the host as one "bench" report (JSON).

First, before anything else, one training step of an MLP as a user writes it (its end on the page clock is the cold
start: page load -> first finished training step); then the Python-side cost of recording ops, then for each
model of bench/browser/models.py timed training steps with the device counters (bridge calls, GPU waits,
submits, dispatches, readbacks, host fallbacks) per step; then matmul and an elementwise chain.

Every timing is taken in CFG["rounds"] rounds that interleave with the peers' pages: around each of its own
measurements this page sends a "turn" report and waits until the host has run the peers whose turn comes before
(or after) webtorch in that round.

    argv: JSON {"steps" (per round), "warmup", "rounds", "record_ops", "models": [...], "matmul": [sizes],
                "matmul_reps", "chain_n", "chain_reps"}
"""
import json
import sys
import time

from pyodide.ffi import run_sync

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn
from webtorch.browser.runner import report

import models

CFG = json.loads(sys.argv[1])
COUNTERS = ("bridge_calls", "gpu_waits", "submits", "flushes", "dispatches", "readbacks", "host_fallbacks")


def page_clock_ms():
    import js
    return js.performance.now()


def cold_step_fn():
    """The MLP step as a user writes it (layers' own init, random data): the cold start times webtorch, not the
    benchmark's shared initial values (Python lists); models.build's MLP repeats it with those, cross-checked."""
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(128, 784), torch.randint(0, 10, (128,))

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def record_cost_us(n, grad):
    """Python-side microseconds per recorded elementwise op (nothing runs: n stays below the flush bound)."""
    a = torch.randn(256, requires_grad=grad)
    b = torch.randn(256)
    torch.webgpu.synchronize()
    with torch.set_grad_enabled(grad):
        for _ in range(20):  # warm the dispatch caches
            y = a * b
        del y
        t0 = time.perf_counter()
        y = a
        for _ in range(n):
            y = y * b
        dt = time.perf_counter() - t0
    del y
    torch.webgpu.synchronize()
    return dt / n * 1e6


def in_rounds(key, measure):
    """``measure()`` once per round, the peers' turns at ``key`` (run by the host) before and after it."""
    out = []
    for r in range(CFG["rounds"]):
        run_sync(report("turn", json.dumps({"key": key, "round": r, "phase": "before"})))
        out.append(measure())
        run_sync(report("turn", json.dumps({"key": key, "round": r, "phase": "after"})))
    return out


def train(name):
    """Milliseconds per step in each round (CFG["steps"] steps after CFG["warmup"] steps), the counters per step,
    the first and last loss."""
    step = models.build(torch, name, "webgpu")
    first_loss = step()
    for _ in range(CFG["warmup"]):
        step()
    per_step, losses = [], []

    def timed():
        t0 = time.perf_counter()
        for _ in range(CFG["steps"]):
            before = torch.webgpu.stats()
            losses.append(step())
            after = torch.webgpu.stats()
            per_step.append({k: after[k] - before[k] for k in COUNTERS})
        return (time.perf_counter() - t0) / CFG["steps"] * 1000
    return {"ms_per_step": in_rounds(f"model:{name}", timed), "first_loss": first_loss, "final_loss": losses[-1],
            "per_step": {k: sum(s[k] for s in per_step) / len(per_step) for k in COUNTERS}}


def timed_ms(fn, reps):
    """Milliseconds per call of ``fn`` to completion on the device, after one warm-up call (every result is kept
    until the device finished: a lazy backend may skip work whose result nobody holds)."""
    kept = [fn()]
    torch.webgpu.synchronize()
    t0 = time.perf_counter()
    kept = [fn() for _ in range(reps)]
    torch.webgpu.synchronize()
    seconds = time.perf_counter() - t0
    del kept
    return seconds / reps * 1000


def main():
    step = cold_step_fn()
    started_ms = page_clock_ms()
    step()
    first_step_ms = page_clock_ms()
    first_kernels = torch.webgpu.stats()["kernels_compiled"]
    out = {"first_step_ms": first_step_ms, "first_step_duration_ms": first_step_ms - started_ms,
           "first_step_kernels": first_kernels, "adapter": torch.webgpu.stats()["adapter"],
           "record_us": {"no_grad": min(record_cost_us(CFG["record_ops"], False) for _ in range(3)),
                         "autograd": min(record_cost_us(CFG["record_ops"], True) for _ in range(3))},
           "models": {}, "matmul_ms": {}}
    for name in CFG["models"]:
        out["models"][name] = train(name)
        out["models"][name]["stats"] = {k: v for k, v in torch.webgpu.stats().items() if isinstance(v, (int, float))}
    for n in CFG["matmul"]:
        a, b = torch.randn(n, n), torch.randn(n, n)
        out["matmul_ms"][n] = in_rounds(f"matmul:{n}", lambda: timed_ms(lambda: a @ b, CFG["matmul_reps"]))
    x = torch.randn(CFG["chain_n"])
    out["chain_ms"] = in_rounds("chain", lambda: timed_ms(
        lambda: ((x * 1.01 + 0.5).relu() * 0.9 - 0.1).abs().sqrt().tanh(), CFG["chain_reps"]))
    report("bench", json.dumps(out))


if __name__ == "__main__":
    main()
