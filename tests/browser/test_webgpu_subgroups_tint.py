"""The row-reduction kernels on Tint (Chromium): every variant, tree and subgroup, compiles (Tint checks the
uniformity of subgroup operations, which naga does not), the browser device has ``subgroups`` (web/bridge.js
requests it), and softmax / layer_norm / batch_norm forward+backward match PyTorch there in both variants."""
import json

import numpy as np
import torch

from webgpu_variants import row_kernel_variants


def test_row_kernel_variants_compile_on_tint(webtorch_browser):
    r = webtorch_browser.run_source(
        "import json\n"
        "import js\n"
        "from pyodide.ffi import run_sync\n"
        "from webtorch.backends.webgpu import get_backend, subgroup_reduce, wgsl_loader\n"
        "import webtorch\n"
        "print(json.dumps(sorted(get_backend().rt.features)))\n"
        "b = js.webtorchBridge\n"
        f"variants = json.loads({json.dumps(json.dumps(row_kernel_variants()))})\n"
        "errors = {}\n"
        "for name, spec in variants:\n"
        "    src = wgsl_loader.specialize(name, **spec)\n"
        "    for label, s in (('tree', src), ('subgroups', subgroup_reduce.specialize(src))):\n"
        "        err = run_sync(b.compileError(b.compile(name, s)))\n"
        "        if err:\n"
        "            errors[f'{name} {spec} {label}'] = err\n"
        "x = ((webtorch.arange(2100, device='webgpu') * 5) % 7).float().reshape(3, 700)\n"
        "for on in (False, True):\n"  # the generated reductions, both ways
        "    with subgroup_reduce.forced(get_backend(), on):\n"
        "        print(json.dumps([x.sum(1).tolist(), x.amax(1).tolist(), (x - 3).amin(1).tolist()]))\n"
        "print(json.dumps({'n': len(variants), 'errors': errors}))\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    lines = r.stdout.strip().splitlines()
    assert "subgroups" in json.loads(lines[-4])
    x = ((torch.arange(2100) * 5) % 7).float().reshape(3, 700)
    want = [x.sum(1).tolist(), x.amax(1).tolist(), (x - 3).amin(1).tolist()]
    assert json.loads(lines[-3]) == want and json.loads(lines[-2]) == want
    out = json.loads(lines[-1])
    assert out["n"] == len(row_kernel_variants())
    assert out["errors"] == {}, json.dumps(out["errors"], indent=1)


def test_row_kernels_match_torch_in_the_browser_both_ways(webtorch_browser):
    rng = np.random.default_rng(0)
    xs = (rng.standard_normal((4, 300)) * 3).astype(np.float32)
    bs = rng.standard_normal((4, 3, 5, 5)).astype(np.float32)
    tx, tb = torch.tensor(xs, requires_grad=True), torch.tensor(bs, requires_grad=True)
    F = torch.nn.functional
    loss = (F.log_softmax(tx, 1)[:, :7].sum() + F.softmax(tx[:, :9], 1).square().sum()
            + F.layer_norm(tx, (300,)).pow(3).sum() + F.batch_norm(tb, None, None, training=True).pow(3).sum())
    loss.backward()
    r = webtorch_browser.run_source(
        "import webtorch as torch\n"
        "from webtorch.backends.webgpu import get_backend, subgroup_reduce\n"
        "torch.set_default_device('webgpu')\n"
        "F = torch.nn.functional\n"
        "for on in (False, True):\n"
        "    with subgroup_reduce.forced(get_backend(), on):\n"
        f"        x = torch.tensor({xs.tolist()}, requires_grad=True)\n"
        f"        b = torch.tensor({bs.tolist()}, requires_grad=True)\n"
        "        loss = (F.log_softmax(x, 1)[:, :7].sum() + F.softmax(x[:, :9], 1).square().sum()\n"
        "                + F.layer_norm(x, (300,)).pow(3).sum() + F.batch_norm(b, None, None, training=True).pow(3).sum())\n"
        "        loss.backward()\n"
        "        print(loss.item())\n"
        "        print(x.grad.flatten().tolist())\n"
        "        print(b.grad.flatten().tolist())\n"
        "print(torch.webgpu.stats()['host_fallbacks'])\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    lines = r.stdout.strip().splitlines()[-7:]
    for k in (0, 3):
        np.testing.assert_allclose(float(lines[k]), loss.item(), rtol=1e-4)
        np.testing.assert_allclose(json.loads(lines[k + 1]), tx.grad.flatten().numpy(), rtol=1e-3, atol=1e-3)
        np.testing.assert_allclose(json.loads(lines[k + 2]), tb.grad.flatten().numpy(), rtol=1e-3, atol=1e-3)
    assert lines[6] == "0"
