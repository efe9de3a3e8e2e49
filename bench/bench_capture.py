"""Step capture and replay on webgpu: eager vs automatic schedule reuse vs explicit replay, in one run.

    .venv/bin/python bench/bench_capture.py [--steps 5] [--models mlp,lstm,gpt] [--browser]

Natively (wgpu-py) by default; ``--browser`` runs the same measurement inside Pyodide in headless Chromium
(WebGPU). The models, data and optimizers are the browser benchmark's (bench/browser/models.py: MLP 784-256-10
Adam, 2-layer LSTM Adam, nanoGPT-shaped GPT AdamW). Three ways to run the same training step
(bench/browser/capture_steps.py measures them):

* eager: every flush scheduled afresh (fusion analysis, kernel lookup, parameter packing), the reuse turned off;
* auto: the default -- a flush identical to an earlier one reuses its schedule (the plan cache, backends/webgpu/plan_cache.py);
* replay: the step captured once with ``webtorch.webgpu.graph`` (Adam/AdamW with ``capturable=True``) and
  replayed (``Graph.replay()``): no Python per op at all.

Per step: wall time including the wait for the loss (steps/s; on lavapipe/SwiftShader the device work
dominates), and the host time (CPython: the main thread's CPU time, without the device's worker threads;
Pyodide: the wall clock) spent recording the ops ("record"), flushing them ("flush": scheduling or reuse, and
packing; natively also wgpu-native's encode and submit) and, in the browser, crossing into bridge.js ("bridge":
JavaScript encodes and submits). record + flush divided by the ops an eager step records is "Python µs/op"
(amortized; natively it includes the encode).
"schedule ms" / "reused ms": one step's queues turned into batches by a fresh schedule / by the reuse path (what
the automatic reuse saves per step; nothing submitted). Medians over --steps steps after two warm-up steps.
Prints a table, writes bench/results/capture.json (capture_browser.json with --browser).
"""
import argparse
import json
import os
import sys

from _report import report

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))


def native(args):
    import capture_steps
    import webtorch
    if not webtorch.webgpu.is_available():
        raise SystemExit("no WebGPU adapter: install wgpu and mesa-vulkan-drivers (scripts/setup.sh)")
    rows = []
    for name in args.models.split(","):
        rows += capture_steps.run_model(name, args.steps)
    return rows, capture_steps.get_backend().rt.description, "wgpu-py (CPython)"


def browser(args):
    from webtorch_devtools.session import BrowserSession
    cfg = {"steps": args.steps, "models": args.models.split(",")}
    with BrowserSession() as session:
        # cross-origin isolated: performance.now() (Pyodide's clock) resolves 5 µs instead of 100 µs
        from webtorch_devtools.server import ISOLATION_HEADERS
        session.server.headers = ISOLATION_HEADERS
        res = session.run(os.path.join(HERE, "browser", "capture_steps.py"), [json.dumps(cfg)], timeout=args.timeout)
        version = session.browser.version
    figures = [json.loads(t) for k, t in res.reports if k == "capture"]
    if res.status != 0 or not figures:
        raise SystemExit(f"the in-browser benchmark failed (status {res.status}):\n{res.stdout[-3000:]}\n"
                         f"{res.stderr[-3000:]}")
    return figures[0]["rows"], figures[0]["adapter"], f"Pyodide in {version}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--models", default="mlp,lstm,gpt")
    ap.add_argument("--browser", action="store_true", help="inside Pyodide in headless Chromium (WebGPU)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds for the browser run")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/capture[_browser].json)")
    args = ap.parse_args()
    rows, adapter, where = browser(args) if args.browser else native(args)
    columns = [("model", "model", ""), ("mode", "mode", ""), ("steps_per_s", "steps/s", ".2f"),
               ("record_ms", "record ms", ".2f"), ("flush_ms", "flush ms", ".2f"), ("bridge_ms", "bridge ms", ".2f"),
               ("python_ms_per_step", "Python ms/step", ".2f"), ("ops_per_step", "ops/step", "d"),
               ("python_us_per_op", "Python µs/op", ".2f"), ("python_speedup_vs_eager", "Python x eager", ".1f"),
               ("dispatches_per_step", "dispatches", ".0f"), ("schedule_ms", "schedule ms", ".2f"),
               ("schedule_reused_ms", "reused ms", ".2f")]
    report("capture_browser" if args.browser else "capture", rows, columns,
           title=f"webgpu step capture/replay, {where}, on {adapter}", path=args.out, steps=args.steps,
           adapter=adapter, runtime=where,
           note="Python = record + flush (main-thread CPU time natively, including wgpu-native's encode; wall clock in "
                "Pyodide, where bridge = the crossing into bridge.js); µs/op amortized over the ops an eager step "
                "records; replay uses capturable=True optimizers (more, smaller dispatches)")


if __name__ == "__main__":
    main()
