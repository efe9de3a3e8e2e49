"""webtorch.optim.lr_scheduler against PyTorch 2.13: the same schedule of learning rates (and momenta).

Each scheduler drives an optimizer with two param groups of different learning rates for 60+ steps in
both libraries; every step's get_last_lr(), the groups' lr and their momentum/betas must agree. State dicts
round-trip ours->ours, torch->ours and ours->torch mid-schedule.
"""
import copy
import warnings

import numpy as np
import pytest
import torch

import webtorch as wt
from optest import check_same_error

STEPS = 60
METRICS = [1.0, 0.9, 0.95, 0.95, 0.96, 0.97, 0.8, 0.8, 0.81, 0.82, 0.83, 0.84, 0.85, 0.7, 0.7, 0.7, 0.71, 0.72,
           0.73, 0.74] * 4


def _sgd(m):
    return m.optim.SGD([{"params": [m.zeros(2, requires_grad=True)]},
                        {"params": [m.zeros(3, requires_grad=True)], "lr": 0.05}], lr=0.1, momentum=0.9)


def _adam(m):
    return m.optim.Adam([{"params": [m.zeros(2, requires_grad=True)]},
                         {"params": [m.zeros(3, requires_grad=True)], "lr": 0.02}], lr=0.01)


def _seq(m, o):
    s = m.optim.lr_scheduler
    return s.SequentialLR(o, [s.ConstantLR(o, factor=0.5, total_iters=4), s.ExponentialLR(o, gamma=0.9),
                              s.StepLR(o, step_size=5, gamma=0.5)], milestones=[8, 25])


SCHEDULERS = {
    "LambdaLR": (_sgd, lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda e: 0.95 ** e)),
    "LambdaLR-per-group": (_sgd, lambda m, o: m.optim.lr_scheduler.LambdaLR(
        o, [lambda e: 1 / (1 + e), lambda e: 0.9 ** (e // 3)])),
    "MultiplicativeLR": (_sgd, lambda m, o: m.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.97)),
    "StepLR": (_sgd, lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
    "MultiStepLR": (_sgd, lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.5)),
    "ConstantLR": (_sgd, lambda m, o: m.optim.lr_scheduler.ConstantLR(o, factor=0.25, total_iters=10)),
    "LinearLR": (_sgd, lambda m, o: m.optim.lr_scheduler.LinearLR(o, start_factor=0.1, end_factor=0.9,
                                                                  total_iters=20)),
    "ExponentialLR": (_sgd, lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.93)),
    "PolynomialLR": (_sgd, lambda m, o: m.optim.lr_scheduler.PolynomialLR(o, total_iters=30, power=2.0)),
    "CosineAnnealingLR": (_sgd, lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=15, eta_min=0.001)),
    "CosineAnnealingWarmRestarts": (_sgd, lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=5)),
    "CosineAnnealingWarmRestarts-mult": (_sgd, lambda m, o: m.optim.lr_scheduler.CosineAnnealingWarmRestarts(
        o, T_0=7, T_mult=2, eta_min=0.01)),
    "OneCycleLR-cos": (_sgd, lambda m, o: m.optim.lr_scheduler.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=STEPS)),
    "OneCycleLR-linear-three-phase": (_sgd, lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.4, epochs=6, steps_per_epoch=10, anneal_strategy="linear", three_phase=True, pct_start=0.25)),
    "OneCycleLR-adam-betas": (_adam, lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.01, total_steps=STEPS, base_momentum=0.8, max_momentum=0.9, div_factor=10.0)),
    "OneCycleLR-no-momentum": (_sgd, lambda m, o: m.optim.lr_scheduler.OneCycleLR(
        o, max_lr=0.3, total_steps=STEPS, cycle_momentum=False)),
    "CyclicLR-triangular": (_sgd, lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=[0.1, 0.05], step_size_up=7)),
    "CyclicLR-triangular2": (_sgd, lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, step_size_down=8, mode="triangular2")),
    "CyclicLR-exp_range": (_sgd, lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=6, mode="exp_range", gamma=0.97)),
    "CyclicLR-adam-betas": (_adam, lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.001, max_lr=0.01, step_size_up=4, base_momentum=0.85, max_momentum=0.95)),
    "CyclicLR-custom-scale": (_sgd, lambda m, o: m.optim.lr_scheduler.CyclicLR(
        o, base_lr=0.01, max_lr=0.1, step_size_up=5, scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations",
        cycle_momentum=False)),
    "SequentialLR": (_sgd, _seq),
    "SequentialLR-cosine-after-warmup": (_sgd, lambda m, o: m.optim.lr_scheduler.SequentialLR(
        o, [m.optim.lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=5),
            m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=30)], milestones=[5])),
    "ChainedScheduler": (_sgd, lambda m, o: m.optim.lr_scheduler.ChainedScheduler(
        [m.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=10), m.optim.lr_scheduler.ExponentialLR(o, 0.95)])),
    "ReduceLROnPlateau": (_sgd, lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(o, patience=2)),
    "ReduceLROnPlateau-max-abs-cooldown": (_sgd, lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(
        o, mode="max", factor=0.5, patience=1, threshold=0.01, threshold_mode="abs", cooldown=2,
        min_lr=[0.02, 0.001])),
    "ReduceLROnPlateau-min-lr-eps": (_sgd, lambda m, o: m.optim.lr_scheduler.ReduceLROnPlateau(
        o, factor=0.3, patience=0, min_lr=0.004, eps=1e-3)),
}


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def _step(sched, i):
    if type(sched).__name__ == "ReduceLROnPlateau":
        sched.step(METRICS[i % len(METRICS)])
    else:
        sched.step()


