"""The peer benchmark in one command: webtorch in Pyodide -- device "cpu" (its WebAssembly backend) and "webgpu" --
vs TensorFlow.js 4.22 (its webgpu and its WASM backend) vs jax-js 0.1.25 (its webgpu and its wasm device, jit), in
the same headless Chromium (a cross-origin isolated page: WASM threads allowed), plus NumPy's sgemm in CPython on
the same machine in the same run as the physical reference for matmul.

    .venv/bin/python bench/bench_browser.py [--steps 3] [--rounds 4] [--models mlp,lenet,lstm,gpt]
                                            [--devices cpu,webgpu] [--peers tfjs,tfjs-wasm,jax-js,jax-js-wasm,numpy]
                                            [--quick] [--out PATH]
    .venv/bin/python bench/bench_browser.py --native [--steps 10]   # the CPython side

Models (bench/browser/models.py, written once against PyTorch's API; bench/browser/peers.js builds the same
parameters, values, data and optimizer for the peers, so the first losses must agree -- the "first loss"
columns cross-check that every framework does the same math):
  MLP 784-256-10 Adam b128; LeNet-5 (PyTorch tutorial, 1x32x32) SGD b32; 2-layer LSTM hidden 128 seq 32 b16
  Adam; GPT (2 blocks, d_model 128, 4 heads, context 64, b16) AdamW.
Also matmul GFLOP/s at 256/512/1024 (timed to completion after a warm-up) and an 8-op elementwise chain on
1M elements (ms per chain), and cold start: page load -> first finished MLP training step, per framework (each
in a fresh page; webtorch's on the first of --devices).

The machine's load changes while the benchmark runs, so the frameworks take turns in ``--rounds`` rounds, each
keeping its page and model alive (webtorch's page sends a "turn" report around its measurements -- each of its
devices in turn -- and waits while the host runs the peers): order webtorch, peers in even rounds, the reverse in
odd ones. A round times ``--steps`` training steps (after ``--warmup`` steps before the first round), or the
matmul / chain repetitions. Tables show each framework's median over rounds and each webtorch device's speed over
each framework as the median (and min-max) of the per-round ratios.
Inside Pyodide (bench/browser/webtorch_steps.py) also: Python-side cost per op on each device (recorded on
webgpu, run through the WebAssembly kernels on cpu), device counters per webgpu step (FFI crossings, submits,
dispatches, readbacks, host fallbacks), the wheel's size.

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
import statistics
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
PEERS = [("tfjs", "TensorFlow.js 4.22 (webgpu)"), ("tfjs-wasm", "TensorFlow.js 4.22 (wasm)"),
         ("jax-js", "jax-js 0.1.25 (webgpu, jit)"), ("jax-js-wasm", "jax-js 0.1.25 (wasm, jit)"),
         ("numpy", "NumPy sgemm (CPython, OpenBLAS)")]
HOST_PEERS = {"numpy"}  # timed by this process, at the matmul keys only
DEVICES = {"cpu": "webtorch (Pyodide, cpu: wasm)", "webgpu": "webtorch (Pyodide, webgpu)"}
MODEL_TITLES = {"mlp": "MLP 784-256-10, Adam, b128", "lenet": "LeNet-5 1x32x32, SGD, b32",
                "lstm": "LSTM 2x128, seq 32, Adam, b16", "gpt": "GPT 2x128, 4 heads, ctx 64, AdamW, b16"}


def chosen(keys):
    """The (key, title) pairs of PEERS named in ``keys``, in PEERS' order."""
    return [(k, t) for k, t in PEERS if k in keys]


def _error(e):
    return {"error": str(e).splitlines()[0][:300]}


def round_order(frameworks, r):
    """The frameworks' order in round ``r``: as given in even rounds, reversed in odd ones, so that none always
    runs last (the one after a burst of load from elsewhere)."""
    return frameworks if r % 2 == 0 else frameworks[::-1]


