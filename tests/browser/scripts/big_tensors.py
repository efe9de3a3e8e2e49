"""Tensors past one binding in the page: the same step with the binding limit forced to 4 KiB (every family
binds windows of its operands through bridge.js: elementwise, reductions, products, embedding, AdamW, gather
and scatter, cross_entropy and layer_norm rows, batch_norm's passes, randperm's chunks (two windows of one buffer
in one dispatch); the other row and plane families run in blocks: conv, pooling, scans, sort, nonzero, inv) and
without, on the browser's WebGPU. Prints one JSON line:
the granted maxStorageBufferBindingSize and the largest difference between the two runs."""
import json

import webtorch as wt
from webtorch.backends.webgpu import get_backend

F = wt.nn.functional


def step():
    g = wt.Generator(device="webgpu").manual_seed(3)
    w = wt.randn(300, 24, device="webgpu", generator=g).requires_grad_(True)  # 28,800 bytes: seven windows
    x = wt.randn(37, 53, device="webgpu", generator=g)
    ids = wt.tensor([[5, 299, 17, 0, 42]], device="webgpu")
    logits = F.linear(F.embedding(ids, w), w)  # a tied head, as a language model's
    loss = logits.logsumexp(-1).sum() + (x.t() * 2 + 1).exp().clamp(max=50).sum() * 1e-3
    loss.backward()
    wt.optim.AdamW([w], lr=0.1).step()
    cols = wt.randint(0, 24, (300, 5), device="webgpu", generator=g)
    target = wt.zeros(300, 24, device="webgpu").scatter_add_(1, cols, wt.ones(300, 5, device="webgpu"))
    taken = w.detach().gather(1, cols).sum() + w.detach()[ids[0], 2:9].sum()
    h = wt.randn(24, 300, device="webgpu", generator=g)  # logits of 28,800 bytes
    img, k = wt.randn(10, 3, 6, 6, device="webgpu", generator=g), wt.randn(4, 3, 3, 3, device="webgpu", generator=g)
    a = wt.randn(30, 8, 8, device="webgpu", generator=g) + 4 * wt.eye(8, device="webgpu")
    blocks = [F.cross_entropy(F.layer_norm(h, (300,)), cols[:24, 0] * 12),
              F.max_pool2d(F.batch_norm(F.conv2d(img, k, padding=1), None, None, training=True).relu(), 2).sum(),
              h.cumsum(1).sum(), h.sort(1)[0][:, -3:].sum(), (h > 1).nonzero().sum(), wt.linalg.inv(a).sum(),
              (wt.randperm(3000, device="webgpu", generator=g)[:40] * wt.arange(40, device="webgpu")).sum()]
    return [loss.item(), x.amax(0).sum().item(), float(x.argmax().item()), taken.item(),
            (target * wt.arange(24, device="webgpu")).sum().item()] + [float(b.item()) for b in blocks] + \
        sum(w.detach().tolist(), [])


plain = step()
with get_backend().limits.forced(binding=4096):
    split = step()
print(json.dumps({"binding": wt.webgpu.info()["limits"]["maxStorageBufferBindingSize"],
                  "max_difference": max(abs(a - b) / max(1.0, abs(a)) for a, b in zip(plain, split)),
                  "values": len(plain)}))