def _trace(m, make_opt, make_sched, steps=STEPS, start=0, opt=None, sched=None):
    """Per step: (get_last_lr(), groups' lr, groups' momentum or beta1)."""
    if opt is None:
        opt = make_opt(m)
        sched = make_sched(m, opt)
    out = [(list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups], _momenta(opt))]
    for i in range(start, start + steps):
        opt.step()
        _step(sched, i)
        out.append((list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups], _momenta(opt)))
    return out, opt, sched


def _assert_traces_equal(ours, ref):
    assert len(ours) == len(ref)
    for i, (o, r) in enumerate(zip(ours, ref)):
        for a, b, what in zip(o, r, ("get_last_lr", "lr", "momentum")):
            if b[0] is None:
                assert a == b, (i, what)
            else:
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=0, err_msg=f"step {i} {what}")


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_schedule_matches_torch(name):
    make_opt, make_sched = SCHEDULERS[name]
    ref, _, _ = _trace(torch, make_opt, make_sched)
    ours, _, _ = _trace(wt, make_opt, make_sched)
    _assert_traces_equal(ours, ref)


def _plain(state):
    """A scheduler state dict without entries that cannot be compared across libraries."""
    return {k: v for k, v in state.items() if k not in ("_schedulers", "lr_lambdas")}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_state_dict_matches_and_round_trips(name):
    make_opt, make_sched = SCHEDULERS[name]
    half = STEPS // 2
    ref, topt, tsched = _trace(torch, make_opt, make_sched, half)
    ours, opt, sched = _trace(wt, make_opt, make_sched, half)
    _assert_traces_equal(ours, ref)
    sd, tsd = sched.state_dict(), tsched.state_dict()
    assert sorted(sd) == sorted(tsd)
    assert _plain(sd) == _plain(tsd)

    def resumed(m, src_opt_sd, src_sched_sd):
        opt2 = make_opt(m)
        sched2 = make_sched(m, opt2)
        opt2.load_state_dict(src_opt_sd)
        sched2.load_state_dict(src_sched_sd)
        return opt2, sched2

    saved = [(wt, opt.state_dict(), sd), (wt, _opt_sd_to(topt.state_dict()), tsd),
             (torch, _opt_sd_to(opt.state_dict()), sd)]
    saved = [(m, copy.deepcopy(o), copy.deepcopy(s)) for m, o, s in saved]
    rest_ref, _, _ = _trace(torch, make_opt, make_sched, STEPS - half, half, topt, tsched)
    for m, opt_sd, sched_sd in saved:  # ours -> ours, torch -> ours, ours -> torch
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt2, sched2 = resumed(m, opt_sd, sched_sd)
        rest, _, _ = _trace(m, make_opt, make_sched, STEPS - half, half, opt2, sched2)
        _assert_traces_equal(rest, rest_ref)


def _opt_sd_to(sd):
    """An optimizer state dict for library m (these optimizers never stepped with gradients: no tensors)."""
    assert all(not st for st in sd["state"].values())
    return {"state": {}, "param_groups": [dict(g) for g in sd["param_groups"]]}


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR",
                                  "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts-mult",
                                  "LambdaLR"])
def test_step_with_an_epoch_uses_the_closed_form(name):
    make_opt, make_sched = SCHEDULERS[name]
    lrs = []
    for m in (torch, wt):
        opt = make_opt(m)
        sched = make_sched(m, opt)
        seq = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for epoch in (3, 10, 4, 27, 40, 41, 1, 0, 55):
                opt.step()
                sched.step(epoch)
                seq.append(list(sched.get_last_lr()))
        # CosineAnnealingWarmRestarts takes epochs by design (fractional ones too): no deprecation warning
        assert any("epoch parameter" in str(w.message) for w in caught) == ("WarmRestarts" not in name)
        lrs.append(seq)
    np.testing.assert_allclose(lrs[1], lrs[0], rtol=1e-12)


