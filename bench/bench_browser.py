"""webtorch inside Pyodide in headless Chromium on WebGPU, and its peers in the same browser.

    .venv/bin/python bench/bench_browser.py [--steps 20] [--record-ops 1000] [--quick] [--out PATH]

Inside Pyodide (bench/browser/webtorch_steps.py, on the browser's WebGPU):
  * Python-side cost per recorded op (an elementwise op recorded on the lazy graph, no_grad and with
    autograd; nothing runs during the timing). Goal: <= 5 us.
  * per training step: calls into bridge.js (FFI crossings), GPU waits, submits, dispatches, readbacks.
    Goal: 1 crossing and 1 submit per step in steady state.
  * cold start: page load -> first finished training step, against Pyodide's own boot in the same run
    (both on the page's clock). Goal: webtorch's part (wheel, import, WebGPU, first step) within 1.5 s.
    Its parts: when ``import webtorch`` was done, the first step's duration and its kernel compiles (on
    SwiftShader each compute pipeline takes ~85 ms to build, serially, async creation included).
  * the webtorch wheel's size.
Side by side, in the same headless Chromium, the same step -- MLP 784-256-10, batch 128, softmax
cross-entropy, Adam(lr=1e-3), the loss read back every step -- in TensorFlow.js 4.22 (WebGPU backend) and
jax-js 0.1.25 (WebGPU, the whole step under jit) from node_modules (bench/browser/peers.js): steps/s and
the ratio webtorch / peer. Steps/s is one timed run of ``--steps`` steps after 2 warm-up steps per framework;
on this machine WebGPU is SwiftShader (the CPU), so compare ratios within one run, not absolute figures.
Prints two tables and writes bench/results/browser.json (``--quick``: 3 steps, for smoke tests).
"""
import argparse
import json
import os
import sys
from pathlib import Path

from _report import format_table, report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))

from webtorch_devtools.session import BrowserSession  # noqa: E402
from webtorch_devtools.wheel import build_wheel  # noqa: E402

GOALS = {"record_us_no_grad": 5.0, "bridge_calls_per_step": 1, "submits_per_step": 1, "cold_start_overhead_ms": 1500}
PEERS = [("tfjs", "TensorFlow.js 4.22 (webgpu)", "benchTfjs"), ("jax-js", "jax-js 0.1.25 (webgpu, jit)", "benchJax")]


def run_webtorch(session, steps, record_ops, timeout):
    res = session.run(HERE / "browser" / "webtorch_steps.py", [steps, record_ops], timeout=timeout)
    figures = [json.loads(t) for k, t in res.reports if k == "bench"]
    if res.status != 0 or not figures:
        raise SystemExit(f"the in-browser benchmark failed (status {res.status}):\n{res.stdout[-3000:]}\n"
                         f"{res.stderr[-3000:]}")
    return figures[0], res.timings


def run_peers(session, steps, timeout):
    """{peer: figures or {"error": message}} from bench/browser/peers.html, each peer in a fresh page."""
    session.server.roots.update({"tfjs": ROOT / "node_modules" / "@tensorflow", "jax-js": ROOT / "node_modules" /
                                 "@jax-js", "bench": HERE / "browser"})
    out = {}
    for key, _, fn in PEERS:
        context = session.browser.new_context()
        try:
            page = context.new_page()
            page.set_default_timeout(timeout * 1000)
            page.goto(f"{session.server.url}/bench/peers.html")
            page.wait_for_function("window.peersReady === true")
            out[key] = page.evaluate(f"cfg => window.{fn}(cfg)", {"steps": steps, "warmup": 2})
        except Exception as e:  # noqa: BLE001 -- a peer that cannot run here is reported, not fatal
            out[key] = {"error": str(e).splitlines()[0][:300]}
        finally:
            context.close()
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20, help="timed training steps per framework")
    ap.add_argument("--record-ops", type=int, default=1000, help="ops recorded per op-cost timing")
    ap.add_argument("--quick", action="store_true", help="3 steps, 200 ops: a smoke run")
    ap.add_argument("--timeout", type=float, default=600, help="seconds allowed per browser run")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/browser.json)")
    args = ap.parse_args(argv)
    if args.quick:
        args.steps, args.record_ops = 3, 200
    wheel = build_wheel()
    with BrowserSession() as session:
        ours, timings = run_webtorch(session, args.steps, args.record_ops, args.timeout)
        peers = run_peers(session, args.steps, args.timeout)

    booted_ms = timings["startMs"] + timings["pyodideBootMs"]
    figures = {
        "record_us_no_grad": ours["record_us"]["no_grad"], "record_us_autograd": ours["record_us"]["autograd"],
        **{f"{k}_per_step": v for k, v in ours["per_step"].items()},
        "pyodide_boot_ms": timings["pyodideBootMs"], "pyodide_booted_at_ms": booted_ms,
        "webtorch_imported_at_ms": timings["startMs"] + timings["loadMs"],
        "first_step_ms": ours["first_step_duration_ms"], "first_step_kernels_compiled": ours["first_step_kernels"],
        "first_step_at_ms": ours["first_step_ms"], "cold_start_overhead_ms": ours["first_step_ms"] - booted_ms,
        "wheel_kib": os.path.getsize(wheel) / 1024,
    }
    shown = [{"figure": k, "value": float(v), "goal": (f"<= {GOALS[k]}" if k in GOALS else "")}
             for k, v in figures.items()]
    print(format_table(shown, [("figure", "webtorch in Pyodide (Chromium, WebGPU)", "s"), ("value", "value", ".2f"),
                               ("goal", "goal", "s")]))
    print()
    rows = [{"framework": "webtorch (Pyodide, webgpu)", "steps_per_s": ours["steps_per_s"],
             "ms_per_step": ours["ms_per_step"], "webtorch_vs": 1.0, "final_loss": ours["final_loss"], "error": ""}]
    for key, name, _ in PEERS:
        p = peers[key]
        ok = "error" not in p
        rows.append({"framework": name, "steps_per_s": p["stepsPerS"] if ok else float("nan"),
                     "ms_per_step": p["msPerStep"] if ok else float("nan"),
                     "webtorch_vs": ours["steps_per_s"] / p["stepsPerS"] if ok else float("nan"),
                     "final_loss": p["finalLoss"] if ok else float("nan"), "error": "" if ok else p["error"]})
    report("browser", rows, [("framework", "MLP 784-256-10, batch 128, Adam", "s"), ("steps_per_s", "steps/s", ".2f"),
                             ("ms_per_step", "ms/step", ".1f"), ("webtorch_vs", "webtorch / it", ".2f"),
                             ("final_loss", "loss", ".4f"), ("error", "error", "s")],
           path=args.out, quick=args.quick, steps=args.steps, record_ops=args.record_ops, figures=figures,
           goals=GOALS, adapter=ours["adapter"], browser_timings=timings, peers=peers)


if __name__ == "__main__":
    main()
