"""Python code run inside Pyodide under Node, a wheel installed as web/loader.js installs it (run_in_pyodide.mjs
beside this file): the JSON text the code's last expression gives, parsed."""
import json
import subprocess
from pathlib import Path

from webtorch_devtools.bytecode import pyodide_dir

ROOT = Path(__file__).resolve().parents[2]


def run_json(wheel, code, timeout=300):
    r = subprocess.run(["node", "--no-warnings", str(Path(__file__).with_name("run_in_pyodide.mjs")),
                        str(pyodide_dir(ROOT)), str(wheel), code], capture_output=True, text=True, timeout=timeout,
                       check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)
