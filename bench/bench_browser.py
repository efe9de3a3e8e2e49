"""The peer benchmark in one command: webtorch in Pyodide vs TensorFlow.js 4.22 (webgpu) vs jax-js 0.1.25
(webgpu, jit), in the same headless Chromium on the same WebGPU adapter.

    .venv/bin/python bench/bench_browser.py [--steps 10] [--models mlp,lenet,lstm,gpt] [--peers tfjs,jax-js]
                                            [--quick] [--out PATH]
    .venv/bin/python bench/bench_browser.py --native [--steps 10]   # the CPython side

Models (bench/browser/models.py, written once against PyTorch's API; bench/browser/peers.js builds the same
parameters, values, data and optimizer for the peers, so the first losses must agree -- the "first loss"
columns cross-check that every framework does the same math):
  MLP 784-256-10 Adam b128; LeNet-5 (PyTorch tutorial, 1x32x32) SGD b32; 2-layer LSTM hidden 128 seq 32 b16
  Adam; GPT (2 blocks, d_model 128, 4 heads, context 64, b16) AdamW.
Also matmul GFLOP/s at 256/512/1024 (timed to completion after a warm-up) and an 8-op elementwise chain on
1M elements (ms per chain), and cold start: page load -> first finished MLP training step, per framework (each
in a fresh page). Steps/s is one timed run of ``--steps`` steps after ``--warmup`` steps per framework.
Inside Pyodide (bench/browser/webtorch_steps.py) also: Python-side cost per recorded op, device counters per
step (FFI crossings, submits, dispatches, readbacks, host fallbacks), the wheel's size.

On this machine WebGPU is SwiftShader (the CPU) shared with other work: compare ratios within one run, not
absolute figures. Writes bench/results/browser.json and the table bench/results/browser.md.

``--native``: in CPython, webtorch cpu (NumPy) vs PyTorch CPU on the same models and steps (one thread each),
and webtorch webgpu on wgpu-py (lavapipe here); writes bench/results/browser_native.json and .md.
"""
import argparse
import datetime
import json
import math
import os
import sys
import time
from pathlib import Path

from _report import format_table, machine_info, report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))
sys.path.insert(0, str(HERE / "browser"))

import models  # noqa: E402

GOALS = {"record_us_no_grad": 5.0, "bridge_calls_per_step": 1, "submits_per_step": 1, "cold_start_overhead_ms": 500,
         "wheel_kib": 400}
PEERS = [("tfjs", "TensorFlow.js 4.22 (webgpu)"), ("jax-js", "jax-js 0.1.25 (webgpu, jit)")]
WEBTORCH = "webtorch (Pyodide, webgpu)"
MODEL_TITLES = {"mlp": "MLP 784-256-10, Adam, b128", "lenet": "LeNet-5 1x32x32, SGD, b32",
                "lstm": "LSTM 2x128, seq 32, Adam, b16", "gpt": "GPT 2x128, 4 heads, ctx 64, AdamW, b16"}


def chosen(keys):
    """The (key, title) pairs of PEERS named in ``keys``, in PEERS' order."""
    return [(k, t) for k, t in PEERS if k in keys]


def _error(e):
    return {"error": str(e).splitlines()[0][:300]}


def run_webtorch(session, cfg, timeout):
    res = session.run(HERE / "browser" / "webtorch_steps.py", [json.dumps(cfg)], timeout=timeout)
    figures = [json.loads(t) for k, t in res.reports if k == "bench"]
    if res.status != 0 or not figures:
        raise SystemExit(f"the in-browser benchmark failed (status {res.status}):\n{res.stdout[-3000:]}\n"
                         f"{res.stderr[-3000:]}")
    return figures[0], res.timings