def test_fractional_epochs_in_warm_restarts():
    lrs = []
    for m in (torch, wt):
        opt = _sgd(m)
        sched = m.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=3)
        seq = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for i in range(40):
                opt.step()
                sched.step(i / 3)
                seq.append(list(sched.get_last_lr()) + [sched.T_cur, sched.T_i, sched.last_epoch])
        lrs.append(seq)
    np.testing.assert_allclose(lrs[1], lrs[0], rtol=1e-12)


def test_warns_when_stepped_before_the_optimizer():
    opt = _sgd(wt)
    sched = wt.optim.lr_scheduler.StepLR(opt, 3)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt2 = _sgd(wt)
    sched2 = wt.optim.lr_scheduler.StepLR(opt2, 3)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()


def test_get_lr_outside_step_warns():
    sched = wt.optim.lr_scheduler.ExponentialLR(_sgd(wt), 0.9)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_a_tensor_lr_is_updated_in_place():
    p = wt.zeros(2, requires_grad=True)
    lr = wt.tensor(0.1)
    opt = wt.optim.SGD([p], lr=lr)
    sched = wt.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] is lr and abs(lr.item() - 0.05) < 1e-8


def _s(m):
    return m.optim.lr_scheduler


@pytest.mark.parametrize("fn", [
    lambda m: _s(m).StepLR(object(), 3),
    lambda m: _s(m).ConstantLR(_sgd(m), factor=1.5),
    lambda m: _s(m).LinearLR(_sgd(m), start_factor=0),
    lambda m: _s(m).LinearLR(_sgd(m), end_factor=2),
    lambda m: _s(m).LambdaLR(_sgd(m), [lambda e: 1.0]),
    lambda m: _s(m).MultiplicativeLR(_sgd(m), [0.5, 0.5]),
    lambda m: _s(m).StepLR(_sgd(m), 3, last_epoch=5),
    lambda m: _s(m).CosineAnnealingWarmRestarts(_sgd(m), T_0=0),
    lambda m: _s(m).CosineAnnealingWarmRestarts(_sgd(m), T_0=3, T_mult=0),
    lambda m: _s(m).CosineAnnealingWarmRestarts(_sgd(m), T_0=3, eta_min="0"),
    lambda m: _s(m).OneCycleLR(_sgd(m), max_lr=0.1),
    lambda m: _s(m).OneCycleLR(_sgd(m), max_lr=0.1, total_steps=0),
    lambda m: _s(m).OneCycleLR(_sgd(m), max_lr=0.1, epochs=2, steps_per_epoch=-1),
    lambda m: _s(m).OneCycleLR(_sgd(m), max_lr=0.1, total_steps=10, pct_start=1.5),
    lambda m: _s(m).OneCycleLR(_sgd(m), max_lr=0.1, total_steps=10, anneal_strategy="exp"),
    lambda m: _s(m).OneCycleLR(_sgd(m), max_lr=[0.1], total_steps=10),
    lambda m: _s(m).OneCycleLR(m.optim.Adagrad([m.zeros(1, requires_grad=True)]), max_lr=0.1, total_steps=10),
    lambda m: [s.step() for s in [_s(m).OneCycleLR(_sgd(m), max_lr=0.1, total_steps=3)] for _ in range(4)],
    lambda m: _s(m).CyclicLR(_sgd(m), 0.01, 0.1, mode="cubic"),
    lambda m: _s(m).CyclicLR(m.optim.Adagrad([m.zeros(1, requires_grad=True)]), 0.01, 0.1),
    lambda m: _s(m).ReduceLROnPlateau(_sgd(m), factor=1.0),
    lambda m: _s(m).ReduceLROnPlateau(_sgd(m), mode="median"),
    lambda m: _s(m).ReduceLROnPlateau(_sgd(m), threshold_mode="pct"),
    lambda m: _s(m).ReduceLROnPlateau(_sgd(m), min_lr=[0.1]),
    lambda m: _s(m).SequentialLR(_sgd(m), [], milestones=[]),
    lambda m: [_s(m).SequentialLR(o, [_s(m).ConstantLR(o), _s(m).ExponentialLR(o, 0.9)], milestones=[])
               for o in [_sgd(m)]],
    lambda m: [_s(m).SequentialLR(o, [_s(m).ConstantLR(o), _s(m).ExponentialLR(_sgd(m), 0.9)], milestones=[3])
               for o in [_sgd(m)]],
    lambda m: [_s(m).ChainedScheduler([_s(m).ReduceLROnPlateau(o)]) for o in [_sgd(m)]],
    lambda m: _s(m).ChainedScheduler([]),
], ids=lambda f: "")
def test_invalid_arguments_raise_like_torch(fn):
    check_same_error(fn)
