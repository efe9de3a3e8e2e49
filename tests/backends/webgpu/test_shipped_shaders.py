"""The WGSL kernels as the wheel ships them, without their comment lines (webtorch_devtools/wgsl_comments.py):
the backend's rewriting of them (specialization constants, int64 value functions, matmul/conv epilogues, the
optimizer's per-slot blocks and ``// when FLAG`` lines, subgroup reductions) gives kernels that compute exactly
what the commented files' kernels compute, family by family, on this adapter."""
import json
import os
import subprocess
import sys
from pathlib import Path

from webtorch_devtools.wgsl_comments import MARKERS, without_comment_lines

ROOT = Path(__file__).resolve().parents[3]
SHADERS = ROOT / "webgpu-shaders"

# every family with a rewritten template, on "webgpu"; prints each result's values
STEPS = r"""
import json, sys
from webtorch.backends.webgpu import wgsl_loader
if sys.argv[1] == "shipped":
    from webtorch_devtools.wgsl_comments import without_comment_lines
    wgsl_loader._texts = {n: without_comment_lines(t) for n, t in wgsl_loader._shipped().items()}
import webtorch as torch
from webtorch import nn
torch.set_default_device("webgpu")
torch.manual_seed(0)
out = {}
x = torch.randn(8, 1, 12, 12)
model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(100, 32), nn.ReLU(),
                      nn.LayerNorm(32), nn.Linear(32, 10))
for name, opt in (("adam", torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)),
                  ("sgd", torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)),
                  ("adagrad", torch.optim.Adagrad(model.parameters(), lr=0.1)),
                  ("adamw", torch.optim.AdamW(model.parameters(), lr=1e-2, capturable=True))):
    for _ in range(2):
        loss = torch.nn.functional.cross_entropy(model(x), torch.arange(8) % 10)
        opt.zero_grad()
        loss.backward()
        opt.step()
    out[name] = loss.item()
out["softmax"] = torch.randn(6, 300).softmax(-1).sum(0).tolist()
v = torch.randint(-10**12, 10**12, (300,), dtype=torch.int64)
out["sort_int64"] = v.sort().values.tolist()
out["cumsum_int64"] = v.cumsum(0).tolist()
out["cumsum"] = torch.randn(1000).cumsum(0).tolist()
out["searchsorted"] = torch.searchsorted(torch.arange(0.0, 100.0, 3.0), torch.randn(50) * 40).tolist()
out["randn"] = torch.randn(64).tolist()
out["bmm"] = (torch.randn(3, 17, 9) @ torch.randn(3, 9, 5)).relu().flatten().tolist()
out["pad"] = torch.nn.functional.pad(torch.randn(2, 3, 4), (1, 2, 0, 1), mode="reflect").flatten().tolist()
print(json.dumps(out))
"""


def _run(variant):
    r = subprocess.run([sys.executable, "-c", STEPS, variant], capture_output=True, text=True, timeout=600,
                       check=False, env={**os.environ, "PYTHONPATH": str(ROOT / "py")})
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.splitlines()[-1])


def test_shipped_kernels_compute_what_the_commented_ones_do():
    assert _run("shipped") == _run("commented")


def test_only_comment_lines_go():
    for p in sorted(SHADERS.glob("*.wgsl")):
        text = p.read_text()
        short = without_comment_lines(text)
        kept = [ln for ln in text.splitlines() if ln.strip() and not (ln.strip().startswith("//")
                                                                   and not ln.strip().startswith(MARKERS))]
        assert [ln for ln in short.splitlines() if ln.strip()] == kept, p.name
        assert len(short) < len(text), p.name
