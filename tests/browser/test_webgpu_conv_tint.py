"""The convolution/pooling/padding/embedding kernels in Chromium: every variant compiles on Tint, and a small
CNN forward/backward in Pyodide matches PyTorch with no host fallback."""
import json

import numpy as np
import torch

from webgpu_variants import family_variants


def test_family_shaders_compile_on_tint(webtorch_browser):
    r = webtorch_browser.run_source(
        "import json\n"
        "from webtorch.backends.webgpu import get_backend, wgsl_loader\n"
        "rt = get_backend().rt\n"
        f"variants = json.loads({json.dumps(json.dumps(family_variants()))})\n"
        "for name, spec in variants:\n"
        "    rt.compile(name, wgsl_loader.specialize(name, **spec))\n"
        "print('compiled', len(variants))\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    assert r.stdout.splitlines()[-1] == f"compiled {len(family_variants())}"


def test_small_cnn_matches_torch_in_the_browser(webtorch_browser):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    idx = [[1, 3, 1], [0, 2, 3]]
    emb = rng.standard_normal((4, 2)).astype(np.float32)
    tx, tw, te = (torch.tensor(a, requires_grad=True) for a in (x, w, emb))
    F = torch.nn.functional
    y = F.avg_pool2d(F.max_pool2d(F.pad(F.conv2d(tx, tw, padding=1), (1, 1, 1, 1), mode="reflect"), 2), 2)
    loss = y.square().sum() + F.embedding(torch.tensor(idx), te).square().sum()
    loss.backward()
    r = webtorch_browser.run_source(
        "import webtorch as torch\n"
        "torch.set_default_device('webgpu')\n"
        "F = torch.nn.functional\n"
        f"x = torch.tensor({x.tolist()}, requires_grad=True)\n"
        f"w = torch.tensor({w.tolist()}, requires_grad=True)\n"
        f"e = torch.tensor({emb.tolist()}, requires_grad=True)\n"
        "y = F.avg_pool2d(F.max_pool2d(F.pad(F.conv2d(x, w, padding=1), (1, 1, 1, 1), mode='reflect'), 2), 2)\n"
        f"loss = y.square().sum() + F.embedding(torch.tensor({idx}), e).square().sum()\n"
        "loss.backward()\n"
        "print(loss.item())\n"
        "print(x.grad.flatten().tolist())\n"
        "print(w.grad.flatten().tolist())\n"
        "print(e.grad.flatten().tolist())\n"
        "print(torch.webgpu.stats()['host_fallbacks'])\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    lines = r.stdout.splitlines()[-5:]
    np.testing.assert_allclose(float(lines[0]), loss.item(), rtol=1e-4)
    for line, t in zip(lines[1:4], (tx, tw, te)):
        np.testing.assert_allclose(json.loads(line), t.grad.flatten().numpy(), rtol=1e-4, atol=1e-4)
    assert lines[4] == "0"
