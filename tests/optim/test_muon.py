"""optim.Muon and optim.swap_in_optimizer_params_and_state against PyTorch 2.13. Muon's momentum buffers equal
torch's; the parameters agree to bfloat16's precision (PyTorch runs the Newton-Schulz iteration in bfloat16,
webtorch in float32) and exactly with torch's float32 algebra (the same iteration on torch tensors)."""
import math

import numpy as np
import pytest
import torch

import webtorch

OPTIONS = [{}, {"lr": 0.02, "nesterov": False, "weight_decay": 0.0},
           {"lr": 0.05, "momentum": 0.0, "adjust_lr_fn": "match_rms_adamw"},
           {"lr": 0.01, "ns_steps": 3, "ns_coefficients": (2.0, -1.5, 0.5), "eps": 1e-3, "weight_decay": 0.5}]
SHAPES = [(6, 4), (3, 7), (5, 5)]


def ns_float32(grad, coefficients, steps, eps):
    """PyTorch's Newton-Schulz iteration without its cast to bfloat16."""
    a, b, c = coefficients
    x = grad.T if grad.size(0) > grad.size(1) else grad
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        x = torch.addmm(x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if grad.size(0) > grad.size(1) else x


def _pair(device, seed=7):
    g = torch.Generator().manual_seed(seed)
    tp = [torch.nn.Parameter(torch.randn(s, generator=g)) for s in SHAPES]
    wp = [webtorch.nn.Parameter(webtorch.tensor(p.detach().numpy(), device=device)) for p in tp]
    return g, tp, wp


def _grads(g, tp, wp, device):
    for t, w in zip(tp, wp):
        t.grad = torch.randn(t.shape, generator=g)
        w.grad = webtorch.tensor(t.grad.numpy(), device=device)


@pytest.mark.parametrize("options", OPTIONS, ids=["defaults", "plain-momentum", "rms-adamw", "custom-ns"])
def test_steps_match_pytorch(options, device, monkeypatch):
    g, tp, wp = _pair(device)
    topt, wopt = torch.optim.Muon(tp, **options), webtorch.optim.Muon(wp, **options)
    ref = [p.detach().clone() for p in tp]
    refopt = torch.optim.Muon([torch.nn.Parameter(r) for r in ref], **options)
    for _ in range(3):
        _grads(g, tp, wp, device)
        for r, t in zip(refopt.param_groups[0]["params"], tp):
            r.grad = t.grad.clone()
        topt.step()
        wopt.step()
        with monkeypatch.context() as m:  # torch's algebra in float32: webtorch's must agree to round-off
            m.setattr(torch.optim._muon, "_zeropower_via_newtonschulz", ns_float32)
            refopt.step()
    for t, r, w in zip(tp, refopt.param_groups[0]["params"], wp):
        got = np.asarray(w.detach().cpu().tolist())
        np.testing.assert_allclose(got, r.detach().numpy(), atol=2e-6, rtol=1e-5)
        lr = options.get("lr", 1e-3) * 3
        np.testing.assert_allclose(got, t.detach().numpy(), atol=lr * 0.02)  # bfloat16's iteration in torch
    want, have = topt.state_dict(), wopt.state_dict()
    assert have["param_groups"] == want["param_groups"]
    for i, s in want["state"].items():
        assert list(have["state"][i]) == ["momentum_buffer"] == list(s)
        np.testing.assert_allclose(np.asarray(have["state"][i]["momentum_buffer"].cpu().tolist()),
                                   s["momentum_buffer"].numpy(), atol=1e-6)


def test_newton_schulz_orthogonalizes():
    from webtorch.optim.muon import _zeropower_via_newtonschulz
    g = torch.randn(8, 5, generator=torch.Generator().manual_seed(0))
    o = _zeropower_via_newtonschulz(webtorch.tensor(g.numpy()), (3.4445, -4.7750, 2.0315), 5, 1e-7)
    np.testing.assert_allclose(o.tolist(), ns_float32(g, (3.4445, -4.7750, 2.0315), 5, 1e-7).numpy(), atol=1e-5)
    s = np.linalg.svd(np.asarray(o.tolist()), compute_uv=False)
    assert s.min() > 0.5 and s.max() < 1.5  # U S' V^T, S' near 1
    torch_o = torch.optim._muon._zeropower_via_newtonschulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7).float()
    np.testing.assert_allclose(o.tolist(), torch_o.numpy(), atol=0.03)


def test_adjust_lr_and_weight_decay():
    from webtorch.optim.muon import _adjust_lr
    for fn in (None, "original", "match_rms_adamw"):
        for shape in ((6, 4), (4, 6)):
            assert _adjust_lr(0.1, fn, shape) == torch.optim._muon._adjust_lr(0.1, fn, torch.Size(shape))
    p = webtorch.nn.Parameter(webtorch.ones(4, 4))
    p.grad = webtorch.zeros(4, 4)
    webtorch.optim.Muon([p], lr=0.5, weight_decay=0.2).step()  # zero update: only the decay moves p
    assert math.isclose(p[0, 0].item(), 0.9, rel_tol=1e-6)


