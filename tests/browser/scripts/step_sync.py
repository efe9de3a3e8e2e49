"""Device synchronization per training step on webgpu: readbacks, flushes, submits (and, inside Pyodide,
calls into bridge.js and GPU waits) of steady-state steps of a shuffled mini-batch classifier with Adam,
ending in ``loss.item()``. Runs in CPython (native webgpu) and in the browser; prints one JSON line.

The step reads the loss once; everything else -- Adam's step counters, the range checks of the shuffled
indices and of the class targets -- must be known on the host, so a step is one flush and one readback.
"""
import json
import sys

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn

WARMUP, MEASURED, BATCH = 2, 5, 32


def main():
    previous = torch.get_default_device()
    torch.set_default_device("webgpu")  # the device under test, in CPython and in the page alike
    try:
        return _run("webgpu")
    finally:
        torch.set_default_device(previous)


def _fallback_counts():
    return dict(torch.webgpu.stats()["host_fallback_ops"])


def _run(dev):
    torch.manual_seed(0)
    fallbacks_before = _fallback_counts()
    n = 256
    x = torch.randn(n, 16)
    y = torch.tensor([i % 10 for i in range(n)])  # uploaded from the host: its bounds are known
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    perm = torch.randperm(n, generator=torch.Generator(device=dev).manual_seed(0))
    per_step, losses = [], []
    for i in range(WARMUP + MEASURED):
        before = torch.webgpu.stats()
        idx = perm[(i * BATCH) % n:(i * BATCH) % n + BATCH]
        loss = F.cross_entropy(model(x[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        after = torch.webgpu.stats()
        if i >= WARMUP:
            per_step.append({k: after[k] - before[k] for k in
                             ("readbacks", "flushes", "submits", "bridge_calls", "gpu_waits") if k in after})
    steps = [opt.state[p]["step"].item() for p in model.parameters()]
    return {"per_step": per_step, "losses": losses, "steps": steps, "platform": sys.platform,
            "fallbacks": {k: v - fallbacks_before.get(k, 0) for k, v in _fallback_counts().items()
                          if v != fallbacks_before.get(k, 0)}}


if __name__ == "__main__":
    print(json.dumps(main()))
