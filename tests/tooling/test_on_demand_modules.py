"""The runtime wheel's on-demand modules (webtorch_devtools/bytecode.py's ON_DEMAND: a second archive beside the
wheel, webtorch/_bytecode_archive.py): importing webtorch, the notebook's kernel and a first training step need
none of them, one of them imports from the archive beside the wheel and works, and without that archive its
import fails naming the module and where the archive should be. The page's fetch of it:
tests/browser/test_on_demand_browser.py."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from webtorch_devtools.bytecode import ON_DEMAND, on_demand_path, pyodide_dir
from webtorch_devtools.wheel import build_wheel

ROOT = Path(__file__).resolve().parents[2]

# a first training step as tutorial 05 takes it (device "cpu" here: the WebAssembly backend, as in the page), a
# checkpoint saved and loaded, and what the notebook's kernel imports (its torch alias too)
FIRST_STEP = """
import io, json, sys
import webtorch as torch
from webtorch import nn
import webtorch.nn.functional as F
from webtorch.notebook import LinePlot, show_image, tqdm
import webtorch.notebook.kernel
import webtorch.compat  # the kernel's `import torch` alias (on by default)
webtorch.compat.alias_torch()
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(16, 64), torch.randint(0, 10, (16,))
loss = F.cross_entropy(model(x[torch.randperm(16)]), y)
optimizer.zero_grad()
loss.backward()
optimizer.step()
buffer = io.BytesIO()
torch.save(model.state_dict(), buffer)
model.load_state_dict(torch.load(io.BytesIO(buffer.getvalue())))
print(json.dumps(sorted(m for m in sys.modules if m.startswith("webtorch."))))
"""

PROBE = """
import json
import webtorch
try:
    import webtorch.distributions
    error = None
except ImportError as e:
    error = str(e)
sample = None if error else webtorch.distributions.Normal(webtorch.tensor(0.0), webtorch.tensor(1.0)).sample((3,)).shape
json.dumps({"error": error, "sample": None if sample is None else list(sample),
            "file": None if error else webtorch.distributions.__file__})
"""


def _on_demand(module):
    return any(module == p or module.startswith(p + ".") for p in ON_DEMAND)


def _pyodide(wheel, code):
    r = subprocess.run(["node", "--no-warnings", str(ROOT / "tests" / "support" / "run_in_pyodide.mjs"),
                        str(pyodide_dir(ROOT)), str(wheel), code], capture_output=True, text=True, timeout=300,
                       check=False)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


def test_a_first_step_imports_no_on_demand_module():
    r = subprocess.run([sys.executable, "-c", FIRST_STEP], capture_output=True, text=True, timeout=300, check=False,
                       env={**os.environ, "WEBTORCH_CPU_BACKEND": "wasm"})
    assert r.returncode == 0, r.stderr[-3000:]
    imported = json.loads(r.stdout.splitlines()[-1])
    assert "webtorch.optim.adam" in imported and "webtorch.serialization.load_objects" in imported, imported
    assert [m for m in imported if _on_demand(m)] == []


def test_on_demand_module_from_the_archive_beside_the_wheel():
    got = _pyodide(build_wheel(), PROBE)
    assert got["error"] is None and got["sample"] == [3], got
    assert got["file"].endswith("/site-packages/webtorch/distributions/__init__.pyc"), got


def test_missing_archive_names_the_module_and_the_file(tmp_path):
    wheel = shutil.copy(build_wheel(), tmp_path)  # the wheel alone: nothing beside it
    assert on_demand_path(build_wheel()).is_file() and not on_demand_path(wheel).exists()
    got = _pyodide(wheel, PROBE.replace("import webtorch\n", "import webtorch\nimport webtorch.notebook.kernel\n"))
    assert got["error"].startswith("cannot import webtorch.distributions: it is one of webtorch's on-demand "
                                   "modules"), got
    assert "webtorch.browser.on_demand.start(URL)" in got["error"], got
    assert "/site-packages/webtorch/_bytecode_on_demand.zst" in got["error"], got


def test_an_archive_of_another_build_is_refused(tmp_path):
    wheel = shutil.copy(build_wheel(), tmp_path)
    other = bytearray(on_demand_path(build_wheel()).read_bytes())
    other[-1] ^= 1
    on_demand_path(wheel).write_bytes(bytes(other))
    got = _pyodide(wheel, PROBE)
    assert got["error"].startswith("cannot import webtorch.distributions: ") and "another build's" in got["error"], got
