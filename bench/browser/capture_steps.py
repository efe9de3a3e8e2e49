"""The measured half of bench/bench_capture.py: a training step of bench/browser/models.py run three ways --
eager (the schedule reuse off), auto (a repeating flush reuses its schedule) and replay (captured once with
webtorch.webgpu.graph, Adam/AdamW capturable=True, then Graph.replay()) -- in CPython (wgpu-py) or inside
Pyodide (``webtorch run --browser``, reporting one "capture" JSON to the host).

Host time: the main thread's CPU time in CPython (``time.thread_time``: without wgpu-native's device threads);
the wall clock in Pyodide (one thread; the GPU works in the browser's GPU process; bench_capture.py serves the
page cross-origin isolated, so the clock resolves 5 µs), split into "record" (recording the step's ops), "flush"
(turning them into a batch for the runtime) and "bridge" (the browser's crossing into bridge.js, where JavaScript
encodes and submits; natively nothing is held back). The wait for the loss is in the wall time only.

    argv (Pyodide): JSON {"steps": int, "models": [names]}
"""
import json
import statistics
import sys
import time

import models

import webtorch
from webtorch.backends.webgpu import get_backend
from webtorch.backends.webgpu.plan_cache import queue_key

IN_BROWSER = sys.platform == "emscripten"
_host_clock = time.perf_counter if IN_BROWSER else time.thread_time


def _eager_step(model, opt, x, y, loss_fn):
    """(record, submit): record the step's ops and return the loss; flush the recorded queue to the runtime (which
    in the browser holds the batch for its next bridge call)."""
    def record():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return record, get_backend().flush


def _replay_step(model, opt, x, y, loss_fn):
    record, submit = _eager_step(model, opt, x, y, loss_fn)
    for _ in range(2):  # warm-up (optimizer state, as CUDA graphs ask)
        record().item()
    opt.zero_grad()
    g = webtorch.webgpu.Graph()
    with webtorch.webgpu.graph(g):
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return (lambda: loss), g.replay


def _flushed_queues(record, submit, see):
    """Run one step, calling ``see(nodes)`` with each queue the plan cache schedules (before it does)."""
    plans = get_backend().recorder.plans
    schedule = plans.schedule

    def seeing(nodes):
        see(nodes)
        return schedule(nodes)
    plans.schedule = seeing
    try:
        loss = record()
        submit()
        loss.item()
    finally:
        del plans.schedule


def _nodes_per_step(record, submit):
    """Ops one step records (the length of the queues it flushes)."""
    sizes = []
    _flushed_queues(record, submit, lambda nodes: sizes.append(len(nodes)))
    return sum(sizes)


def _schedule_cost(record, submit, repeats=5):
    """Median ms of turning one step's queue(s) into batches: a fresh schedule (Planner.plan) against the reuse
    of the remembered one (queue_key, lookup, binding this queue's buffers). Nothing is submitted."""
    rec = get_backend().recorder
    planner, plans = rec.planner, rec.plans
    queues = []  # with the key as the flush saw it (which tensors were alive then)
    _flushed_queues(record, submit, lambda nodes: queues.append((nodes, queue_key(nodes, rec.features)[0])))
    fresh, reused = [], []
    for _ in range(repeats):
        t0 = _host_clock()
        for nodes, _ in queues:
            planner.plan(nodes)
        t1 = _host_clock()
        for nodes, seen in queues:
            _, bufs, _ = queue_key(nodes, rec.features)
            plans.bind(plans.plans[seen], bufs, nodes)
        t2 = _host_clock()
        fresh.append(t1 - t0)
        reused.append(t2 - t1)
    return statistics.median(fresh) * 1e3, statistics.median(reused) * 1e3


def _measure(record, submit, steps):
    """(wall s per step, the loss read each step (median); host s per step recording, flushing and crossing into
    the runtime (means; each step starts with the device idle, so its work does not compete with the Python);
    dispatches per step; the last loss)."""
    for _ in range(2):
        loss = record()
        submit()
        loss.item()
    webtorch.webgpu.stats(reset=True)
    rt = get_backend().rt
    walls = []
    parts = [0.0, 0.0, 0.0]
    for _ in range(steps):
        t0 = time.perf_counter()
        c0 = _host_clock()
        loss = record()
        c1 = _host_clock()
        submit()
        c2 = _host_clock()
        rt.submit()  # the browser's bridge crossing (JS encodes and submits); natively nothing is held
        c3 = _host_clock()
        loss.item()
        walls.append(time.perf_counter() - t0)
        parts[0] += c1 - c0
        parts[1] += c2 - c1
        parts[2] += c3 - c2
    dispatches = webtorch.webgpu.stats()["dispatches"] / steps
    return (statistics.median(walls), *(p / steps for p in parts), dispatches, loss.item())


def run_model(name, steps):
    rows = []
    plan_cache = get_backend().recorder.plans
    nodes = None
    for mode in ("eager", "auto", "replay"):
        plan_cache.enabled = mode != "eager"
        capturable = {"capturable": True} if mode == "replay" and models.OPTIM[name] != "sgd" else {}
        model, opt, x, y, loss_fn = models.parts(webtorch, name, "webgpu", **capturable)
        if mode == "replay":
            record, submit = _replay_step(model, opt, x, y, loss_fn)
        else:
            record, submit = _eager_step(model, opt, x, y, loss_fn)
            if nodes is None:
                nodes = _nodes_per_step(record, submit)
        hits = plan_cache.hits
        wall, rec, sub, cross, dispatches, loss = _measure(record, submit, steps)
        host = rec + sub
        rows.append({"model": name, "mode": mode, "steps_per_s": 1 / wall, "ms_per_step": wall * 1e3,
                     "record_ms": rec * 1e3, "flush_ms": sub * 1e3, "bridge_ms": cross * 1e3,
                     "python_ms_per_step": host * 1e3, "ops_per_step": nodes, "python_us_per_op": host * 1e6 / nodes,
                     "dispatches_per_step": dispatches, "flush_reuse_hits": plan_cache.hits - hits, "last_loss": loss})
        if mode == "auto":  # the reuse is on and has seen the step's queues
            schedule_ms, reuse_ms = _schedule_cost(record, submit)
    plan_cache.enabled = True
    base = rows[0]["python_ms_per_step"]
    for r in rows:
        # a replay's Python may take less than the browser clock resolves (5 µs): the ratio then assumes 5 µs
        r.update(python_speedup_vs_eager=base / max(r["python_ms_per_step"], 5e-3), schedule_ms=schedule_ms,
                 schedule_reused_ms=reuse_ms)
    return rows


def main():
    cfg = json.loads(sys.argv[1])
    rows = []
    for name in cfg["models"]:
        rows += run_model(name, cfg["steps"])
    from webtorch.browser.runner import report
    report("capture", json.dumps({"rows": rows, "adapter": get_backend().rt.description}))


if __name__ == "__main__":
    main()
