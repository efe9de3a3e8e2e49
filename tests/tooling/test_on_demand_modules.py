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

import pytest

from webtorch_devtools.bytecode import ON_DEMAND, on_demand_path
from webtorch_devtools.wheel import build_wheel

from in_pyodide import run_json

# a first training step as tutorial 05 takes it, and a CNN's as PyTorch's MNIST example does (Conv2d, pooling,
# dropout, batch norm, Adam, shuffled batches from a DataLoader, gradient clipping, accuracy under no_grad), a
# checkpoint saved and loaded, what the notebook's kernel imports (its torch alias too), and torch.accelerator,
# torch.compile and set_float32_matmul_precision; device "cpu" is the WebAssembly backend here, as in the page, or
# "webgpu" (DEVICE)
FIRST_STEP = """
import io, json, os, sys
import webtorch as torch
from webtorch import nn
import webtorch.nn.functional as F
from webtorch.notebook import LinePlot, show_image, tqdm
from webtorch.utils.data import DataLoader, TensorDataset
import webtorch.notebook.kernel
import webtorch.compat  # the kernel's `import torch` alias (on by default)
webtorch.compat.alias_torch()
device = os.environ["DEVICE"]
torch.accelerator.is_available()  # how PyTorch's tutorials pick their device; and scripts' usual settings
torch.set_float32_matmul_precision("high")
torch.manual_seed(0)
model = torch.compile(nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10)).to(device))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(16, 64), torch.randint(0, 10, (16,))
perm = torch.randperm(16)
loss = F.cross_entropy(model(x[perm].to(device)), y[perm].to(device))
optimizer.zero_grad()
loss.backward()
optimizer.step()
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Dropout(0.25),
                    nn.Linear(64, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 10)).to(device)
optimizer = torch.optim.Adam(cnn.parameters(), lr=1e-3)
images, labels = torch.randn(32, 1, 8, 8), torch.randint(0, 10, (32,))
for xb, yb in DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True):
    loss = F.cross_entropy(cnn(xb.to(device)), yb.to(device))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(cnn.parameters(), 1.0)
    optimizer.step()
cnn.eval()
with torch.no_grad():
    accuracy = (cnn(images.to(device)).argmax(1) == labels.to(device)).float().mean().item()
buffer = io.BytesIO()
torch.save(cnn.state_dict(), buffer)
cnn.load_state_dict(torch.load(io.BytesIO(buffer.getvalue())))
print(json.dumps(sorted(m for m in sys.modules if m.startswith("webtorch."))))
"""

# one name of each family loaded at first use, from the archive beside the wheel (device "cpu": the wasm kernels)
FIRST_USE = """
import json, sys
import webtorch as torch
from webtorch import nn
import webtorch.nn.functional as F
before = sorted(m for m in sys.modules if m.startswith(("webtorch.ops.", "webtorch.backends.wasm.")))
torch.manual_seed(0)
image = torch.arange(6.0).reshape(1, 1, 2, 3)
identity = F.affine_grid(torch.tensor([[[1.0, 0, 0], [0, 1, 0]]]), (1, 1, 2, 3), align_corners=True)
attention = nn.MultiheadAttention(4, 2)
q = torch.randn(3, 1, 4)
got = {
    "solve": torch.linalg.solve(torch.tensor([[2.0, 0], [1, 4]]), torch.tensor([2.0, 9])).tolist(),
    "sort": torch.tensor([3, 1, 2]).sort().values.tolist(),
    "unique": torch.tensor([3, 1, 3]).unique().tolist(),
    "cumsum": torch.tensor([1, 2, 3]).cumsum(0).tolist(),
    "pad": F.pad(torch.tensor([[[1.0, 2, 3]]]), (2, 1), mode="reflect").tolist(),
    "embedding": F.embedding(torch.tensor([2, 0]), torch.tensor([[1.0], [2], [3]])).tolist(),
    "embedding_bag": F.embedding_bag(torch.tensor([0, 2, 1]), torch.tensor([[1.0], [2], [3]]), torch.tensor([0, 2]),
                                     mode="sum").tolist(),
    "grid_sample": F.grid_sample(image, identity, align_corners=True).tolist(),
    "attention": list(attention(q, q, q)[0].shape),
    "isin": torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2])).tolist(),
    "combinations": torch.combinations(torch.tensor([1, 2, 3])).tolist(),
    "fractional": list(F.fractional_max_pool2d(torch.randn(1, 1, 4, 4), 2, output_size=2).shape),
    "diff": torch.tensor([1.0, 4, 9]).diff().tolist(),
    "histc": torch.histc(torch.tensor([0.0, 1, 1, 2]), bins=3).tolist(),
    "quantile": torch.tensor([1.0, 2, 3, 4]).quantile(0.5).item(),
    "cov": torch.tensor([[1.0, 2, 3], [2, 4, 6]]).cov().tolist(),
    "matrix_exp": torch.linalg.matrix_exp(torch.zeros(2, 2)).tolist(),
    "cdist": torch.cdist(torch.tensor([[0.0, 0]]), torch.tensor([[3.0, 4]])).tolist(),
    "grouped_mm": list(F.grouped_mm(torch.ones(4, 4), torch.ones(2, 4, 4), offs=torch.tensor([2, 4],
                                                                                     dtype=torch.int32)).shape),
}
# every family's functions honour __torch_function__ (made public by ops/__init__.py, or by the family itself)
got["public"] = [hasattr(f, "_torch_function_impl") for f in (torch.add, F.linear_cross_entropy, torch.diff,
                                                               F.grid_sample, F.multi_head_attention_forward)]
files = [sys.modules[m].__file__ for m in ("webtorch.ops.grid_sample", "webtorch.ops.differences",
                                          "webtorch.backends.wasm.linalg")]
json.dumps({"got": got, "before": before, "files": files})
"""

