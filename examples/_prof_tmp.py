import sys, time
sys.path.insert(0, "/home/pyodide/examples")
import webtorch as torch
import webtorch.nn.functional as F
import digits_classifier as d
from digits_data import load_digits, train_test_split
import js, json
dev = torch.device("webgpu")
x, y = load_digits()
xt, yt, _, _ = train_test_split(x, y)
model = d.MLP().to(dev) if sys.argv[1] == "mlp" else d.CNN().to(dev)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
if len(sys.argv) > 2:
    import webtorch.optim.adam as A
    cache = {}
    def bump(steps):
        out = []
        for s in steps:
            s.add_(1)
            cache[id(s)] = cache.get(id(s), 0) + 1
            out.append(float(cache[id(s)]))
        return out
    A._bump_steps = bump
idx = torch.arange(64, device=dev)
def step(read=True):
    loss = F.cross_entropy(model(xt[idx]), yt[idx])
    opt.zero_grad(); loss.backward(); opt.step()
    return loss.item() if read else None
for _ in range(5): step()
for read in (True, False):
    s0 = json.loads(js.webtorchBridge.stats())
    t = time.perf_counter()
    for _ in range(10): step(read)
    torch.webgpu.synchronize()
    s1 = json.loads(js.webtorchBridge.stats())
    print("read", read, "ms/step", (time.perf_counter() - t) * 100, {k: (s1[k] - s0[k]) / 10 for k in s1})
t = time.perf_counter()
for _ in range(10): torch.webgpu.synchronize(); torch.ones(1, device=dev).item()
print("item roundtrip ms", (time.perf_counter() - t) * 100)
