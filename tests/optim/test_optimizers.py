"""webtorch.optim against PyTorch 2.13: same model, same data, same number of steps -> same parameters.

Every optimizer runs 50 steps for each option combination on a small MLP (weights copied from torch),
through the per-tensor path (foreach=False) and the fused backend primitive (foreach=None, the default).

Two ways to compare, because two float32 libraries compute slightly different gradients (BLAS summation
order) and Adam-like steps turn a gradient that hovers near zero into +-lr, which makes float32
trajectories chaotic for a few coordinates:
- end to end (our model, our gradients) in float64, where that noise stays far below float32 tolerance;
- in float32 on every device, fed PyTorch's gradient at every step (teacher forcing), which isolates the
  optimizer arithmetic: parameters and state must agree within float32 round-off.
State dicts round-trip ours->ours, torch->ours and ours->torch mid-training.
"""

import numpy as np
import pytest
import torch

import webtorch as wt
from optest import check_same_error
from optim_compare import (F64, STEPS, assert_params_close, assert_state_close, batch64, check_end_to_end_float64,
                           check_state_layout, check_with_torch_gradients, lockstep, mse, ours_like, round_trip_tests,
                           to_numpy, torch_model)

CONFIGS = {
    "SGD": [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, dampening=0.5),
            dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01),
            dict(lr=0.01, momentum=0.5, weight_decay=0.01, maximize=True)],
    "Adam": [dict(lr=0.01), dict(lr=0.01, amsgrad=True), dict(lr=0.01, weight_decay=0.1),
             dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), dict(lr=0.005, maximize=True),
             dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6, amsgrad=True, weight_decay=0.05)],
    "AdamW": [dict(lr=0.01), dict(lr=0.01, weight_decay=0.05, amsgrad=True), dict(lr=0.005, maximize=True)],
    "RMSprop": [dict(lr=0.01), dict(lr=0.01, centered=True), dict(lr=0.01, momentum=0.9),
                dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.01),
                dict(lr=0.005, alpha=0.9, eps=1e-6, maximize=True)],
    "Adagrad": [dict(lr=0.1), dict(lr=0.1, lr_decay=0.01), dict(lr=0.1, initial_accumulator_value=0.1,
                                                                   weight_decay=0.01),
                dict(lr=0.05, eps=1e-8, maximize=True)],
    "Adadelta": [dict(), dict(lr=0.5, rho=0.5, weight_decay=0.01), dict(lr=0.5, eps=1e-5, maximize=True)],
    "Adamax": [dict(lr=0.01), dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.01), dict(lr=0.005, maximize=True)],
    "NAdam": [dict(lr=0.01), dict(lr=0.01, momentum_decay=0.01), dict(lr=0.01, weight_decay=0.01),
              dict(lr=0.01, weight_decay=0.05, decoupled_weight_decay=True), dict(lr=0.005, maximize=True)],
    "RAdam": [dict(lr=0.01), dict(lr=0.01, weight_decay=0.01),
              dict(lr=0.01, weight_decay=0.05, decoupled_weight_decay=True), dict(lr=0.005, maximize=True)],
}
CASES = [(name, kw) for name, kws in CONFIGS.items() for kw in kws]
CASE_IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for name, kw in CASES]


# ---- 50 steps of every optimizer and option combination ----------------------------------------------
@pytest.mark.parametrize("foreach", [False, None], ids=["per_tensor", "fused"])
@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
def test_fifty_steps_end_to_end_float64(name, kw, foreach):
    check_end_to_end_float64(name, kw, foreach)


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
def test_fifty_steps_float32_default_path(name, kw, device):
    check_with_torch_gradients(name, kw, None, device)


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
def test_fifty_steps_float32_per_tensor_path(name, kw):
    check_with_torch_gradients(name, kw, False, "cpu")


