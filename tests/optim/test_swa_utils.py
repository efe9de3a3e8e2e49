"""optim.swa_utils against PyTorch 2.13: AveragedModel, SWALR and update_bn, the same averaging/annealing/BatchNorm
pass run on both libraries from the same weights."""
import math
import warnings

import numpy as np
import pytest
import torch

import webtorch as wt
from optest import check_same_error
from optim_compare import ATOL, F64, RTOL, batch, ours_like, to_numpy, torch_model


def _bn_torch_model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU(),
                               torch.nn.Linear(6, 3))


def _bn_ours_like(tmodel, device):
    model = wt.nn.Sequential(wt.nn.Linear(4, 6), wt.nn.BatchNorm1d(6), wt.nn.ReLU(), wt.nn.Linear(6, 3))
    model.load_state_dict({k: wt.tensor(v.detach().numpy().copy()) for k, v in tmodel.state_dict().items()})
    return model.to(device)


def _assert_modules_close(model, tmodel):
    ours, ref = model.state_dict(), tmodel.state_dict()
    assert list(ours) == list(ref)
    for key, tv in ref.items():
        assert str(ours[key].dtype) == str(tv.dtype), key
        np.testing.assert_allclose(to_numpy(ours[key]), to_numpy(tv), rtol=RTOL, atol=ATOL, err_msg=key)


AVERAGING = {
    "swa": lambda su: dict(),
    "ema_multi": lambda su: dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.9)),
    "swa_multi": lambda su: dict(multi_avg_fn=su.get_swa_multi_avg_fn()),
    "ema_avg_fn": lambda su: dict(avg_fn=su.get_ema_avg_fn(0.8)),
    "swa_avg_fn": lambda su: dict(avg_fn=su.get_swa_avg_fn()),
    "ema_buffers": lambda su: dict(multi_avg_fn=su.get_ema_multi_avg_fn(0.9), use_buffers=True),
    "swa_buffers": lambda su: dict(use_buffers=True),
}


@pytest.mark.parametrize("kind", list(AVERAGING))
def test_averaged_model_matches_torch(kind, device):
    tmodel = _bn_torch_model()
    model = _bn_ours_like(tmodel, device)
    tavg = torch.optim.swa_utils.AveragedModel(tmodel, **AVERAGING[kind](torch.optim.swa_utils))
    avg = wt.optim.swa_utils.AveragedModel(model, **AVERAGING[kind](wt.optim.swa_utils))
    topt = torch.optim.SGD(tmodel.parameters(), lr=0.1)
    opt = wt.optim.SGD(model.parameters(), lr=0.1)
    x, y = batch(torch, device)
    for _ in range(5):
        # train mode: BatchNorm's running statistics move too (averaged only with use_buffers)
        topt.zero_grad()
        ((tmodel(x) - y) ** 2).mean().backward()
        for p, tp in zip(model.parameters(), tmodel.parameters()):
            p.grad = wt.tensor(tp.grad.numpy().copy(), device=device)
        model(wt.tensor(x.numpy(), device=device))
        topt.step()
        opt.step()
        tavg.update_parameters(tmodel)
        avg.update_parameters(model)
    assert avg.n_averaged.item() == tavg.n_averaged.item() == 5 and avg.n_averaged.dtype == wt.int64
    _assert_modules_close(avg, tavg)
    avg.eval()
    tavg.eval()
    np.testing.assert_allclose(to_numpy(avg(wt.tensor(x.numpy(), device=device))), to_numpy(tavg(x)), rtol=RTOL,
                               atol=ATOL)


def test_averaged_model_refuses_two_averaging_functions():
    su = wt.optim.swa_utils
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        su.AveragedModel(wt.nn.Linear(2, 2), avg_fn=su.get_swa_avg_fn(), multi_avg_fn=su.get_swa_multi_avg_fn())


@pytest.mark.parametrize("fn", [lambda m: m.optim.swa_utils.get_ema_avg_fn(1.5),
                                lambda m: m.optim.swa_utils.get_ema_multi_avg_fn(-0.1)], ids=["avg", "multi"])
def test_invalid_decay_raises_like_torch(fn):
    check_same_error(fn)


def test_averaged_model_is_a_deep_copy_on_the_requested_device(device):
    model = wt.nn.Linear(3, 2)
    avg = wt.optim.swa_utils.AveragedModel(model, device=device)
    assert avg.module is not model and avg.module.weight is not model.weight
    assert avg.module.weight.device.type == device and avg.n_averaged.device.type == device
    assert list(avg.state_dict()) == ["n_averaged", "module.weight", "module.bias"]


