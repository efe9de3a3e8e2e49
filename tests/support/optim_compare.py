"""How the optimizer suites (tests/optim/) compare webtorch.optim with torch.optim: a small MLP built in both
libraries from the same weights, the same data, a training loop written once, and the checks that run an
optimizer end to end in float64, in float32 fed PyTorch's gradients (teacher forcing), and across state_dict
round trips (see tests/optim/test_optimizers.py's docstring for why two ways)."""
import numpy as np
import pytest
import torch

import webtorch as wt

STEPS = 50
RTOL, ATOL = 1e-4, 1e-5

_rng = np.random.default_rng(1234)
X = _rng.standard_normal((16, 4)).astype(np.float32)
Y = _rng.standard_normal((16, 3)).astype(np.float32)
HALF = STEPS // 2
F64 = torch.float64


def torch_model(seed=0, dtype=torch.float32):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3)).to(dtype)


def ours_like(tmodel, device):
    model = wt.nn.Sequential(wt.nn.Linear(4, 8), wt.nn.Tanh(), wt.nn.Linear(8, 3))
    model = model.to(getattr(wt, str(next(tmodel.parameters()).dtype).split(".")[1]))
    model.load_state_dict({k: wt.tensor(v.detach().numpy().copy()) for k, v in tmodel.state_dict().items()})
    return model.to(device)


def batch(lib, device, dtype=np.float32):
    if lib is torch:
        return torch.tensor(X.astype(dtype)), torch.tensor(Y.astype(dtype))
    return wt.tensor(X.astype(dtype), device=device), wt.tensor(Y.astype(dtype), device=device)


def mse(model, x, y):
    return ((model(x) - y) ** 2).mean()


def train(model, opt, x, y, steps):
    for _ in range(steps):
        opt.zero_grad()
        mse(model, x, y).backward()
        opt.step()


def lockstep(tmodel, topt, model, opt, device, steps):
    """Step both optimizers, ours fed the gradient PyTorch computed (teacher forcing)."""
    x, y = batch(torch, device)
    for _ in range(steps):
        topt.zero_grad()
        mse(tmodel, x, y).backward()
        for p, tp in zip(model.parameters(), tmodel.parameters()):
            p.grad = None if tp.grad is None else wt.tensor(tp.grad.numpy().copy(), device=device)
        topt.step()
        opt.step()


def to_numpy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().cpu().numpy())


def assert_params_close(model, tmodel, what=""):
    for (name, p), (_, tp) in zip(model.named_parameters(), tmodel.named_parameters()):
        np.testing.assert_allclose(to_numpy(p), to_numpy(tp), rtol=RTOL, atol=ATOL, err_msg=f"{what} {name}")


def to_torch(obj):
    if isinstance(obj, wt.Tensor):
        return torch.tensor(to_numpy(obj).copy())
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_torch(v) for v in obj)
    return obj


