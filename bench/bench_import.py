"""Cold start of webtorch inside Pyodide without a browser: Node + the npm pyodide package (bench/browser/
import_time.mjs, a fresh process per measurement) installs the wheel and imports webtorch.

    .venv/bin/python bench/bench_import.py [--rounds 5] [--wheel OTHER.whl ...] [--importtime]

Per wheel (this checkout's, built by webtorch_devtools.wheel, and any --wheel to compare, e.g. an older build)
and per install method (Pyodide's unpackArchive, what web/loader.js did; web/zip_files.js, what it does now:
inflated during the boot, written after it): the wheel's size, the install time after the boot, `import
webtorch`, the import of the webgpu backend (what the first webgpu op adds), module counts; medians over
``--rounds``, rounds interleaved so load on this shared machine hits every variant alike. ``--importtime``
adds one run with Python's -X importtime and lists the modules whose own import time is largest. For a wheel whose
bytecode has no line tables (webtorch/_line_tables.py): ``restore()``'s time once a first step's modules are
imported (the tables read from the on-demand archive beside the wheel, ctypes imported), the code objects and the
KiB of tables it restores.
Writes bench/results/import.json.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from _report import report

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "py"))
SCRIPT = HERE / "browser" / "import_time.mjs"
METHODS = ("unpackArchive", "zip_files")
FIGURES = ("install_ms", "import_ms", "import_cpu_ms", "webgpu_backend_import_ms")
RESTORE = ("restore_ms", "restore_cpu_ms")  # the line tables' restore (0: a wheel that has them)


def run_once(pyodide, wheel, method, importtime=False):
    cmd = ["node", "--no-warnings", str(SCRIPT), str(pyodide), str(wheel), method] + (["importtime"] if importtime else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode or not lines:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}")
    return json.loads(lines[-1]), r.stderr


def import_profile(stderr, top):
    """The ``top`` modules by their own import time (us) from -X importtime lines, and the stdlib modules
    imported while webtorch was."""
    rows = []
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append({"module": m[4], "self_us": int(m[1]), "cumulative_us": int(m[2]), "depth": len(m[3]) // 2})
    at = next(i for i, r in enumerate(rows) if r["module"] == "webtorch")
    start = at
    while start > 0 and rows[start - 1]["depth"] > 0:
        start -= 1
    ours = rows[start:at + 1]
    stdlib = [r for r in ours if r["module"].split(".")[0] != "webtorch"]
    return sorted(ours, key=lambda r: -r["self_us"])[:top], stdlib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--wheel", action="append", default=[], help="another wheel to compare")
    ap.add_argument("--importtime", action="store_true")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args()
    from webtorch_devtools.bytecode import pyodide_dir
    from webtorch_devtools.wheel import build_wheel
    pyodide = pyodide_dir(ROOT)
    wheels = {"this checkout": build_wheel()} | {Path(w).name: Path(w) for w in args.wheel}
    got = {(w, m): [] for w in wheels for m in METHODS}
    for _ in range(args.rounds):
        for (w, m), runs in got.items():
            runs.append(run_once(pyodide, wheels[w], m)[0])
    rows = []
    for (w, m), runs in got.items():
        rows.append({"wheel": w, "install": m, "wheel_kib": os.path.getsize(wheels[w]) / 1024,
                     **{k: statistics.median(r[k] for r in runs) for k in FIGURES},
                     "modules_at_import": runs[0]["modules_at_import"], "modules_shipped": runs[0]["modules_shipped"],
                     **{k: (statistics.median(r["restore"][k] for r in runs) if runs[0]["restore"]["code_objects"]
                            else 0) for k in RESTORE},
                     "restored_code_objects": runs[0]["restore"]["code_objects"],
                     "restored_table_kib": runs[0]["restore"]["table_kib"] or 0,
                     "boot_ms": statistics.median(r["boot_ms"] for r in runs)})
    extra = {}
    if args.importtime:
        top, stdlib = import_profile(run_once(pyodide, wheels["this checkout"], "zip_files", True)[1], args.top)
        extra = {"importtime_top": top, "importtime_stdlib": stdlib}
    report("import", rows, [("wheel", "wheel", "s"), ("install", "install", "s"), ("wheel_kib", "KiB", ".0f"),
                            ("install_ms", "install ms", ".0f"), ("import_ms", "import ms", ".0f"),
                            ("import_cpu_ms", "import CPU ms", ".0f"),
                            ("webgpu_backend_import_ms", "+webgpu ms", ".0f"), ("modules_at_import", "modules", "d"),
                            ("modules_shipped", "shipped", "d"), ("boot_ms", "boot ms", ".0f"),
                            ("restore_ms", "restore ms", ".0f"), ("restore_cpu_ms", "restore CPU ms", ".0f"),
                            ("restored_code_objects", "code objects", "d"),
                            ("restored_table_kib", "tables KiB", ".0f")],
           title=f"Pyodide under Node, medians of {args.rounds} (install and import after the boot)",
           rounds=args.rounds, pyodide=json.loads((pyodide / "package.json").read_text())["version"], **extra)
    for r in extra.get("importtime_top", []):
        print(f"{r['self_us'] / 1000:8.1f} ms self {r['cumulative_us'] / 1000:8.1f} ms cumulative  {r['module']}")
    if extra:
        print("stdlib imported by webtorch: " + ", ".join(
            f"{r['module']} {r['self_us'] / 1000:.1f}" for r in extra["importtime_stdlib"]))


if __name__ == "__main__":
    main()
