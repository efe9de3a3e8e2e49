"""Training steps/s of the digits MLP (64-128-10, ReLU, batch 64, Adam, the loss read back every step) on
digits-shaped data (1,437 x 64, 10 classes; random: the work per step is what is measured). Run both as a
notebook cell and as a `webtorch run --browser` script by bench/bench_notebook.py; prints one BENCH line with
the best of WINDOWS timed windows (the machine is shared: the best window is the least disturbed one)."""
import time

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn

WARMUP, WINDOWS, STEPS, BATCH = 3, 3, 40, 64
torch.manual_seed(0)
device = torch.get_default_device()
x = torch.randn(1437, 64, device=device)
y = torch.randint(0, 10, (1437,), device=device)
model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)


def train_step(i):
    a = (i * BATCH) % (x.shape[0] - BATCH)
    loss = F.cross_entropy(model(x[a:a + BATCH]), y[a:a + BATCH])
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


for i in range(WARMUP):
    train_step(i)
best = 0.0
for w in range(WINDOWS):
    t0 = time.perf_counter()
    for i in range(STEPS):
        last = train_step(i)
    best = max(best, STEPS / (time.perf_counter() - t0))
print(f"BENCH steps_per_s={best:.3f} loss={last:.4f} device={device}")