@pytest.mark.parametrize("name,kw", [("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01)),
                                     ("SGD", dict(lr=0.1, momentum=0.9)), ("Adagrad", dict(lr=0.1))])
def test_fused_flag_matches_torch_fused(name, kw, device):
    tmodel = torch_model()
    model = ours_like(tmodel, device)
    topt = getattr(torch.optim, name)(tmodel.parameters(), **kw, fused=True)
    opt = getattr(wt.optim, name)(model.parameters(), **kw, fused=True)
    lockstep(tmodel, topt, model, opt, device, STEPS)
    assert_params_close(model, tmodel)
    assert_state_close(opt.state_dict(), topt.state_dict())


def test_capturable_gives_the_same_steps(device):
    tmodel = torch_model()
    model = ours_like(tmodel, device)
    topt = torch.optim.Adam(tmodel.parameters(), lr=0.01)
    opt = wt.optim.Adam(model.parameters(), lr=0.01, capturable=True)
    lockstep(tmodel, topt, model, opt, device, STEPS)
    assert_params_close(model, tmodel)
    step = opt.state[next(model.parameters())]["step"]
    assert step.device == next(model.parameters()).device and step.dtype == wt.float32 and step.item() == STEPS


@pytest.mark.parametrize("foreach", [False, None], ids=["per_tensor", "fused"])
@pytest.mark.parametrize("name,kw", [("Adam", {"amsgrad": True, "weight_decay": 0.1}),
                                     ("AdamW", {"maximize": True, "weight_decay": 0.05}),
                                     ("AdamW", {"amsgrad": True, "betas": (0.8, 0.9), "eps": 1e-6})])
def test_capturable_matches_torchs_capturable_math(name, kw, foreach, device, monkeypatch):
    """capturable=True (bias corrections from the float32 step tensor on the param's device), fused or per
    tensor, against torch's capturable code run on CPU (torch allows it only on accelerators: widened here)."""
    import torch.optim.adam as torch_adam
    monkeypatch.setattr(torch_adam, "_get_capturable_supported_devices", lambda supports_xla=True: ["cpu"])
    tmodel = torch_model()
    model = ours_like(tmodel, device)
    topt = getattr(torch.optim, name)(tmodel.parameters(), lr=0.01, capturable=True, foreach=foreach, **kw)
    opt = getattr(wt.optim, name)(model.parameters(), lr=0.01, capturable=True, foreach=foreach, **kw)
    lockstep(tmodel, topt, model, opt, device, STEPS)
    assert_params_close(model, tmodel)
    assert_state_close(opt.state_dict(), topt.state_dict())
    step = opt.state[next(model.parameters())]["step"]
    assert (step.device, step.dtype, step.item()) == (next(model.parameters()).device, wt.float32, STEPS)


@pytest.mark.parametrize("foreach", [False, None], ids=["per_tensor", "fused"])
@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "NAdam"])
def test_param_groups_with_their_own_options(name, foreach, device):
    def groups(model):
        first, second = list(model.children())[0], list(model.children())[2]
        return [{"params": first.parameters(), "lr": 0.02, "weight_decay": 0.01}, {"params": second.parameters()}]

    extra = {"momentum": 0.9} if name in ("SGD", "RMSprop") else {}
    tmodel = torch_model()
    model = ours_like(tmodel, device)
    topt = getattr(torch.optim, name)(groups(tmodel), lr=0.005, **extra)
    opt = getattr(wt.optim, name)(groups(model), lr=0.005, foreach=foreach, **extra)
    lockstep(tmodel, topt, model, opt, device, STEPS)
    assert_params_close(model, tmodel)
    assert [g["lr"] for g in opt.param_groups] == [0.02, 0.005]
    assert [g["weight_decay"] for g in opt.param_groups] == [0.01, 0]


def test_a_param_without_grad_is_skipped_and_keeps_no_state(device):
    tmodel = torch_model()
    model = ours_like(tmodel, device)
    tmodel[2].bias.requires_grad_(False)
    model[2].bias.requires_grad_(False)
    topt = torch.optim.Adam(tmodel.parameters(), lr=0.01)
    opt = wt.optim.Adam(model.parameters(), lr=0.01)
    lockstep(tmodel, topt, model, opt, device, 10)
    assert_params_close(model, tmodel)
    assert sorted(opt.state_dict()["state"]) == sorted(topt.state_dict()["state"]) == [0, 1, 2]


# ---- state_dict layout and round trips (float64 end to end, see the module docstring) ------------------
ROUND_TRIP = [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=0.01, amsgrad=True)), ("AdamW", dict(lr=0.01)),
              ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5)), ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
              ("Adadelta", dict(lr=0.5)), ("Adamax", dict(lr=0.01)), ("NAdam", dict(lr=0.01)),
              ("RAdam", dict(lr=0.01))]
@pytest.mark.parametrize("name,kw", ROUND_TRIP, ids=[n for n, _ in ROUND_TRIP])
def test_state_dict_layout_matches_torch(name, kw, device):
    for st in check_state_layout(name, kw, device).state_dict()["state"].values():
        if "step" in st:
            assert st["step"].dim() == 0 and st["step"].dtype == wt.float32 and st["step"].device.type == "cpu"


test_round_trip_ours_to_ours, test_round_trip_torch_to_ours, test_round_trip_ours_to_torch = \
    round_trip_tests(ROUND_TRIP)


