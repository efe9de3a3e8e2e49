"""A captured training step replayed (webtorch.webgpu.graph) equals the same steps run eagerly, bit for bit, and a
replay with the loss read costs one submit (inside Pyodide: one call into bridge.js). Runs in CPython (native
webgpu) and in the browser; prints one JSON line."""
import json

import webtorch as torch
import webtorch.nn.functional as F
from webtorch import nn

STEPS = 4


def _model():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3)).to("webgpu")
    return model, torch.optim.AdamW(model.parameters(), lr=0.05, capturable=True)


def _batch(k):
    x = [[((i * 7 + j * 3 + k * 5) % 11) / 5.0 - 1.0 for j in range(6)] for i in range(5)]
    return torch.tensor(x, device="webgpu"), torch.tensor([(i + k) % 3 for i in range(5)], device="webgpu")


def _step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def main():
    model, opt = _model()
    eager = []
    for k in range(STEPS):
        opt.zero_grad()
        eager.append(_step(model, opt, *_batch(k)).item())
    eager_params = [p.tolist() for p in model.parameters()]

    model, opt = _model()
    static_x, static_y = _batch(0)
    opt.zero_grad()
    replayed = [_step(model, opt, static_x, static_y).item()]  # warm-up: the optimizer state exists after it
    opt.zero_grad()
    g = torch.webgpu.Graph()
    with torch.webgpu.graph(g):
        static_loss = _step(model, opt, static_x, static_y)
    per_replay = []
    for k in range(1, STEPS):
        x, y = _batch(k)
        static_x.copy_(x)
        static_y.copy_(y)
        torch.webgpu.synchronize()
        before = torch.webgpu.stats()
        g.replay()
        replayed.append(static_loss.item())
        after = torch.webgpu.stats()
        per_replay.append({k: after[k] - before[k] for k in ("submits", "readbacks", "bridge_calls") if k in after})
    out = {"eager": eager, "replayed": replayed, "same_params": [p.tolist() for p in model.parameters()] == eager_params,
           "per_replay": per_replay, "dispatches": g.dispatches()}
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