def numpy_matmul_ms(n, reps, threads):
    """NumPy's float32 matmul (OpenBLAS sgemm) of n x n on ``threads`` BLAS threads: ms per product, after one."""
    import numpy as np
    from threadpoolctl import threadpool_limits
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    with threadpool_limits(threads, user_api="blas"):
        a @ b
        t0 = time.perf_counter()
        for _ in range(reps):
            a @ b
        return (time.perf_counter() - t0) / reps * 1000


class PeerPages:
    """The peers' side of the rounds. Each browser peer keeps one page (opened at its first turn: a fresh page,
    whose first model's first step is the peer's cold start) and its current model; ``turn`` (webtorch's page's
    "turn" reports) runs the peers whose turn at a key ("model:NAME", "matmul:N", "chain") comes before or after
    webtorch's. NumPy (a host peer) runs at the matmul keys, on one BLAS thread and on every core.
    Per peer: {"ms": {key: [ms per round]}, "models": {name: {firstLoss, firstStepAtMs, finalLoss}},
    "errors": {key: message}} (a key a peer cannot run here is reported, not fatal)."""

    def __init__(self, session, cfg, timeout):
        session.server.roots.update({"tfjs": ROOT / "node_modules" / "@tensorflow", "jax-js": ROOT / "node_modules" /
                                     "@jax-js", "bench": HERE / "browser"})
        self.session, self.cfg, self.timeout = session, cfg, timeout
        self.got = {k: {"ms": {}, "models": {}, "errors": {}} for k, _ in chosen(cfg["peers"])}
        self.pages, self.live = {}, {}

    def turn(self, kind, text):
        if kind != "turn":
            return
        t = json.loads(text)
        order = round_order(["webtorch"] + [k for k, _ in chosen(self.cfg["peers"])], t["round"])
        at = order.index("webtorch")
        for peer in order[:at] if t["phase"] == "before" else order[at + 1:]:
            got = self.got[peer]
            if peer in HOST_PEERS and not t["key"].startswith("matmul:"):
                continue
            if t["key"] not in got["errors"]:
                try:
                    got["ms"].setdefault(t["key"], []).append(self.measure(peer, t["key"]))
                except Exception as e:  # noqa: BLE001
                    got["errors"][t["key"]] = _error(e)["error"]

    def measure(self, peer, key):
        """One round's milliseconds of ``peer`` at ``key`` (per step, per matmul, per chain)."""
        cfg = self.cfg
        kind, _, arg = key.partition(":")
        if peer == "numpy":
            per_threads = {t: numpy_matmul_ms(int(arg), cfg["matmul_reps"], t) for t in (1, os.cpu_count())}
            self.got[peer].setdefault("by_threads", {}).setdefault(key, []).append(per_threads)
            return per_threads[1]
        page = self.page(peer)
        if kind == "matmul":
            return page.evaluate("([p, n, r]) => window.peerMatmul(p, n, r)", [peer, int(arg), cfg["matmul_reps"]])
        if kind == "chain":
            return page.evaluate("([p, n, r]) => window.peerChain(p, n, r)", [peer, cfg["chain_n"], cfg["chain_reps"]])
        if self.live.get(peer) != arg:
            self.live[peer] = arg
            self.got[peer]["models"][arg] = page.evaluate("([p, s, c]) => window.peerModel(p, s, c)", [
                peer, models.spec(arg), {"warmup": cfg["warmup"]}])
        r = page.evaluate("([p, n]) => window.peerSteps(p, n)", [peer, cfg["steps"]])
        self.got[peer]["models"][arg]["finalLoss"] = r["finalLoss"]
        return r["msPerStep"]

    def page(self, peer):
        if peer not in self.pages:
            page = self.pages[peer] = self.session.browser.new_context().new_page()
            page.set_default_timeout(self.timeout * 1000)
            page.goto(f"{self.session.server.url}/bench/peers.html")
            page.wait_for_function("window.peersReady === true")
        return self.pages[peer]

    def close(self):
        for page in self.pages.values():
            page.context.close()