def test_load_state_dict_casts_state_to_the_param_dtype_and_keeps_step():
    p = wt.zeros(3, dtype=wt.float64, requires_grad=True)
    opt = wt.optim.Adam([p])
    sd = {"state": {0: {"step": wt.tensor(4.0), "exp_avg": wt.ones(3), "exp_avg_sq": wt.ones(3)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    st = opt.state[p]
    assert st["exp_avg"].dtype == wt.float64 and st["step"].dtype == wt.float32 and st["step"].item() == 4.0


def test_load_state_dict_turns_a_number_step_into_a_tensor():
    p = wt.zeros(3, requires_grad=True)
    opt = wt.optim.NAdam([p])
    sd = {"state": {0: {"step": 2, "mu_product": 0.8, "exp_avg": wt.ones(3), "exp_avg_sq": wt.ones(3)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    assert isinstance(opt.state[p]["step"], wt.Tensor) and opt.state[p]["step"].item() == 2.0
    assert isinstance(opt.state[p]["mu_product"], wt.Tensor)


# ---- LBFGS ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kw", [dict(), dict(lr=0.5, history_size=3, max_iter=10),
                                dict(line_search_fn="strong_wolfe"),
                                dict(line_search_fn="strong_wolfe", history_size=5, max_iter=8)],
                         ids=["default", "history3", "strong_wolfe", "strong_wolfe-history5"])
def test_lbfgs_matches_torch(kw):
    tmodel = torch_model(dtype=F64)
    model = ours_like(tmodel, "cpu")
    topt = torch.optim.LBFGS(tmodel.parameters(), **kw)
    opt = wt.optim.LBFGS(model.parameters(), **kw)
    losses = []
    for m, o, (x, y) in ((tmodel, topt, batch64(torch)), (model, opt, batch64(wt))):
        def closure(m=m, o=o, x=x, y=y):
            o.zero_grad()
            loss = mse(m, x, y)
            loss.backward()
            return loss
        losses.append([float(o.step(closure).detach()) for _ in range(4)])
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4, atol=1e-6)
    assert_params_close(model, tmodel, "LBFGS")
    tstate, ostate = topt.state_dict()["state"][0], opt.state_dict()["state"][0]
    assert ostate["n_iter"] == tstate["n_iter"] and ostate["func_evals"] == tstate["func_evals"]


def test_lbfgs_rejects_param_groups_and_unknown_line_search():
    a, b = wt.zeros(2, requires_grad=True), wt.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        wt.optim.LBFGS([{"params": [a]}, {"params": [b]}])
    opt = wt.optim.LBFGS([a], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = ((a - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)


# ---- the Optimizer base ---------------------------------------------------------------------------------
def _p(lib):
    return lib.zeros(3, requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda m: m.optim.SGD(_p(m), lr=0.1),
    lambda m: m.optim.SGD([], lr=0.1),
    lambda m: m.optim.SGD([{"params": {_p(m)}}], lr=0.1),
    lambda m: m.optim.SGD([_p(m), 3], lr=0.1),
    lambda m: m.optim.SGD([_p(m) * 2], lr=0.1),
    lambda m: m.optim.SGD([_p(m)], lr=-1.0),
    lambda m: m.optim.SGD([_p(m)], lr=0.1, momentum=-0.5),
    lambda m: m.optim.SGD([_p(m)], lr=0.1, nesterov=True),
    lambda m: m.optim.SGD([_p(m)], lr=0.1, fused=True, foreach=True),
    lambda m: m.optim.Adam([_p(m)], betas=(1.0, 0.9)),
    lambda m: m.optim.Adam([_p(m)], betas=(0.9, 1.5)),
    lambda m: m.optim.Adam([_p(m)], betas=(0, 0.9)),
    lambda m: m.optim.Adam([_p(m)], eps=-1e-8),
    lambda m: m.optim.Adam([_p(m)], weight_decay=-1),
    lambda m: m.optim.Adam([_p(m)], fused=True, foreach=True),
    lambda m: m.optim.RMSprop([_p(m)], alpha=-0.1),
    lambda m: m.optim.Adagrad([_p(m)], lr_decay=-0.1),
    lambda m: m.optim.Adagrad([_p(m)], initial_accumulator_value=-1),
    lambda m: m.optim.Adadelta([_p(m)], rho=1.5),
    lambda m: m.optim.NAdam([_p(m)], momentum_decay=-1),
    lambda m: m.optim.RAdam([_p(m)], betas=(0.9, -0.1)),
    lambda m: m.optim.LBFGS([_p(m)], lr=-1),
], ids=lambda f: "")
def test_invalid_arguments_raise_like_torch(fn):
    check_same_error(fn)


def test_add_param_group_errors_like_torch():
    def overlapping(m):
        p = _p(m)
        opt = m.optim.SGD([p], lr=0.1)
        opt.add_param_group({"params": [p]})

    def not_a_dict(m):
        m.optim.SGD([_p(m)], lr=0.1).add_param_group([_p(m)])

    def names_mixed(m):
        m.optim.SGD([("a", _p(m)), _p(m)], lr=0.1)

    def required_lr(m):
        class NoDefault(m.optim.Optimizer):
            def __init__(self, params):
                from importlib import import_module
                req = import_module(f"{m.__name__}.optim.optimizer").required
                super().__init__(params, {"lr": req})
        NoDefault([_p(m)])

    def load_wrong_groups(m):
        opt = m.optim.SGD([_p(m)], lr=0.1)
        opt.load_state_dict({"state": {}, "param_groups": []})

    def load_wrong_sizes(m):
        opt = m.optim.SGD([_p(m)], lr=0.1)
        sd = opt.state_dict()
        sd["param_groups"][0]["params"] = [0, 1]
        opt.load_state_dict(sd)

    for fn in (overlapping, not_a_dict, names_mixed, required_lr, load_wrong_groups, load_wrong_sizes):
        check_same_error(fn)


def test_duplicate_params_in_a_group_warn():
    p = wt.zeros(2, requires_grad=True)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        wt.optim.SGD([p, p], lr=0.1)


def test_differentiable_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="differentiable=True is not supported"):
        wt.optim.Adam([wt.zeros(2, requires_grad=True)], differentiable=True)


@pytest.mark.parametrize("name", list(CONFIGS) + ["LBFGS"])
def test_defaults_and_repr_match_torch(name):
    topt = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)])
    opt = getattr(wt.optim, name)([wt.zeros(2, requires_grad=True)])
    assert opt.defaults == topt.defaults
    assert repr(opt) == repr(topt)