def run_peers(session, cfg, timeout):
    """{peer: {"models": {name: figures or error}, "matmul_ms": {n: ms or error}, "chain_ms"}}: each peer in a
    fresh page, the MLP first (its first step's time on the page clock is the peer's cold start)."""
    session.server.roots.update({"tfjs": ROOT / "node_modules" / "@tensorflow", "jax-js": ROOT / "node_modules" /
                                 "@jax-js", "bench": HERE / "browser"})
    out = {}
    for key, _ in chosen(cfg["peers"]):
        context = session.browser.new_context()
        got = out[key] = {"models": {}, "matmul_ms": {}}
        try:
            page = context.new_page()
            page.set_default_timeout(timeout * 1000)
            page.goto(f"{session.server.url}/bench/peers.html")
            page.wait_for_function("window.peersReady === true")
            for name in cfg["models"]:
                try:
                    got["models"][name] = page.evaluate("([p, s, c]) => window.peerTrain(p, s, c)", [
                        key, models.spec(name), {"steps": cfg["steps"], "warmup": cfg["warmup"]}])
                except Exception as e:  # noqa: BLE001 -- a model a peer cannot run here is reported, not fatal
                    got["models"][name] = _error(e)
            for n in cfg["matmul"]:
                try:
                    got["matmul_ms"][n] = page.evaluate("([p, n, r]) => window.peerMatmul(p, n, r)",
                                                        [key, n, cfg["matmul_reps"]])
                except Exception as e:  # noqa: BLE001
                    got["matmul_ms"][n] = _error(e)
            try:
                got["chain_ms"] = page.evaluate("([p, n, r]) => window.peerChain(p, n, r)",
                                                [key, cfg["chain_n"], cfg["chain_reps"]])
            except Exception as e:  # noqa: BLE001
                got["chain_ms"] = _error(e)
        except Exception as e:  # noqa: BLE001 -- a peer whose page fails is reported, not fatal
            got["error"] = _error(e)["error"]
        finally:
            context.close()
    return out


def _num(v):
    return v if isinstance(v, (int, float)) else float("nan")


def model_rows(ours, peers, names):
    rows = []
    for name in names:
        w = ours["models"][name]
        rows.append({"model": name, "framework": WEBTORCH, "steps_per_s": w["steps_per_s"],
                     "ms_per_step": w["ms_per_step"], "webtorch_vs": 1.0, "first_loss": w["first_loss"],
                     "first_loss_diff": 0.0, "final_loss": w["final_loss"], "error": ""})
        for key, title in chosen(peers):
            p = peers[key]["models"].get(name, {"error": peers[key].get("error", "not run")})
            ok = "error" not in p
            rows.append({"model": name, "framework": title, "steps_per_s": p["stepsPerS"] if ok else math.nan,
                         "ms_per_step": p["msPerStep"] if ok else math.nan,
                         "webtorch_vs": w["steps_per_s"] / p["stepsPerS"] if ok else math.nan,
                         "first_loss": p["firstLoss"] if ok else math.nan,
                         "first_loss_diff": abs(p["firstLoss"] - w["first_loss"]) if ok else math.nan,
                         "final_loss": p["finalLoss"] if ok else math.nan, "error": "" if ok else p["error"]})
    return rows


def kernel_rows(ours, peers, cfg):
    """matmul GFLOP/s per size and the elementwise chain's ms, per framework."""
    rows = []
    for n in cfg["matmul"]:
        row = {"what": f"matmul {n}x{n} GFLOP/s", WEBTORCH: 2 * n ** 3 / ours["matmul_ms"][str(n)] / 1e6}
        for key, title in chosen(peers):
            ms = peers[key]["matmul_ms"].get(n)
            row[title] = 2 * n ** 3 / ms / 1e6 if isinstance(ms, (int, float)) else math.nan
        rows.append(row)
    row = {"what": f"8-op elementwise chain, {cfg['chain_n']:,} floats (ms)", WEBTORCH: ours["chain_ms"]}
    row.update({title: _num(peers[key].get("chain_ms")) for key, title in chosen(peers)})
    rows.append(row)
    return rows