def run_webtorch(session, cfg, timeout, on_report):
    res = session.run(HERE / "browser" / "webtorch_steps.py", [json.dumps(cfg)], timeout=timeout, on_report=on_report)
    figures = [json.loads(t) for k, t in res.reports if k == "bench"]
    if res.status != 0 or not figures:
        raise SystemExit(f"the in-browser benchmark failed (status {res.status}):\n{res.stdout[-3000:]}\n"
                         f"{res.stderr[-3000:]}")
    return figures[0], res.timings


def frameworks(ours, peers):
    """Every framework of the run as (title, {"ms": {key: [ms per round]}, "models": {...}, "errors": {...}}):
    webtorch's devices first, then the peers; models as {name: {"first_loss", "final_loss"}}."""
    out = [(DEVICES[d], got) for d, got in ours["devices"].items()]
    for key, title in chosen(peers):
        got = peers[key]
        out.append((title, {"ms": got["ms"], "errors": got["errors"], "host": key in HOST_PEERS,
                            "models": {n: {"first_loss": m.get("firstLoss", math.nan),
                                           "final_loss": m.get("finalLoss", math.nan)}
                                       for n, m in got["models"].items()}}))
    return out


def versus(ours, theirs):
    """[median, min, max] over rounds of the other's time over ours in the same round (our speed over theirs: > 1
    is ours faster); NaNs when either has no round."""
    r = [t / o for o, t in zip(ours, theirs)]
    return [statistics.median(r), min(r), max(r)] if r else [math.nan] * 3


def _median(v):
    return statistics.median(v) if v else math.nan


def model_rows(ours, peers, names):
    """One row per model and framework: the median over rounds, each webtorch device's speed over it per round
    ("vs": {device: [median, min, max]}), the first loss and its difference from webtorch's first device's."""
    rows, fws = [], [f for f in frameworks(ours, peers) if not f[1].get("host")]
    devices = list(ours["devices"])
    for name in names:
        key = f"model:{name}"
        base = ours["devices"][devices[0]]["models"].get(name, {}).get("first_loss", math.nan)
        for title, got in fws:
            theirs, m = got["ms"].get(key, []), got["models"].get(name, {})
            ms, first = _median(theirs), m.get("first_loss", math.nan)
            rows.append({"model": name, "framework": title, "steps_per_s": 1000 / ms, "ms_per_step": ms,
                         "rounds_ms": theirs, "vs": {d: versus(ours["devices"][d]["ms"].get(key, []), theirs)
                                                     for d in devices},
                         "first_loss": first, "first_loss_diff": abs(first - base),
                         "final_loss": m.get("final_loss", math.nan),
                         "error": got["errors"].get(key, "" if theirs else "not run")})
    return rows


def kernel_rows(ours, peers, cfg):
    """matmul GFLOP/s per size and the elementwise chain's ms (medians over rounds) per framework (title ->
    value), and in "vs" each webtorch device's speed over each framework per round ([median, min, max])."""
    rows, devices = [], list(ours["devices"])
    whats = [(f"matmul:{n}", f"matmul {n}x{n} GFLOP/s", 2 * n ** 3 / 1e6) for n in cfg["matmul"]]
    whats.append(("chain", f"8-op elementwise chain, {cfg['chain_n']:,} floats (ms)", None))
    for key, what, flop in whats:
        shown = (lambda ms: flop / ms) if flop else (lambda ms: ms)  # noqa: E731
        row = {"what": what, "values": {}, "vs": {}, "errors": {}}
        for title, got in frameworks(ours, peers):
            theirs = got["ms"].get(key, [])
            if got.get("host") and not flop:
                continue
            row["values"][title] = shown(_median(theirs))
            row["vs"][title] = {d: versus(ours["devices"][d]["ms"].get(key, []), theirs) for d in devices}
            if key in got["errors"]:
                row["errors"][title] = got["errors"][key]
        rows.append(row)
    return rows


def _vs(v):
    med, lo, hi = v
    return "-" if math.isnan(med) else f"{med:.2f} ({lo:.2f}-{hi:.2f})"