EXPECTED = {
    "solve": [1.0, 2.0], "sort": [1, 2, 3], "unique": [1, 3], "cumsum": [1, 3, 6],
    "pad": [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]], "embedding": [[3.0], [1.0]], "embedding_bag": [[4.0], [2.0]],
    "grid_sample": [[[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]], "attention": [3, 1, 4], "isin": [False, True, False],
    "combinations": [[1, 2], [1, 3], [2, 3]], "fractional": [1, 1, 2, 2], "grouped_mm": [4, 4],
    "diff": [3.0, 5.0], "histc": [1.0, 2.0, 1.0], "quantile": 2.5, "cov": [[1.0, 2.0], [2.0, 4.0]],
    "matrix_exp": [[1.0, 0.0], [0.0, 1.0]], "cdist": [[5.0]], "public": [True] * 5,
}

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


@pytest.mark.parametrize("device", ["cpu", "webgpu"])
def test_a_first_step_imports_no_on_demand_module(device):
    r = subprocess.run([sys.executable, "-c", FIRST_STEP], capture_output=True, text=True, timeout=300, check=False,
                       env={**os.environ, "WEBTORCH_CPU_BACKEND": "wasm", "DEVICE": device})
    assert r.returncode == 0, r.stderr[-3000:]
    imported = json.loads(r.stdout.splitlines()[-1])
    assert {"webtorch.optim.adam", "webtorch.serialization.load_objects", "webtorch.nn.utils.clip_grad",
            "webtorch.utils.data._utils.collate"} <= set(imported), imported
    assert [m for m in imported if _on_demand(m)] == []


def test_names_loaded_at_first_use_work_from_the_archive_beside_the_wheel():
    got = run_json(build_wheel(), FIRST_USE)
    assert not [m for m in got["before"] if _on_demand(m)], got["before"]
    assert got["got"] == EXPECTED, got["got"]
    assert all(f.endswith(".pyc") and "/site-packages/webtorch/" in f for f in got["files"]), got["files"]


def test_on_demand_module_from_the_archive_beside_the_wheel():
    got = run_json(build_wheel(), PROBE)
    assert got["error"] is None and got["sample"] == [3], got
    assert got["file"].endswith("/site-packages/webtorch/distributions/__init__.pyc"), got


def test_missing_archive_names_the_module_and_the_file(tmp_path):
    wheel = shutil.copy(build_wheel(), tmp_path)  # the wheel alone: nothing beside it
    assert on_demand_path(build_wheel()).is_file() and not on_demand_path(wheel).exists()
    got = run_json(wheel, PROBE.replace("import webtorch\n", "import webtorch\nimport webtorch.notebook.kernel\n"))
    assert got["error"].startswith("cannot import webtorch.distributions: it is one of webtorch's on-demand "
                                   "modules"), got
    assert "webtorch.browser.on_demand.start(URL)" in got["error"], got
    assert "/site-packages/webtorch/_bytecode_on_demand.zst" in got["error"], got


def test_an_archive_of_another_build_is_refused(tmp_path):
    wheel = shutil.copy(build_wheel(), tmp_path)
    other = bytearray(on_demand_path(build_wheel()).read_bytes())
    other[-1] ^= 1
    on_demand_path(wheel).write_bytes(bytes(other))
    got = run_json(wheel, PROBE)
    assert got["error"].startswith("cannot import webtorch.distributions: ") and "another build's" in got["error"], got
