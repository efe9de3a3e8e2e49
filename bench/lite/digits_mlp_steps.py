"""The digits MLP's training step (64-128-10, batch 64, Adam, the loss read back every step) timed where it
runs: inside JupyterLite's kernel (bench/bench_lite.py runs this file in a cell) or `webtorch run --browser`.
Random data of the digits' shape: the figure is the step's speed, not the model's accuracy.
Prints one JSON line: first_step_ms (kernels compile in it), steps_per_s over STEPS steps after 3 warm-up."""
import json
import sys
import time

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 60


def main(steps=STEPS):
    torch.manual_seed(0)
    device = torch.get_default_device()
    x = torch.randn(1437, 64, device=device)
    y = torch.randint(0, 10, (1437,), device=device)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    def step(i):
        start = (i * 64) % (1437 - 64)
        loss = F.cross_entropy(model(x[start:start + 64]), y[start:start + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    t0 = time.perf_counter()
    step(0)
    first_ms = (time.perf_counter() - t0) * 1000
    for i in range(1, 4):
        step(i)
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    rate = steps / (time.perf_counter() - t0)
    print(json.dumps({"device": str(device), "first_step_ms": round(first_ms, 1), "steps_per_s": round(rate, 2),
                      "steps": steps}))


main()