def to_ours(obj):
    if isinstance(obj, torch.Tensor):
        return wt.tensor(obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: to_ours(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_ours(v) for v in obj)
    return obj


def assert_state_close(ours, ref):
    """Two optimizer state dicts (ours, torch's) agree: groups exactly, state tensors within round-off."""
    assert ours["param_groups"] == ref["param_groups"]
    assert sorted(ours["state"]) == sorted(ref["state"])
    for idx, tstate in ref["state"].items():
        ostate = ours["state"][idx]
        assert sorted(ostate) == sorted(tstate), idx
        for key, tv in tstate.items():
            ov = ostate[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(ov, wt.Tensor), key
                assert str(ov.dtype) == str(tv.dtype) and tuple(ov.shape) == tuple(tv.shape), key
                # Accumulated state (g / sqrt(v) sums) amplifies the round-off of the gradients where v is
                # tiny, so its tolerance scales with the tensor's magnitude; parameters use RTOL/ATOL.
                ref = to_numpy(tv)
                scale = float(np.abs(ref).max()) if ref.size else 0.0
                np.testing.assert_allclose(to_numpy(ov), ref, rtol=RTOL, atol=ATOL + RTOL * scale, err_msg=key)
            else:
                assert ov == tv, key


def batch64(lib):
    return batch(lib, "cpu", np.float64)


def both(name, kw, device, dtype=torch.float32, **ours_kw):
    """The model and optimizer ``name(**kw)`` in both libraries from the same weights: (tmodel, topt, model, opt)."""
    tmodel = torch_model(dtype=dtype)
    model = ours_like(tmodel, device)
    topt = getattr(torch.optim, name)(tmodel.parameters(), **kw)
    return tmodel, topt, model, getattr(wt.optim, name)(model.parameters(), **kw, **ours_kw)


def check_state_layout(name, kw, device):
    """Three teacher-forced steps: our state_dict has PyTorch's layout and values; returns our optimizer."""
    tmodel, topt, model, opt = both(name, kw, device)
    lockstep(tmodel, topt, model, opt, device, 3)
    ours = opt.state_dict()
    assert list(ours) == ["state", "param_groups"]
    assert_state_close(ours, topt.state_dict())
    return opt


def check_end_to_end_float64(name, kw, foreach):
    """``STEPS`` steps of optimizer ``name`` in float64 on both libraries, each with its own gradients."""
    tmodel, topt, model, opt = both(name, kw, "cpu", torch.float64, foreach=foreach)
    train(tmodel, topt, *batch(torch, "cpu", np.float64), STEPS)
    train(model, opt, *batch(wt, "cpu", np.float64), STEPS)
    assert_params_close(model, tmodel, f"{name} {kw}")
    ours, ref = opt.state_dict(), topt.state_dict()
    ref["param_groups"][0]["foreach"] = foreach
    assert_state_close(ours, ref)


def check_with_torch_gradients(name, kw, foreach, device):
    """``STEPS`` float32 steps of optimizer ``name``, ours fed PyTorch's gradient: parameters and state agree."""
    tmodel, topt, model, opt = both(name, kw, device, foreach=foreach)
    lockstep(tmodel, topt, model, opt, device, STEPS)
    assert_params_close(model, tmodel, f"{name} {kw}")
    ours, ref = opt.state_dict(), topt.state_dict()
    ref["param_groups"][0]["foreach"] = foreach
    assert_state_close(ours, ref)


def _torch_run_and_half_ours(name, kw):
    """Torch's uninterrupted float64 run of ``STEPS`` steps, and ours from the same start after ``HALF`` steps:
    (torch model, our model, our optimizer)."""
    tmodel = torch_model(dtype=F64)
    train(tmodel, getattr(torch.optim, name)(tmodel.parameters(), **kw), *batch64(torch), STEPS)
    model = ours_like(torch_model(dtype=F64), "cpu")
    opt = getattr(wt.optim, name)(model.parameters(), **kw)
    train(model, opt, *batch64(wt), HALF)
    return tmodel, model, opt


def check_round_trip_ours_to_ours(name, kw):
    """Half the steps on ours, state_dicts into a fresh model and optimizer of ours, the rest: torch's result."""
    tmodel, first, opt = _torch_run_and_half_ours(name, kw)
    second = ours_like(torch_model(dtype=F64), "cpu")
    second.load_state_dict(first.state_dict())
    opt2 = getattr(wt.optim, name)(second.parameters(), **kw)
    opt2.load_state_dict(opt.state_dict())
    train(second, opt2, *batch64(wt), STEPS - HALF)
    assert_params_close(second, tmodel)


def check_round_trip_torch_to_ours(name, kw):
    """Half the steps on torch, its state_dicts into ours, the rest on both: the same parameters and state."""
    tmodel = torch_model(dtype=F64)
    topt = getattr(torch.optim, name)(tmodel.parameters(), **kw)
    train(tmodel, topt, *batch64(torch), HALF)
    model = ours_like(tmodel, "cpu")
    opt = getattr(wt.optim, name)(model.parameters(), **kw)
    opt.load_state_dict(to_ours(topt.state_dict()))
    # torch reloads its own dict too: loading casts non-step state (NAdam's mu_product) to the param dtype
    reloaded = getattr(torch.optim, name)(tmodel.parameters(), **kw)
    reloaded.load_state_dict(topt.state_dict())
    topt = reloaded
    train(tmodel, topt, *batch64(torch), STEPS - HALF)
    train(model, opt, *batch64(wt), STEPS - HALF)
    assert_params_close(model, tmodel)
    assert_state_close(opt.state_dict(), topt.state_dict())


def check_round_trip_ours_to_torch(name, kw):
    """Half the steps on ours, our state_dicts into torch, the rest on torch: torch's uninterrupted result."""
    ref, model, opt = _torch_run_and_half_ours(name, kw)
    tmodel = torch_model(dtype=F64)
    tmodel.load_state_dict({k: torch.tensor(to_numpy(v).copy()) for k, v in model.state_dict().items()})
    topt = getattr(torch.optim, name)(tmodel.parameters(), **kw)
    topt.load_state_dict(to_torch(opt.state_dict()))
    train(tmodel, topt, *batch64(torch), STEPS - HALF)
    for p, rp in zip(tmodel.parameters(), ref.parameters()):
        np.testing.assert_allclose(to_numpy(p), to_numpy(rp), rtol=RTOL, atol=ATOL)


def round_trip_tests(cases):
    """The three state_dict round trips (ours -> ours, torch -> ours, ours -> torch) as pytest tests over ``cases``
    [(optimizer name, kwargs)], for a test module to bind to ``test_*`` names."""
    def test_over_cases(check):
        @pytest.mark.parametrize("name,kw", cases, ids=[n for n, _ in cases])
        def test(name, kw):
            check(name, kw)
        return test
    return tuple(test_over_cases(check) for check in (check_round_trip_ours_to_ours, check_round_trip_torch_to_ours,
                                                       check_round_trip_ours_to_torch))