def numpy_threads_line(peers):
    """NumPy's sgemm GFLOP/s at each matmul size on one BLAS thread and on every core (medians over rounds)."""
    got = peers.get("numpy", {}).get("by_threads", {})
    parts = []
    for key, rounds in got.items():
        n = int(key.partition(":")[2])
        per = {t: _median([r[t] for r in rounds]) for t in rounds[0]}
        parts.append(f"{n}: " + ", ".join(f"{2 * n ** 3 / 1e6 / ms:.1f} on {t} thread{'s' * (int(t) > 1)}"
                                          for t, ms in per.items()))
    return "NumPy sgemm GFLOP/s (same run, CPython, OpenBLAS) at " + "; ".join(parts) + "." if parts else ""


def markdown(data):
    """bench/results/browser.md: the tables of one run with adapter, browser and date."""
    m, f, c = data["machine"], data["figures"], data["config"]
    devices = c["devices"]
    lines = [f"# webtorch vs TensorFlow.js vs jax-js in one browser ({data['timestamp'][:10]})", "",
             f"Adapter: {data['adapter']}; browser: Chromium {data['browser']} (headless), page cross-origin "
             f"isolated: {data['cross_origin_isolated']}; device cpu's GEMM on "
             f"{f.get('wasm_gemm_threads', 1)} thread(s); machine: {m['cpus']} CPUs "
             f"shared with other work, load average (1 min) {data['load_average_start']:.1f} at the start and "
             f"{m['load_average_1min']:.1f} at the end: the absolute numbers are slow and noisy.",
             f"Method: the frameworks take turns in {c['rounds']} rounds, each keeping its page and model alive: "
             f"webtorch ({', '.join(devices)}), {', '.join(c['peers'])} in even rounds, the reverse in odd ones (none "
             "always runs last, when the load from elsewhere may have eased). Per round and framework: "
             f"{c['steps']} timed training steps (after {c['warmup']} warm-up steps before the first round), "
             f"{c['matmul_reps']} matmuls, {c['chain_reps']} chains (each after one warm-up). Shown: each "
             "framework's median over the rounds; *webtorch DEVICE / it*: that webtorch device's speed over the "
             "framework's, the median of the per-round ratios (min-max over rounds in brackets), so a load change "
             "between rounds moves both sides of a ratio.",
             "Generated by `bench/bench_browser.py`; models in bench/browser/models.py (webtorch) and "
             "bench/browser/peers.js (peers). *first loss Δ*: |its first loss - webtorch "
             f"{devices[0]}'s| (same initial values and data: ~0 means the same math).", "",
             "| model | framework | steps/s | ms/step | " + " | ".join(f"webtorch {d} / it (min-max)" for d in devices)
             + " | first loss | first loss Δ | loss after | error |",
             "|---|---|---:|---:|" + "---:|" * len(devices) + "---:|---:|---:|---|"]
    for r in data["rows"]:
        lines.append(f"| {MODEL_TITLES[r['model']]} | {r['framework']} | {r['steps_per_s']:.2f} | "
                     f"{r['ms_per_step']:.1f} | " + " | ".join(_vs(r["vs"][d]) for d in devices) +
                     f" | {r['first_loss']:.4f} | {r['first_loss_diff']:.1e} | {r['final_loss']:.4f} | {r['error']} |")
    titles = list(data["kernels"][0]["values"]) if data["kernels"] else []
    lines += ["", "| kernel (median) | framework | value | " + " | ".join(f"webtorch {d} / it (min-max)"
                                                                         for d in devices) + " | error |",
              "|---|---|---:|" + "---:|" * len(devices) + "---|"]
    for r in data["kernels"]:
        for t in r["values"]:
            lines.append(f"| {r['what']} | {t} | {r['values'][t]:.3f} | " +
                         " | ".join(_vs(r["vs"][t][d]) for d in devices) + f" | {r['errors'].get(t, '')} |")
    cold = data["cold_start_ms"]
    lines += ["", numpy_threads_line(data["peers"]), "",
              "| cold start: page load -> first finished MLP step (ms, page clock) | " + " | ".join(cold) + " |",
              "|---|" + "---:|" * len(cold), "| | " + " | ".join(f"{v:.0f}" for v in cold.values()) + " |", "",
              f"webtorch's cold start in parts (ms on the page clock, first step on {f['first_step_device']}): "
              f"Pyodide booted at {f['pyodide_booted_at_ms']:.0f}, `import webtorch` done at "
              f"{f['webtorch_imported_at_ms']:.0f}, first step done at {f['first_step_at_ms']:.0f} (its own "
              f"duration {f['first_step_ms']:.0f}): {f['cold_start_overhead_ms']:.0f} ms after Pyodide's boot. "
              f"Wheel: {f['wheel_kib']:.0f} KiB" + (f"; kernels.wasm {f['wasm_kib']:.0f} KiB, instantiated in "
                                                  f"{f['wasm_instantiate_ms']:.0f} ms (compiled while Pyodide booted)"
                                                  if "wasm_kib" in f else "") + ". Python cost per op: " +
              "; ".join(f"{d} {f[f'op_us_no_grad_{d}']:.1f} us (no_grad), {f[f'op_us_autograd_{d}']:.1f} us "
                        "(autograd)" for d in devices if f"op_us_no_grad_{d}" in f) + ".", ""]
    return "\n".join(lines)