@pytest.mark.parametrize("kw", [dict(swa_lr=0.05), dict(swa_lr=0.05, anneal_strategy="linear", anneal_epochs=4),
                                dict(swa_lr=[0.05, 0.2], anneal_epochs=0), dict(swa_lr=0.01, anneal_epochs=1)])
def test_swalr_matches_torch(kw):
    def make(lib):
        m = torch_model() if lib is torch else ours_like(torch_model(), "cpu")
        groups = [{"params": list(m[0].parameters())}, {"params": list(m[2].parameters()), "lr": 0.5}]
        opt = lib.optim.SGD(groups, lr=0.1)
        return opt, lib.optim.swa_utils.SWALR(opt, **kw)

    (topt, tsched), (opt, sched) = make(torch), make(wt)
    for _ in range(12):
        topt.step()
        opt.step()
        tsched.step()
        sched.step()
        assert sched.get_last_lr() == pytest.approx(tsched.get_last_lr(), rel=1e-12)
        assert [g["lr"] for g in opt.param_groups] == pytest.approx([g["lr"] for g in topt.param_groups], rel=1e-12)
    ours, ref = sched.state_dict(), tsched.state_dict()
    assert sorted(ours) == sorted(ref)
    assert "anneal_func" not in ours and ours["_anneal_strategy"] == ref["_anneal_strategy"]


def test_swalr_state_dict_round_trip_rebuilds_the_anneal_function():
    p = wt.zeros(2, requires_grad=True)
    opt = wt.optim.SGD([p], lr=1.0)
    sched = wt.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="linear", anneal_epochs=4)
    opt2 = wt.optim.SGD([p], lr=1.0)
    sched2 = wt.optim.swa_utils.SWALR(opt2, swa_lr=0.1)
    sched2.load_state_dict(sched.state_dict())
    assert sched2.anneal_func(0.5) == 0.5 and sched.anneal_func(0.5) == 0.5
    assert wt.optim.swa_utils.SWALR._cosine_anneal(0.5) == pytest.approx((1 - math.cos(math.pi / 2)) / 2)


@pytest.mark.parametrize("kw", [dict(anneal_strategy="exp"), dict(anneal_epochs=-1), dict(anneal_epochs=2.0)],
                         ids=["strategy", "negative", "float"])
def test_swalr_invalid_arguments_raise_like_torch(kw):
    check_same_error(lambda m: m.optim.swa_utils.SWALR(m.optim.SGD([m.zeros(2, requires_grad=True)], lr=0.1),
                                                       swa_lr=0.1, **kw))


@pytest.mark.parametrize("tuples", [False, True], ids=["tensors", "tuples"])
def test_update_bn_matches_torch(tuples, device):
    tmodel = _bn_torch_model()
    model = _bn_ours_like(tmodel, device)
    tmodel.eval()
    model.eval()
    rng = np.random.default_rng(5)
    batches = [rng.standard_normal((8, 4)).astype(np.float32) * (i + 1) for i in range(4)]
    tloader = [(torch.tensor(b), torch.zeros(8)) if tuples else torch.tensor(b) for b in batches]
    loader = [(wt.tensor(b), wt.zeros(8)) if tuples else wt.tensor(b) for b in batches]
    torch.optim.swa_utils.update_bn(tloader, tmodel)
    wt.optim.swa_utils.update_bn(loader, model, device=device)
    assert not model.training and model[1].momentum == tmodel[1].momentum == 0.1
    _assert_modules_close(model, tmodel)
    assert model[1].num_batches_tracked.item() == 4


def test_update_bn_without_batchnorm_does_nothing():
    model = wt.nn.Linear(4, 2)
    before = model.weight.detach().clone()
    wt.optim.swa_utils.update_bn([wt.ones(2, 4)], model)
    assert wt.equal(model.weight, before)


def test_swa_training_loop_end_to_end():
    """The documented recipe: train, average from an epoch on under SWALR, update_bn, evaluate."""
    def run(lib, model):
        opt = lib.optim.SGD(model.parameters(), lr=0.05)
        swa_model = lib.optim.swa_utils.AveragedModel(model)
        sched = lib.optim.swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=3)
        x, y = batch(lib, "cpu", np.float64)
        for epoch in range(10):
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
            if epoch >= 4:
                swa_model.update_parameters(model)
                sched.step()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.optim.swa_utils.update_bn([x, x[:8]], swa_model)
        swa_model.eval()
        return swa_model(x)

    tmodel = _bn_torch_model().to(F64)
    model = _bn_ours_like(tmodel, "cpu").to(wt.float64)
    np.testing.assert_allclose(to_numpy(run(wt, model)), to_numpy(run(torch, tmodel)), rtol=1e-10, atol=1e-12)
