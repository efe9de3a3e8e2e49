"""Step capture and replay on webgpu (wgpu-py): eager vs automatic schedule reuse vs explicit replay, in one run.

    .venv/bin/python bench/bench_capture.py [--steps 5] [--models mlp,lstm,gpt]

The models, data and optimizers are the browser benchmark's (bench/browser/models.py: MLP 784-256-10 Adam,
2-layer LSTM Adam, nanoGPT-shaped GPT AdamW). Three ways to run the same training step:

* eager: every flush scheduled afresh (fusion analysis, kernel lookup, parameter packing), the reuse turned off;
* auto: the default -- a flush identical to an earlier one reuses its schedule (backends/webgpu/replay.py);
* replay: the step captured once with ``webtorch.webgpu.graph`` (Adam/AdamW with ``capturable=True``) and
  replayed (``Graph.replay()``): no Python per op at all.

Per step: wall time including the wait for the loss (steps/s; on lavapipe the device work dominates), and the
main thread's CPU time (``time.thread_time``: without the device's worker threads or the wait) spent recording
the ops and then flushing them (scheduling, encoding, wgpu-native's submit), their sum divided by the ops an
eager step records ("host µs/op", amortized). "schedule ms" / "reused ms": one step's queues turned into
batches by a fresh schedule / by the reuse path (what the automatic reuse saves per step, nothing submitted). Medians over --steps steps after two warm-up steps. Prints a table, writes
bench/results/capture.json.
"""
import argparse
import os
import statistics
import sys
import time

from _report import report

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser"))
import models  # noqa: E402

import webtorch  # noqa: E402
from webtorch.backends.webgpu import get_backend  # noqa: E402
from webtorch.backends.webgpu.replay import flush_key  # noqa: E402


def _eager_step(model, opt, x, y, loss_fn):
    """(record, submit): record the step's ops and return the loss; submit the recorded queue."""
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


def _nodes_per_step(record, submit):
    """Ops one step records (the length of the queues it flushes)."""
    sched = get_backend().scheduler
    count = [0]
    run = sched.run

    def counting(nodes):
        count[0] += len(nodes)
        run(nodes)
    sched.run = counting
    try:
        loss = record()
        submit()
        loss.item()
    finally:
        del sched.run
    return count[0]


def _schedule_cost(record, submit, repeats=5):
    """Median ms of turning one step's queue(s) into batches: a fresh schedule (Scheduler.plan) against the reuse
    of the remembered one (flush_key, lookup, binding this queue's buffers). Nothing is submitted."""
    be = get_backend()
    sched, replayer = be.scheduler, be.scheduler.replay
    queues = []
    run = sched.run

    def keeping(nodes):  # the key as the flush saw it (which tensors were alive then)
        queues.append((nodes, flush_key(nodes)[0]))
        run(nodes)
    sched.run = keeping
    try:
        loss = record()
        submit()
        loss.item()
    finally:
        del sched.run
    fresh, reused = [], []
    for _ in range(repeats):
        t0 = time.thread_time()
        for nodes, _ in queues:
            sched.plan(nodes)
        t1 = time.thread_time()
        for nodes, seen in queues:
            _, bufs, _ = flush_key(nodes)
            replayer._bind(replayer.plans[seen], bufs, nodes)
        t2 = time.thread_time()
        fresh.append(t1 - t0)
        reused.append(t2 - t1)
    return statistics.median(fresh) * 1e3, statistics.median(reused) * 1e3


def _measure(record, submit, steps):
    """Medians of (wall s, main-thread CPU s recording, main-thread CPU s submitting) per step, dispatches, loss."""
    for _ in range(2):
        loss = record()
        submit()
        loss.item()
    webtorch.webgpu.stats(reset=True)
    walls, recs, subs = [], [], []
    for _ in range(steps):
        t0, c0 = time.perf_counter(), time.thread_time()
        loss = record()
        c1 = time.thread_time()
        submit()
        c2 = time.thread_time()
        loss.item()
        walls.append(time.perf_counter() - t0)
        recs.append(c1 - c0)
        subs.append(c2 - c1)
    st = webtorch.webgpu.stats()
    return (statistics.median(walls), statistics.median(recs), statistics.median(subs), st["dispatches"] / steps,
            loss.item())


def run_model(name, steps):
    rows = []
    replayer = get_backend().scheduler.replay
    nodes = None
    for mode in ("eager", "auto", "replay"):
        replayer.enabled = mode != "eager"
        capturable = {"capturable": True} if mode == "replay" and models.OPTIM[name] != "sgd" else {}
        model, opt, x, y, loss_fn = models.parts(webtorch, name, "webgpu", **capturable)
        if mode == "replay":
            record, submit = _replay_step(model, opt, x, y, loss_fn)
        else:
            record, submit = _eager_step(model, opt, x, y, loss_fn)
            if nodes is None:
                nodes = _nodes_per_step(record, submit)
        hits = replayer.hits
        wall, rec, sub, dispatches, loss = _measure(record, submit, steps)
        host = rec + sub
        rows.append({"model": name, "mode": mode, "steps_per_s": 1 / wall, "ms_per_step": wall * 1e3,
                     "record_ms": rec * 1e3, "flush_ms": sub * 1e3, "python_ms_per_step": host * 1e3,
                     "ops_per_step": nodes, "python_us_per_op": host * 1e6 / nodes,
                     "dispatches_per_step": dispatches, "flush_reuse_hits": replayer.hits - hits, "last_loss": loss})
        if mode == "auto":  # the reuse is on and has seen the step's queues
            schedule_ms, reuse_ms = _schedule_cost(record, submit)
    replayer.enabled = True
    base = rows[0]["python_ms_per_step"]
    for r in rows:
        r.update(python_speedup_vs_eager=base / r["python_ms_per_step"], schedule_ms=schedule_ms,
                 schedule_reused_ms=reuse_ms)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--models", default="mlp,lstm,gpt")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/capture.json)")
    args = ap.parse_args()
    if not webtorch.webgpu.is_available():
        raise SystemExit("no WebGPU adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    rows = []
    for name in args.models.split(","):
        rows += run_model(name, args.steps)
    columns = [("model", "model", ""), ("mode", "mode", ""), ("steps_per_s", "steps/s", ".2f"),
               ("record_ms", "record ms", ".2f"), ("flush_ms", "flush+submit ms", ".2f"),
               ("python_ms_per_step", "host ms/step", ".2f"), ("ops_per_step", "ops/step", "d"),
               ("python_us_per_op", "host µs/op", ".2f"), ("python_speedup_vs_eager", "host x eager", ".1f"),
               ("dispatches_per_step", "dispatches", ".0f"), ("schedule_ms", "schedule ms", ".2f"),
               ("schedule_reused_ms", "reused ms", ".2f")]
    report("capture", rows, columns, title=f"webgpu step capture/replay on {get_backend().rt.description}",
           path=args.out, steps=args.steps, adapter=get_backend().rt.description,
           note="host = main-thread CPU time from the first op to the submit (recording + flush); µs/op amortized over "
                "the ops an eager step records; replay uses capturable=True optimizers (more, smaller dispatches)")


if __name__ == "__main__":
    main()
