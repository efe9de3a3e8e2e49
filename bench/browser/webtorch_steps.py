"""The in-browser half of bench/bench_browser.py: runs inside Pyodide (``webtorch run --browser``) and sends
its figures to the host as one "bench" report (JSON).

First, before anything else, one training step of an MLP as a user writes it, on the first of CFG["devices"] (its
end on the page clock is the cold start: page load -> first finished training step); then per device (webtorch's
"cpu", the WebAssembly backend, and "webgpu") the Python-side cost of an op, then for each model of
bench/browser/models.py timed training steps (on webgpu with the device counters per step: bridge calls, GPU
waits, submits, dispatches, readbacks, host fallbacks); then matmul and an elementwise chain.

Every timing is taken in CFG["rounds"] rounds that interleave with the peers' pages: around its own measurements
at a key (every device in turn) this page sends a "turn" report and waits until the host has run the peers whose
turn comes before (or after) webtorch in that round. A device that cannot run a key here (no WebGPU adapter, a
missing primitive) is reported with its error, not fatal.

    argv: JSON {"devices": [...], "steps" (per round), "warmup", "rounds", "record_ops", "models": [...],
                "matmul": [sizes], "matmul_reps", "chain_n", "chain_reps", "cpu_threads" (torch.set_num_threads,
                null: unset)}
"""
import json
import sys
import time

from pyodide.ffi import run_sync

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn
from webtorch._device import backend_for
from webtorch.browser.runner import report

import models

CFG = json.loads(sys.argv[1])
COUNTERS = ("bridge_calls", "gpu_waits", "submits", "flushes", "dispatches", "readbacks", "host_fallbacks")


def page_clock_ms():
    import js
    return js.performance.now()


def synchronize(device):
    """Wait for ``device``'s queued work (webgpu is lazy; cpu runs each op eagerly)."""
    if device == "webgpu":
        torch.webgpu.synchronize()


def error_text(e):
    return f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"


def cold_step_fn(device):
    """The MLP step as a user writes it (layers' own init, random data): the cold start times webtorch, not the
    benchmark's shared initial values (Python lists); models.build's MLP repeats it with those, cross-checked."""
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = torch.randn(128, 784, device=device), torch.randint(0, 10, (128,), device=device)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def op_cost_us(n, grad, device):
    """Python-side microseconds per elementwise op of 256 floats: on webgpu recorded (nothing runs: n stays below
    the flush bound), on cpu run to completion (the WebAssembly kernel and the calls into it included)."""
    a = torch.randn(256, requires_grad=grad, device=device)
    b = torch.randn(256, device=device)
    synchronize(device)
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
    synchronize(device)
    return dt / n * 1e6


def in_rounds(key, measures):
    """``measures``: device -> a function timing one round. Each is called once per round, the peers' turns at
    ``key`` (run by the host) before and after them; -> device -> [one figure per round]."""
    out = {device: [] for device in measures}
    for r in range(CFG["rounds"]):
        run_sync(report("turn", json.dumps({"key": key, "round": r, "phase": "before"})))
        for device, measure in measures.items():
            out[device].append(measure())
        run_sync(report("turn", json.dumps({"key": key, "round": r, "phase": "after"})))
    return out


def model_timer(name, device, got):
    """Builds the model on ``device``, runs its first and warm-up steps, fills ``got`` (first loss, counters and
    final loss as the rounds go) and returns the function timing one round (ms per step)."""
    step = models.build(torch, name, device)
    got.update(first_loss=step(), counters=[])
    for _ in range(CFG["warmup"]):
        step()

    def timed():
        t0 = time.perf_counter()
        for _ in range(CFG["steps"]):
            if device == "webgpu":
                before = torch.webgpu.stats()
                got["final_loss"] = step()
                after = torch.webgpu.stats()
                got["counters"].append({k: after[k] - before[k] for k in COUNTERS})
            else:
                got["final_loss"] = step()
        return (time.perf_counter() - t0) / CFG["steps"] * 1000
    return timed


