"""Rprop and ASGD against PyTorch 2.13, compared as every optimizer is (tests/support/optim_compare.py): float32
fed PyTorch's gradient at every step on every device, float64 end to end, state dicts in PyTorch's layout that
round-trip both ways."""
import pytest
import torch

import webtorch as wt
from optest import check_same_error
from optim_compare import check_end_to_end_float64, check_state_layout, check_with_torch_gradients, round_trip_tests

CONFIGS = {
    "Rprop": [dict(), dict(lr=0.05, etas=(0.3, 1.5)), dict(lr=0.01, step_sizes=(1e-3, 0.02)),
              dict(lr=0.005, maximize=True)],
    "ASGD": [dict(), dict(lr=0.05, t0=5), dict(lr=0.05, lambd=1e-2, alpha=0.5, t0=10),
             dict(lr=0.02, weight_decay=0.01, t0=3), dict(lr=0.01, maximize=True, t0=2, weight_decay=0.05)],
}
CASES = [(name, kw) for name, kws in CONFIGS.items() for kw in kws]
CASE_IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}" for name, kw in CASES]


@pytest.mark.parametrize("foreach", [False, None], ids=["per_tensor", "default"])
@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
def test_steps_float32_with_torch_gradients(name, kw, foreach, device):
    check_with_torch_gradients(name, kw, foreach, device)


@pytest.mark.parametrize("name,kw", CASES, ids=CASE_IDS)
def test_steps_end_to_end_float64(name, kw):
    check_end_to_end_float64(name, kw, None)


@pytest.mark.parametrize("name", ["Rprop", "ASGD"])
def test_state_layout_and_devices(name, device):
    for st in check_state_layout(name, {}, device).state.values():
        # PyTorch keeps Rprop's step on the cpu, ASGD's scalars beside the param
        scalar_device = "cpu" if name == "Rprop" else device
        for key in ("step", "eta", "mu"):
            if key in st:
                assert st[key].dim() == 0 and st[key].dtype == wt.float32 and st[key].device.type == scalar_device


ROUND_TRIP = [("Rprop", dict(lr=0.02)), ("ASGD", dict(lr=0.05, t0=5))]


test_round_trip_ours_to_ours, test_round_trip_torch_to_ours, test_round_trip_ours_to_torch = \
    round_trip_tests(ROUND_TRIP)


def test_asgd_number_state_from_an_old_checkpoint_becomes_tensors():
    p = wt.zeros(3, requires_grad=True)
    opt = wt.optim.ASGD([p])
    sd = {"state": {0: {"step": 2, "eta": 0.01, "mu": 1.0, "ax": wt.ones(3)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    assert all(isinstance(opt.state[p][k], wt.Tensor) for k in ("step", "eta", "mu"))
    p.grad = wt.ones(3)
    opt.step()
    assert opt.state[p]["step"].item() == 3.0


def _p(lib):
    return [lib.zeros(2, requires_grad=True)]


@pytest.mark.parametrize("fn", [
    lambda m: m.optim.Rprop(_p(m), lr=-1.0),
    lambda m: m.optim.Rprop(_p(m), etas=(1.5, 1.2)),
    lambda m: m.optim.Rprop(_p(m), etas=(0.5, 0.9)),
    lambda m: m.optim.ASGD(_p(m), lr=-0.1),
    lambda m: m.optim.ASGD(_p(m), weight_decay=-1.0),
], ids=["rprop_lr", "rprop_etaminus", "rprop_etaplus", "asgd_lr", "asgd_weight_decay"])
def test_invalid_arguments_raise_like_torch(fn):
    check_same_error(fn)


@pytest.mark.parametrize("name", ["Rprop", "ASGD"])
def test_defaults_and_repr_match_torch(name):
    ours = getattr(wt.optim, name)(_p(wt))
    ref = getattr(torch.optim, name)(_p(torch))
    assert ours.defaults == ref.defaults
    assert repr(ours) == repr(ref)
