"""A training script written for CPU/CUDA PyTorch, run unmodified (``import torch`` is webtorch): it picks "cuda" if
available else "cpu", seeds, builds data with a CPU Generator and a legacy constructor, samples batches, trains,
saves and reloads the whole model with map_location="cpu", and prints its losses (compared with CPython's)."""
import io

import webtorch.compat

webtorch.compat.alias_torch()
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

device = "cuda" if torch.cuda.is_available() else "cpu"
print("device", device, "default", torch.get_default_device(), "accelerator", torch.accelerator.is_available())
torch.manual_seed(0)
g = torch.Generator().manual_seed(1)
x = torch.randn(64, 8, generator=g)
y = torch.LongTensor([(i * 7) % 3 for i in range(64)])
loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(2))
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 3)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb.to(device)), yb.to(device))
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch} loss {total / len(loader):.5f}")
buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
again = torch.load(buf, map_location="cpu", weights_only=False)
again.eval()
pred = again(x).cpu().argmax(1)
print("params on", next(again.parameters()).device, "pred", pred[:12].tolist())
try:
    pred.numpy()
    print("numpy ok")
except ModuleNotFoundError as e:
    print("numpy missing:", str(e).split(" (")[0])