def test_errors_as_torch():
    for lib in (torch, webtorch):
        w = lib.nn.Parameter(lib.ones(2, 2))
        for kw, msg in [({"lr": -1.0}, "Learning rate should be >= 0 but is: -1.0"),
                        ({"momentum": -0.5}, "momentum should be >= 0 but is: -0.5"),
                        ({"weight_decay": -0.1}, "weight decay should be >= 0 but is: -0.1"),
                        ({"adjust_lr_fn": "x"}, "Adjust learning rate function x is not supported"),
                        ({"lr": lib.ones(2)}, "Tensor lr must be 1-element")]:
            with pytest.raises(ValueError, match=msg):
                lib.optim.Muon([w], **kw)
        with pytest.raises(ValueError, match=r"Muon only supports 2D parameters whereas we found a parameter "
                                             r"with size: torch.Size\(\[3\]\)"):
            lib.optim.Muon([lib.nn.Parameter(lib.ones(3))])
        w.grad = lib.ones(2, 2)
        opt = lib.optim.Muon([w], ns_steps=100)
        with pytest.raises(ValueError, match="Number of steps must be less than 100"):
            opt.step()


def _trained(lib, device=None):
    kw = {} if lib is torch else {"device": device}
    model = lib.nn.Linear(3, 2, bias=False, **kw)
    with lib.no_grad():
        model.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], **kw))
    opt = lib.optim.Adam(model.parameters(), lr=0.1)
    model(lib.ones(1, 3, **kw)).sum().backward()
    opt.step()
    return model, opt


def test_swap_in_params_and_state_as_torch(device):
    (tm, topt), (wm, wopt) = _trained(torch), _trained(webtorch, device)
    tsd, wsd = topt.state_dict(), wopt.state_dict()
    tsd["param_groups"][0]["lr"] = wsd["param_groups"][0]["lr"] = 0.5
    tother = {"weight": torch.nn.Parameter(torch.zeros(2, 3))}
    wother = {"weight": webtorch.nn.Parameter(webtorch.zeros(2, 3, device=device))}
    tother["weight"].grad, wother["weight"].grad = torch.ones(2, 3), webtorch.ones(2, 3, device=device)
    wlive_params = wopt.param_groups[0]["params"]
    for lib, opt, other, sd in ((torch, topt, tother, tsd), (webtorch, wopt, wother, wsd)):
        with lib.optim.swap_in_optimizer_params_and_state(opt, other, sd):
            assert opt.param_groups[0]["lr"] == 0.5 and opt.param_groups[0]["params"][0] is other["weight"]
            opt.step()
    np.testing.assert_allclose(np.asarray(wother["weight"].detach().cpu().tolist()),
                               tother["weight"].detach().numpy(), atol=1e-6)
    np.testing.assert_allclose(np.asarray(wsd["state"][0]["exp_avg"].cpu().tolist()),
                               tsd["state"][0]["exp_avg"].numpy(), atol=1e-6)  # in place: reaches the dict
    assert wsd["state"][0]["step"].item() == tsd["state"][0]["step"].item() == 2
    assert wopt.param_groups[0]["params"] is wlive_params and wopt.param_groups[0]["lr"] == 0.1
    # state_dict() hands out the live state's tensors: the in-place step reached them in both libraries
    assert wopt.state[wm.weight]["step"].item() == topt.state[tm.weight]["step"].item()
    np.testing.assert_allclose(np.asarray(wm.weight.detach().cpu().tolist()), tm.weight.detach().numpy(), atol=1e-6)


def test_swap_in_errors_as_torch():
    def msg(lib, opt, params, sd):
        with pytest.raises(RuntimeError) as info:
            with lib.optim.swap_in_optimizer_params_and_state(opt, params, sd):
                pass
        return str(info.value)

    for make in (lambda sd: {"state": [], "param_groups": sd["param_groups"]},
                 lambda sd: {"state": sd["state"], "param_groups": {}},
                 lambda sd: {"state": sd["state"], "param_groups": sd["param_groups"] * 2},
                 lambda sd: {"state": {**sd["state"], 5: {}}, "param_groups": sd["param_groups"]},
                 lambda sd: {"state": sd["state"], "param_groups": [{**sd["param_groups"][0], "x": 1}]},
                 lambda sd: {"state": sd["state"], "param_groups": [{**sd["param_groups"][0], "params": [0, 1]}]},
                 lambda sd: {"state": {0: 1}, "param_groups": sd["param_groups"]}):
        (tm, topt), (wm, wopt) = _trained(torch), _trained(webtorch, "cpu")
        want = msg(torch, topt, dict(tm.named_parameters()), make(topt.state_dict()))
        assert msg(webtorch, wopt, dict(wm.named_parameters()), make(wopt.state_dict())) == want
    fresh = webtorch.optim.SGD([webtorch.nn.Parameter(webtorch.ones(1))])
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with webtorch.optim.swap_in_optimizer_params_and_state(fresh, {}, fresh.state_dict()):
            pass
