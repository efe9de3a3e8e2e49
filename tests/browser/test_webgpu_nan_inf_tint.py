"""NaN, ±inf and ±0 through the generated WGSL and the search kernel on Tint + SwiftShader (Chromium): the special
values of tests/backends/webgpu/test_nan_inf_semantics.py (there on naga + lavapipe), against PyTorch."""
import json

import numpy as np
import torch

from special_values import BINARY, SEARCH_SEQS, SEARCH_VALUES, UNARY, mismatches, pairs


def _literal(values):
    """Python source of a string holding ``values`` as JSON (NaN and Infinity included)."""
    return repr(json.dumps(values))


def test_special_values_match_torch_on_tint(webtorch_browser):
    a, b = pairs()
    r = webtorch_browser.run_source(
        "import json\n"
        "import webtorch\n"
        f"a = webtorch.tensor(json.loads({_literal(a)}), device='webgpu')\n"
        f"b = webtorch.tensor(json.loads({_literal(b)}), device='webgpu')\n"
        "out = {}\n"
        f"for op in {BINARY!r}:\n"
        "    out[op] = getattr(webtorch, op)(a, b).tolist()\n"
        f"for op in {UNARY!r}:\n"
        "    out[op] = getattr(webtorch, op)(a).tolist()\n"
        "out['nonzero'] = webtorch.nonzero(a).tolist()\n"
        f"for i, seq in enumerate(json.loads({_literal(SEARCH_SEQS)})):\n"
        "    for right in (False, True):\n"
        "        s = webtorch.tensor(seq, device='webgpu')\n"
        f"        v = webtorch.tensor(json.loads({_literal(SEARCH_VALUES)}), device='webgpu')\n"
        "        out[f'searchsorted {i} {right}'] = webtorch.searchsorted(s, v, right=right).tolist()\n"
        "print(json.dumps(out))\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    got = json.loads(r.stdout.splitlines()[-1])
    ta, tb = torch.tensor(a), torch.tensor(b)
    want = {op: getattr(torch, op)(ta, tb) for op in BINARY}
    want.update({op: getattr(torch, op)(ta) for op in UNARY})
    want["nonzero"] = torch.nonzero(ta)
    for i, seq in enumerate(SEARCH_SEQS):
        for right in (False, True):
            want[f"searchsorted {i} {right}"] = torch.searchsorted(torch.tensor(seq), torch.tensor(SEARCH_VALUES),
                                                                   right=right)
    wrong = {}
    for key, t in want.items():
        t = t.numpy()
        bad = mismatches(t, np.array(got[key], dtype=t.dtype))
        if len(bad):
            wrong[key] = [(a[i], b[i], t.reshape(-1)[i].item(), got[key][i]) if t.ndim == 1 else i for i in bad[:6]]
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())


# interpolate / adaptive average pooling (resample_taps.wgsl) with NaN and ±inf: (call, input shape)
RESAMPLE = [("F.interpolate(x, scale_factor=2, mode='bilinear')", (1, 2, 3, 4)),
            ("F.interpolate(x, size=(3, 4), mode='bilinear', align_corners=True)", (1, 2, 3, 4)),
            ("F.interpolate(x, size=(5, 7), mode='bicubic')", (1, 2, 3, 4)),
            ("F.interpolate(x, scale_factor=2.3)", (1, 2, 3, 4)),
            ("F.adaptive_avg_pool2d(x, (2, 3))", (1, 2, 3, 4))]


def test_resample_nan_inf_match_torch_on_tint(webtorch_browser):
    """Each output reads PyTorch's taps only, an inf beside a tap of weight 0 giving NaN; forward and backward (the
    upstream gradient holds an inf), with no host fallback."""
    vals = [float("nan"), 0.5, float("inf"), -1.0, -float("inf"), 0.25, 2.0, -0.75]
    x = np.array([vals[i % len(vals)] for i in range(24)], np.float32).reshape(1, 2, 3, 4)
    r = webtorch_browser.run_source(
        "import json\n"
        "import webtorch\n"
        "F = webtorch.nn.functional\n"
        "out = []\n"
        f"for call, shape in {RESAMPLE!r}:\n"
        f"    x = webtorch.tensor(json.loads({_literal(x.tolist())}), device='webgpu', requires_grad=True)\n"
        "    y = eval(call)\n"
        "    g = webtorch.ones_like(y)\n"
        "    g.view(-1)[1] = float('inf')\n"
        "    y.backward(g)\n"
        "    out.append([y.flatten().tolist(), x.grad.flatten().tolist()])\n"
        "print(json.dumps(out))\n"
        "print(webtorch.webgpu.stats()['host_fallbacks'])\n")
    assert r.status == 0, f"{r.stdout}\n{r.stderr}"
    got = json.loads(r.stdout.splitlines()[-2])
    assert r.stdout.splitlines()[-1] == "0"
    F = torch.nn.functional
    wrong = {}
    for (call, _), (y_got, g_got) in zip(RESAMPLE, got):
        x_t = torch.tensor(x, requires_grad=True)
        y = eval(call, {"F": F, "x": x_t})
        g = torch.ones_like(y)
        g.view(-1)[1] = float("inf")
        y.backward(g)
        for what, t, w in (("forward", y.detach(), y_got), ("backward", x_t.grad, g_got)):
            t = t.flatten().numpy()
            bad = mismatches(t, np.array(w, dtype=t.dtype))
            if len(bad):
                wrong[f"{call} {what}"] = [(t[i].item(), w[i]) for i in bad[:6]]
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())
