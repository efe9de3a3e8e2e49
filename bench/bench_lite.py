"""webtorch in JupyterLite: the offline site `webtorch lite build` makes, measured in headless Chromium.

    .venv/bin/python bench/bench_lite.py [--steps 60] [--out PATH]

Figures: the site's size (bytes, files) and build time; navigation to an idle kernel (JupyterLab loads,
the Pyodide kernel boots and installs its start-up wheels, webtorch preloaded); the first training step
of the digits MLP in a cell, after a first cell that imported webtorch and asked for the device, as a
tutorial does (kernels not warmed up by then compile in the step); steps/s of that MLP (64-128-10, batch 64,
Adam, loss.item() every step; bench/browser/digits_mlp_steps.py) inside the JupyterLite kernel against the
same script under `webtorch run --browser`, in the same Chromium build, one after the other. Goal: the
kernel within 10% of run --browser. On this machine WebGPU is SwiftShader (the CPU) and the machine is
shared: compare the ratio within one run. Writes bench/results/lite.json.
"""
import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from _report import last_json_line, report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))

from webtorch_devtools.chromium import launch  # noqa: E402
from webtorch_devtools.server import Server  # noqa: E402
from webtorch_devtools.session import BrowserSession  # noqa: E402
from webtorch_devtools.lite_driver import LitePage, output_text  # noqa: E402
from webtorch_devtools.lite_site import build_site, default_contents, site_size  # noqa: E402

SCRIPT = HERE / "browser" / "digits_mlp_steps.py"
GOAL_RATIO = 0.9


def in_jupyterlite(site, steps):
    from playwright.sync_api import sync_playwright
    with Server(roots={"": site}, cross_origin_isolated=True) as server, sync_playwright() as pw:
        browser = launch(pw)
        try:
            lite = LitePage(browser.new_page(), server.url)
            idle_s = lite.open("bench.ipynb")
            # a notebook's first cell imports webtorch and asks for the accelerator; the training comes cells later
            lite.wait_output(lite.run_cell("import webtorch\nprint(webtorch.accelerator.current_accelerator())"),
                             "webgpu")
            lite.wait_done(timeout_s=120)
            cell = lite.run_cell(f"import sys\nsys.argv = ['{SCRIPT.name}', '{steps}']\n"
                                 f"exec(compile(open('{SCRIPT.name}').read(), '{SCRIPT.name}', 'exec'), "
                                 "{'__name__': '__main__'})")
            lite.wait_output(cell, "steps_per_s", timeout_s=900)
            text = "".join(output_text(o) for o in lite.cell_outputs(cell))
        finally:
            browser.close()
    return idle_s, last_json_line(text)


def in_run_browser(steps):
    with BrowserSession() as s:
        r = s.run(SCRIPT, [str(steps)], worker=True, timeout=900)
    if r.status != 0:
        raise RuntimeError(f"webtorch run --browser failed:\n{r.stdout}\n{r.stderr}")
    return last_json_line(r.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        nb = Path(tmp) / "bench.ipynb"
        nb.write_text(json.dumps({"cells": [], "metadata": {"kernelspec": {"name": "python", "display_name":
                                 "Python (Pyodide)", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}))
        t0 = time.perf_counter()
        site = build_site(Path(tmp) / "site", contents=default_contents() + [nb, SCRIPT])
        build_s = time.perf_counter() - t0
        size, files = site_size(site)
        idle_s, lite = in_jupyterlite(site, args.steps)
    run = in_run_browser(args.steps)
    ratio = lite["steps_per_s"] / run["steps_per_s"]
    rows = [
        {"figure": "site size (MiB)", "value": size / 2**20},
        {"figure": "site files", "value": float(files)},
        {"figure": "site build (s)", "value": build_s},
        {"figure": "navigation -> kernel idle (s)", "value": idle_s},
        {"figure": "first training step in a cell (ms)", "value": lite["first_step_ms"]},
        {"figure": "first training step, run --browser worker (ms)", "value": run["first_step_ms"]},
        {"figure": "digits MLP steps/s, JupyterLite kernel", "value": lite["steps_per_s"]},
        {"figure": "digits MLP steps/s, run --browser worker", "value": run["steps_per_s"]},
        {"figure": f"ratio kernel / run --browser (goal >= {GOAL_RATIO})", "value": ratio},
    ]
    report("lite", rows, [("figure", "webtorch in JupyterLite (headless Chromium, SwiftShader WebGPU)", "s"),
                          ("value", "value", ".2f")], path=args.out, steps=args.steps, devices=[lite["device"],
                          run["device"]], goal_ratio=GOAL_RATIO)


if __name__ == "__main__":
    main()