def timed_ms(fn, reps, device):
    """Milliseconds per call of ``fn`` to completion on the device, after one warm-up call (every result is kept
    until the device finished: a lazy backend may skip work whose result nobody holds)."""
    kept = [fn()]
    synchronize(device)
    t0 = time.perf_counter()
    kept = [fn() for _ in range(reps)]
    synchronize(device)
    seconds = time.perf_counter() - t0
    del kept
    return seconds / reps * 1000


def measured(key, makers, out):
    """Builds each device's timer (``makers``: device -> a function returning it; one that raises is recorded in
    out[device]["errors"][key]) and times the others in rounds into out[device]["ms"][key]."""
    timers = {}
    for device, make in makers.items():
        try:
            timers[device] = make()
        except Exception as e:  # noqa: BLE001 -- a device that cannot run this key is reported, not fatal
            out[device]["errors"][key] = error_text(e)
    for device, ms in in_rounds(key, timers).items():
        out[device]["ms"][key] = ms


def main():
    devices = CFG["devices"]
    if CFG.get("cpu_threads"):
        torch.set_num_threads(CFG["cpu_threads"])
    first = devices[0]
    step = cold_step_fn(first)
    started_ms = page_clock_ms()
    step()
    first_step_ms = page_clock_ms()
    out = {"first_step_device": first, "first_step_ms": first_step_ms,
           "first_step_duration_ms": first_step_ms - started_ms, "devices": {}}
    if "webgpu" in devices:
        out["first_step_kernels"] = torch.webgpu.stats()["kernels_compiled"]
        out["adapter"] = torch.webgpu.stats()["adapter"]
    if "cpu" in devices:  # kernels.wasm: its size, and the page's compile (loader) + instantiate (first use) time
        out["wasm_runtime"] = backend_for("cpu").rt.stats
    for device in devices:
        got = out["devices"][device] = {"ms": {}, "errors": {}, "models": {}}
        try:
            got["op_us"] = {"no_grad": min(op_cost_us(CFG["record_ops"], False, device) for _ in range(3)),
                            "autograd": min(op_cost_us(CFG["record_ops"], True, device) for _ in range(3))}
        except Exception as e:  # noqa: BLE001
            got["errors"]["op_us"] = error_text(e)
    for name in CFG["models"]:
        made = {d: out["devices"][d]["models"].setdefault(name, {}) for d in devices}
        measured(f"model:{name}", {d: (lambda d=d: model_timer(name, d, made[d])) for d in devices}, out["devices"])
        if "webgpu" in devices and "counters" in made["webgpu"]:
            m = made["webgpu"]
            m["per_step"] = {k: sum(s[k] for s in m["counters"]) / max(len(m["counters"]), 1) for k in COUNTERS}
            m["stats"] = {k: v for k, v in torch.webgpu.stats().items() if isinstance(v, (int, float))}
        for d in devices:
            made[d].pop("counters", None)

    def matmul_timer(n, device):
        a, b = torch.randn(n, n, device=device), torch.randn(n, n, device=device)
        return lambda: timed_ms(lambda: a @ b, CFG["matmul_reps"], device)

    def chain_timer(device):
        x = torch.randn(CFG["chain_n"], device=device)
        return lambda: timed_ms(lambda: ((x * 1.01 + 0.5).relu() * 0.9 - 0.1).abs().sqrt().tanh(), CFG["chain_reps"],
                                device)
    for n in CFG["matmul"]:
        measured(f"matmul:{n}", {d: (lambda d=d: matmul_timer(n, d)) for d in devices}, out["devices"])
    measured("chain", {d: (lambda d=d: chain_timer(d)) for d in devices}, out["devices"])
    if "cpu" in devices:  # the threads a large GEMM ran on (the page's worker threads start in the background)
        threads = backend_for("cpu").rt.threads()
        out["wasm_runtime"]["gemm_threads"] = min(threads, CFG["cpu_threads"]) if CFG.get("cpu_threads") else threads
    report("bench", json.dumps(out))


if __name__ == "__main__":
    main()