def browser_main(args, cfg):
    from webtorch_devtools.session import BrowserSession
    from webtorch_devtools.wheel import build_wheel
    wheel = build_wheel()
    load_start = os.getloadavg()[0]
    with BrowserSession(cross_origin_isolated=True) as session:
        browser_version = session.browser.version
        pages = PeerPages(session, cfg, args.timeout)
        try:
            ours, timings = run_webtorch(session, cfg, args.timeout, pages.turn)
        finally:
            pages.close()
    peers = pages.got

    booted_ms = timings["startMs"] + timings["pyodideBootMs"]
    mlp = ours["devices"].get("webgpu", {}).get("models", {}).get("mlp", {})
    figures = {
        **{f"op_us_{k}_{d}": v for d, got in ours["devices"].items() for k, v in got.get("op_us", {}).items()},
        **{f"{k}_per_step": v for k, v in mlp.get("per_step", {}).items()},
        "pyodide_boot_ms": timings["pyodideBootMs"], "pyodide_booted_at_ms": booted_ms,
        "webtorch_imported_at_ms": timings["startMs"] + timings.get("importMs", timings["loadMs"]),
        "webtorch_loaded_at_ms": timings["startMs"] + timings["loadMs"],
        "first_step_ms": ours["first_step_duration_ms"],
        "first_step_at_ms": ours["first_step_ms"], "cold_start_overhead_ms": ours["first_step_ms"] - booted_ms,
        "wheel_kib": os.path.getsize(wheel) / 1024,
    }
    if "first_step_kernels" in ours:  # webgpu measured
        figures["first_step_kernels_compiled"] = ours["first_step_kernels"]
    if "wasm_runtime" in ours:
        figures.update(wasm_kib=ours["wasm_runtime"]["module_bytes"] / 1024,
                       wasm_instantiate_ms=ours["wasm_runtime"]["instantiate_ms"],
                       wasm_gemm_threads=ours["wasm_runtime"]["gemm_threads"])
    if "op_us_no_grad_webgpu" in figures:  # the goal's name: recording an op on webgpu
        figures["record_us_no_grad"] = figures["op_us_no_grad_webgpu"]
    shown = [{"figure": k, "value": float(v), "goal": (f"<= {GOALS[k]}" if k in GOALS else "")}
             for k, v in figures.items()]
    figures["first_step_device"] = ours["first_step_device"]
    print(format_table(shown, [("figure", "webtorch in Pyodide (Chromium)", "s"), ("value", "value", ".2f"),
                               ("goal", "goal", "s")]))
    print()
    kernels = kernel_rows(ours, peers, cfg)
    print(format_table([{"what": r["what"], "framework": t, "value": v} for r in kernels for t, v in r["values"].items()],
                       [("what", "kernel (median over rounds)", "s"), ("framework", "framework", "s"),
                        ("value", "value", ".3f")]))
    print(numpy_threads_line(peers))
    print()
    cold = {DEVICES[ours["first_step_device"]]: ours["first_step_ms"]}
    for key, title in chosen(peers):
        if key not in HOST_PEERS:
            cold[title] = peers[key]["models"].get(cfg["models"][0], {}).get("firstStepAtMs", math.nan)
    print("cold start, page load -> first finished step (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in cold.items()))
    rows = model_rows(ours, peers, cfg["models"])
    for r in rows:
        for d, v in r["vs"].items():
            r[f"vs_{d}"] = v[0]
    extra = dict(quick=args.quick, steps=cfg["steps"], warmup=cfg["warmup"], rounds=cfg["rounds"],
                 load_average_start=load_start, config=cfg, figures=figures, goals=GOALS,
                 adapter=ours.get("adapter", "none (webgpu not measured)"), browser=browser_version,
                 cross_origin_isolated=timings.get("crossOriginIsolated"), browser_timings=timings, kernels=kernels,
                 cold_start_ms=cold, webtorch=ours, peers=peers)
    path = report("browser", rows, [("model", "model", "s"), ("framework", "framework", "s"),
                                    ("steps_per_s", "steps/s", ".2f"), ("ms_per_step", "ms/step", ".1f")] +
                  [(f"vs_{d}", f"webtorch {d} / it", ".2f") for d in cfg["devices"]] +
                  [("first_loss", "first loss", ".4f"), ("first_loss_diff", "diff", ".1e"),
                   ("final_loss", "loss", ".4f"), ("error", "error", "s")], path=args.out, **extra)
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
    ap.add_argument("--steps", type=int, help="timed training steps per framework, model and round (default 3; "
                    "--native: per framework and model, default 10)")
    ap.add_argument("--warmup", type=int, default=2, help="untimed steps before them")
    ap.add_argument("--rounds", type=int, default=4, help="rounds the frameworks take turns in (the browser side)")
    ap.add_argument("--models", default=",".join(models.MODELS), help="comma-separated, of " + ",".join(models.MODELS))
    ap.add_argument("--devices", default=",".join(DEVICES), help="webtorch's devices in the page, comma-separated, "
                    "of " + ",".join(DEVICES) + " (the first one also takes the cold-start step)")
    ap.add_argument("--peers", default=",".join(k for k, _ in PEERS),
                    help="comma-separated peers to run, of " + ",".join(k for k, _ in PEERS))
    ap.add_argument("--record-ops", type=int, default=1000, help="ops recorded per op-cost timing")
    ap.add_argument("--cpu-threads", type=int, help="torch.set_num_threads in the page: the threads device cpu's "
                    "GEMM may use (default: every core; its worker threads need the isolated page)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 1 step after 1 warm-up, small kernels")
    ap.add_argument("--native", action="store_true", help="the CPython side instead of the browser")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds allowed for the whole browser run")
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
    devices = args.devices.split(",")
    if sorted(set(devices) - set(DEVICES)) or not devices:
        ap.error(f"unknown device(s) in {devices}: choose from {','.join(DEVICES)}")
    cfg = {"steps": args.steps if args.steps is not None else 10 if args.native else 3, "warmup": args.warmup,
           "rounds": args.rounds, "record_ops": args.record_ops, "models": names, "devices": devices, "peers": peers,
           "matmul": [256, 512, 1024], "matmul_reps": 5, "chain_n": 1 << 20, "chain_reps": 10,
           "cpu_threads": args.cpu_threads}
    if args.quick:
        cfg.update(steps=1, warmup=1, rounds=2, record_ops=200, matmul=[64], matmul_reps=1, chain_n=1 << 12, chain_reps=1)
    (native_main if args.native else browser_main)(args, cfg)


if __name__ == "__main__":
    main()
