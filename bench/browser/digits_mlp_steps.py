"""The digits MLP's training step (64-128-10, ReLU, batch 64, Adam, the loss read back every step) on digits-shaped
random data (1,437 x 64, 10 classes: the work per step is what is measured), timed where it runs: a cell of the
notebook app (bench/bench_notebook.py), a JupyterLite cell (bench/bench_lite.py) or `webtorch run --browser`.

Prints one JSON line: first_step_ms (its kernels compile in it) and steps_per_s, the best of WINDOWS windows of
STEPS steps after WARMUP (the machine is shared: the best window is the least disturbed one). ``argv[1]``, when a
number, sets STEPS."""
import json
import sys
import time

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn

WARMUP, WINDOWS, BATCH = 3, 3, 64
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 40


def main(steps=STEPS):
    torch.manual_seed(0)
    device = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
    x = torch.randn(1437, 64, device=device)
    y = torch.randint(0, 10, (1437,), device=device)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    def step(i):
        a = (i * BATCH) % (x.shape[0] - BATCH)
        loss = F.cross_entropy(model(x[a:a + BATCH]), y[a:a + BATCH])
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()

    t0 = time.perf_counter()
    step(0)
    first_ms = (time.perf_counter() - t0) * 1000
    for i in range(1, WARMUP + 1):
        step(i)
    best = 0.0
    for _ in range(WINDOWS):
        t0 = time.perf_counter()
        for i in range(steps):
            last = step(i)
        best = max(best, steps / (time.perf_counter() - t0))
    print(json.dumps({"steps_per_s": round(best, 2), "first_step_ms": round(first_ms, 1), "loss": round(last, 4),
                      "steps": steps, "device": str(device)}))


main()