def markdown(data):
    """bench/results/browser.md: the tables of one run with adapter, browser and date."""
    m, f = data["machine"], data["figures"]
    lines = [f"# webtorch vs TensorFlow.js vs jax-js in one browser ({data['timestamp'][:10]})", "",
             f"Adapter: {data['adapter']}; browser: Chromium {data['browser']} (headless); {data['steps']} timed "
             f"steps after {data['warmup']} warm-up steps per framework; machine: {m['cpus']} CPUs, load average "
             f"{m['load_average_1min']:.1f} at the end. The machine is shared and under load: the absolute numbers "
             "are slow and noisy; the ratios (same page, same adapter, same run) are what compares.",
             "Generated by `bench/bench_browser.py`; models in bench/browser/models.py (webtorch) and "
             "bench/browser/peers.js (peers). *first loss Δ*: |peer's first loss - webtorch's| (same initial "
             "values and data: ~0 means the same math).", "",
             "| model | framework | steps/s | ms/step | webtorch / it | first loss | first loss Δ | loss after | error |",
             "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in data["rows"]:
        lines.append(f"| {MODEL_TITLES[r['model']]} | {r['framework']} | {r['steps_per_s']:.2f} | "
                     f"{r['ms_per_step']:.1f} | {r['webtorch_vs']:.2f} | {r['first_loss']:.4f} | "
                     f"{r['first_loss_diff']:.1e} | {r['final_loss']:.4f} | {r['error']} |")
    titles = [WEBTORCH] + [t for _, t in chosen(data["config"]["peers"])]
    lines += ["", "| kernel | " + " | ".join(titles) + " |", "|---|" + "---:|" * len(titles)]
    for r in data["kernels"]:
        lines.append(f"| {r['what']} | " + " | ".join(f"{r[t]:.3f}" for t in titles) + " |")
    lines += ["", "| cold start: page load -> first finished MLP step (ms, page clock) | " + " | ".join(titles) + " |",
              "|---|" + "---:|" * len(titles),
              "| | " + " | ".join(f"{data['cold_start_ms'][t]:.0f}" for t in titles) + " |", "",
              "webtorch's cold start in parts (ms on the page clock): "
              f"Pyodide booted at {f['pyodide_booted_at_ms']:.0f}, `import webtorch` done at "
              f"{f['webtorch_imported_at_ms']:.0f}, first step done at {f['first_step_at_ms']:.0f} (its own "
              f"duration {f['first_step_ms']:.0f}, {f['first_step_kernels_compiled']} kernels compiled): "
              f"{f['cold_start_overhead_ms']:.0f} ms after Pyodide's boot. Wheel: {f['wheel_kib']:.0f} KiB. "
              f"Python cost per recorded op: {f['record_us_no_grad']:.1f} us (no_grad), "
              f"{f['record_us_autograd']:.1f} us (autograd).", ""]
    return "\n".join(lines)


def browser_main(args, cfg):
    from webtorch_devtools.session import BrowserSession
    from webtorch_devtools.wheel import build_wheel
    wheel = build_wheel()
    with BrowserSession() as session:
        browser_version = session.browser.version
        ours, timings = run_webtorch(session, cfg, args.timeout)
        peers = run_peers(session, cfg, args.timeout)

    booted_ms = timings["startMs"] + timings["pyodideBootMs"]
    mlp = ours["models"].get("mlp", {"per_step": {}})
    figures = {
        "record_us_no_grad": ours["record_us"]["no_grad"], "record_us_autograd": ours["record_us"]["autograd"],
        **{f"{k}_per_step": v for k, v in mlp["per_step"].items()},
        "pyodide_boot_ms": timings["pyodideBootMs"], "pyodide_booted_at_ms": booted_ms,
        "webtorch_imported_at_ms": timings["startMs"] + timings.get("importMs", timings["loadMs"]),
        "webtorch_loaded_at_ms": timings["startMs"] + timings["loadMs"],  # + the wait for the warm-up builds
        "first_step_ms": ours["first_step_duration_ms"], "first_step_kernels_compiled": ours["first_step_kernels"],
        "first_step_at_ms": ours["first_step_ms"], "cold_start_overhead_ms": ours["first_step_ms"] - booted_ms,
        "wheel_kib": os.path.getsize(wheel) / 1024,
    }
    shown = [{"figure": k, "value": float(v), "goal": (f"<= {GOALS[k]}" if k in GOALS else "")}
             for k, v in figures.items()]
    print(format_table(shown, [("figure", "webtorch in Pyodide (Chromium, WebGPU)", "s"), ("value", "value", ".2f"),
                               ("goal", "goal", "s")]))
    print()
    kernels = kernel_rows(ours, peers, cfg)
    titles = [WEBTORCH] + [t for _, t in chosen(peers)]
    print(format_table(kernels, [("what", "kernel", "s")] + [(t, t, ".3f") for t in titles]))
    print()
    cold = {WEBTORCH: ours["first_step_ms"]}
    for key, title in chosen(peers):
        cold[title] = _num(peers[key]["models"].get(cfg["models"][0], {}).get("firstStepAtMs"))
    print("cold start, page load -> first finished step (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in cold.items()))
    rows = model_rows(ours, peers, cfg["models"])
    extra = dict(quick=args.quick, steps=cfg["steps"], warmup=cfg["warmup"], config=cfg, figures=figures, goals=GOALS,
                 adapter=ours["adapter"], browser=browser_version, browser_timings=timings, kernels=kernels,
                 cold_start_ms=cold, webtorch=ours, peers=peers)
    path = report("browser", rows, [("model", "model", "s"), ("framework", "framework", "s"),
                                    ("steps_per_s", "steps/s", ".2f"), ("ms_per_step", "ms/step", ".1f"),
                                    ("webtorch_vs", "webtorch / it", ".2f"), ("first_loss", "first loss", ".4f"),
                                    ("first_loss_diff", "diff", ".1e"), ("final_loss", "loss", ".4f"),
                                    ("error", "error", "s")], path=args.out, **extra)
    with open(path) as fh:
        data = json.load(fh)
    md = Path(path).with_suffix(".md")
    md.write_text(markdown(data))
    print(f"wrote {md}")


def native_main(args, cfg):
    """webtorch cpu vs PyTorch CPU (same models and steps, one thread each: NumPy's BLAS as OPENBLAS_NUM_THREADS
    says, 1 by default; on a loaded machine extra threads wait on descheduled peers), and webtorch webgpu on
    wgpu-py."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before NumPy loads
    import torch
    import webtorch
    torch.set_num_threads(1)
    rows = []
    for name in cfg["models"]:
        for label, mod, device in (("PyTorch cpu", torch, "cpu"), ("webtorch cpu", webtorch, "cpu"),
                                   ("webtorch webgpu (wgpu-py)", webtorch, "webgpu")):
            step = models.build(mod, name, device)
            first = step()
            for _ in range(cfg["warmup"]):
                step()
            t0 = time.perf_counter()
            for _ in range(cfg["steps"]):
                last = step()
            s = time.perf_counter() - t0
            rows.append({"model": name, "framework": label, "steps_per_s": cfg["steps"] / s,
                         "ms_per_step": s / cfg["steps"] * 1000, "first_loss": first, "final_loss": last})
        base = rows[-3]["steps_per_s"]
        for r in rows[-3:]:
            r["vs_pytorch"] = r["steps_per_s"] / base
    path = report("browser_native", rows, [("model", "model", "s"), ("framework", "framework", "s"),
                                           ("steps_per_s", "steps/s", ".2f"), ("ms_per_step", "ms/step", ".1f"),
                                           ("vs_pytorch", "speed vs PyTorch", ".2f"),
                                           ("first_loss", "first loss", ".4f"), ("final_loss", "loss", ".4f")],
                  path=args.out, quick=args.quick, config=cfg,
                  webgpu_adapter=webtorch.webgpu.stats()["adapter"])
    m = machine_info()
    lines = [f"# webtorch vs PyTorch in CPython ({datetime.date.today()})", "",
             f"{m['cpus']} CPUs under load (load average {m['load_average_1min']:.1f}); PyTorch {m.get('torch')} "
             f"with {m.get('torch_threads')} threads; webgpu adapter: {webtorch.webgpu.stats()['adapter']}. "
             f"{cfg['steps']} timed steps after {cfg['warmup']} warm-up steps. Generated by "
             "`bench/bench_browser.py --native`.", "",
             "| model | framework | steps/s | ms/step | speed vs PyTorch | first loss | loss after |",
             "|---|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {MODEL_TITLES[r['model']]} | {r['framework']} | {r['steps_per_s']:.2f} | {r['ms_per_step']:.1f} | "
              f"{r['vs_pytorch']:.2f} | {r['first_loss']:.4f} | {r['final_loss']:.4f} |" for r in rows]
    Path(path).with_suffix(".md").write_text("\n".join(lines) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=10, help="timed training steps per framework and model")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps before them")
    ap.add_argument("--models", default=",".join(models.MODELS), help="comma-separated, of " + ",".join(models.MODELS))
    ap.add_argument("--peers", default=",".join(k for k, _ in PEERS),
                    help="comma-separated peers to run, of " + ",".join(k for k, _ in PEERS))
    ap.add_argument("--record-ops", type=int, default=1000, help="ops recorded per op-cost timing")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 1 step after 1 warm-up, small kernels")
    ap.add_argument("--native", action="store_true", help="the CPython side instead of the browser")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed per browser page")
    ap.add_argument("--out", help="where to write the JSON (default bench/results/browser[_native].json)")
    args = ap.parse_args(argv)
    names = args.models.split(",")
    unknown = sorted(set(names) - set(models.MODELS))
    if unknown or not names:
        ap.error(f"unknown model(s) {unknown}: choose from {','.join(models.MODELS)}")
    peers = args.peers.split(",") if args.peers else []
    unknown = sorted(set(peers) - {k for k, _ in PEERS})
    if unknown:
        ap.error(f"unknown peer(s) {unknown}: choose from {','.join(k for k, _ in PEERS)}")
    cfg = {"steps": args.steps, "warmup": args.warmup, "record_ops": args.record_ops, "models": names,
           "peers": peers,
           "matmul": [256, 512, 1024], "matmul_reps": 5, "chain_n": 1 << 20, "chain_reps": 10}
    if args.quick:
        cfg.update(steps=1, warmup=1, record_ops=200, matmul=[64], matmul_reps=1, chain_n=1 << 12, chain_reps=1)
    (native_main if args.native else browser_main)(args, cfg)


if __name__ == "__main__":
    main()
