"""200 training steps on webgpu inside Pyodide: loss must fall, memory_allocated() and the JS buffer table
must stay flat. Prints one JSON line the host test checks (kernels the loop uses exist without NumPy)."""
import json
import sys

import webtorch as torch
from webtorch import nn

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def bridge_tables():
    if sys.platform != "emscripten":
        return {}
    import js
    return json.loads(js.webtorchBridge.tableSize())


torch.manual_seed(0)
dev = "webgpu"
torch.set_default_device(dev)  # parameters are created on the device under test
x = torch.randn(64, 8, device=dev)
w_true = torch.randn(8, 1, device=dev)
y = torch.relu(x @ w_true) + 0.1
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1)).to(dev)
params = list(model.parameters())
losses, mem, tables = [], [], []
for step in range(STEPS):
    loss = ((model(x) - y) ** 2).mean()
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p.sub_(0.05 * p.grad)
    if step % 20 == 0 or step == STEPS - 1:
        losses.append(loss.item())
        mem.append(torch.webgpu.memory_allocated())
        tables.append(bridge_tables())
print(json.dumps({"losses": losses, "memory": mem, "tables": tables,
                  "fallbacks": torch.webgpu.stats()["host_fallback_ops"]}))