def test_named_parameters_keep_their_names():
    model = ours_like(torch_model(), "cpu")
    tmodel = torch_model()
    opt = wt.optim.Adam(model.named_parameters())
    topt = torch.optim.Adam(tmodel.named_parameters())
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    p = wt.ones(3, requires_grad=True)
    opt = wt.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    grad = p.grad
    opt.zero_grad(set_to_none=set_to_none)
    if set_to_none:
        assert p.grad is None
    else:
        assert p.grad is grad and to_numpy(p.grad).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("foreach", [False, None], ids=["per_tensor", "fused"])
def test_step_is_an_in_place_update(foreach):
    p = wt.ones(3, requires_grad=True)
    view = p.detach()
    opt = wt.optim.Adam([p], lr=0.1, foreach=foreach)
    (p * p).sum().backward()
    before = p._version_counter
    opt.step()
    assert p._version_counter > before
    assert to_numpy(view).tolist() == to_numpy(p).tolist() and to_numpy(p)[0] < 1
    assert opt.state[p]["exp_avg"]._version_counter > 0
    assert not p.grad.requires_grad and p.requires_grad and p.grad_fn is None


def test_step_runs_the_closure_with_grad_and_returns_its_loss():
    p = wt.ones(3, requires_grad=True)
    opt = wt.optim.SGD([p], lr=0.1)

    def closure():
        opt.zero_grad()
        assert wt.is_grad_enabled()
        loss = (p * p).sum()
        loss.backward()
        return loss
    with wt.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 3.0 and np.allclose(to_numpy(p), 0.8)


def test_step_hooks():
    p = wt.ones(2, requires_grad=True)
    opt = wt.optim.SGD([p], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", o is opt)))
    glob = wt.optim.optimizer.register_optimizer_step_pre_hook(lambda o, args, kwargs: calls.append(("global",)))
    (p * p).sum().backward()
    opt.step()
    assert calls == [("global",), ("pre", True), ("post", True)]
    pre.remove()
    glob.remove()
    calls.clear()
    opt.step()
    assert calls == [("post", True)]


def test_state_dict_hooks():
    p = wt.ones(2, requires_grad=True)
    opt = wt.optim.SGD([p], lr=0.1)
    seen = []
    opt.register_state_dict_pre_hook(lambda o: seen.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("load_post"), prepend=True)
    sd = opt.state_dict()
    assert sd["extra"] == 1 and seen == ["pre"]
    opt.load_state_dict(sd)
    assert seen == ["pre", "load_pre", "load_post"]


def test_lr_can_be_changed_through_param_groups():
    p = wt.ones(1, requires_grad=True)
    opt = wt.optim.SGD([p], lr=0.1)
    opt.param_groups[0]["lr"] = 0.5
    (p * 2).sum().backward()
    opt.step()
    assert np.allclose(to_numpy(p), 0.0)
