"""The in-browser half of bench/bench_browser.py: runs inside Pyodide (``webtorch run --browser``) and sends
its figures to the host as one "bench" report (JSON).

First, before anything else, one training step of the benchmark MLP (its end on the page clock is the cold
start: page load -> first finished training step); then the Python-side cost of recording ops, then timed
training steps with the device counters (bridge calls, GPU waits, submits, dispatches, readbacks) per step.

    argv: STEPS RECORD_OPS   (timed training steps, ops recorded per timing)
"""
import json
import sys
import time

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
RECORD_OPS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
BATCH, IN, HIDDEN, OUT = 128, 784, 256, 10
COUNTERS = ("bridge_calls", "gpu_waits", "submits", "flushes", "dispatches", "readbacks", "host_fallbacks")


def page_clock_ms():
    import js
    return js.performance.now()


def mlp_step_fn():
    """The benchmark's training step (as bench/bench_training.py's "mlp" and the TF.js/jax-js pages)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(IN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, OUT))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(BATCH, IN)
    y = torch.randint(0, OUT, (BATCH,))

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


def main():
    step = mlp_step_fn()
    started_ms = page_clock_ms()
    first_loss = step()
    first_step_ms = page_clock_ms()
    first_kernels = torch.webgpu.stats()["kernels_compiled"]
    record = {"no_grad": min(record_cost_us(RECORD_OPS, False) for _ in range(3)),
              "autograd": min(record_cost_us(RECORD_OPS, True) for _ in range(3))}
    for _ in range(2):
        step()
    per_step = []
    losses = []
    t0 = time.perf_counter()
    for _ in range(STEPS):
        before = torch.webgpu.stats()
        losses.append(step())
        after = torch.webgpu.stats()
        per_step.append({k: after[k] - before[k] for k in COUNTERS})
    seconds = time.perf_counter() - t0
    means = {k: sum(s[k] for s in per_step) / len(per_step) for k in COUNTERS}
    out = {"first_step_ms": first_step_ms, "first_step_duration_ms": first_step_ms - started_ms,
           "first_step_kernels": first_kernels, "first_loss": first_loss, "record_us": record,
           "steps": STEPS, "steps_per_s": STEPS / seconds, "ms_per_step": seconds / STEPS * 1000,
           "final_loss": losses[-1], "per_step": means, "adapter": torch.webgpu.stats()["adapter"]}
    from webtorch.browser.runner import report
    report("bench", json.dumps(out))


if __name__ == "__main__":
    main()
