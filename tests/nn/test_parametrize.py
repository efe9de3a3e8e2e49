"""nn.utils.parametrize, nn.utils.parametrizations.{weight_norm, spectral_norm} and the older
nn.utils.{weight_norm, spectral_norm} hooks against PyTorch 2.13: the same module built in both libraries,
PyTorch's state_dict loaded into ours, then state_dict keys, outputs, gradients and the power-iteration
vectors compared, in train and eval mode."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import webtorch as wt
from optest import check_same_error

RTOL, ATOL = 1e-5, 1e-6
_rng = np.random.default_rng(7)


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().cpu().numpy())


def _ours(t, device="cpu"):
    return wt.tensor(_np(t).copy(), device=device)


def _close(a, b, what="", rtol=RTOL, atol=ATOL):
    assert tuple(a.shape) == tuple(b.shape), what
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, err_msg=what)


MODULES = {
    "linear": (lambda m: m.nn.Linear(5, 4), (3, 5)),
    "conv2d": (lambda m: m.nn.Conv2d(2, 3, 3), (2, 2, 6, 6)),
    "conv_transpose2d": (lambda m: m.nn.ConvTranspose2d(3, 2, 3), (2, 3, 4, 4)),
    "conv1d": (lambda m: m.nn.Conv1d(2, 4, 3), (2, 2, 7)),
}


def _pair(kind, wrap, device, seed=0, **kw):
    """The torch module and ours, both wrapped by ``wrap(lib, module, **kw)``, ours loaded from torch's
    state_dict; plus an input for both."""
    make, shape = MODULES[kind]
    torch.manual_seed(seed)
    tmod = wrap(torch, make(torch), **kw)
    mod = wrap(wt, make(wt), **kw)
    assert list(mod.state_dict()) == list(tmod.state_dict())
    mod.load_state_dict({k: _ours(v) for k, v in tmod.state_dict().items()})
    mod.to(device)
    x = _rng.standard_normal(shape).astype(np.float32)
    return tmod, mod, torch.tensor(x, requires_grad=True), wt.tensor(x, device=device, requires_grad=True)


def _forward_backward_match(tmod, mod, tx, x):
    tout, out = tmod(tx), mod(x)
    _close(out, tout, "output")
    (tout ** 2).sum().backward()
    (out ** 2).sum().backward()
    _close(x.grad, tx.grad, "input grad")
    tparams = dict(tmod.named_parameters())
    for name, p in mod.named_parameters():
        ref = tparams[name].grad
        # an element near zero is a cancellation of terms as large as the tensor's largest: its float32 round-off
        # scales with that magnitude, not with its own (spectral_norm conv2d: 1.5e-5 off at 0.03 beside 41.5)
        _close(p.grad, ref, f"grad of {name}", rtol=1e-4, atol=1e-5 * max(1.0, float(np.abs(_np(ref)).max())))
    tx.grad = x.grad = None
    tmod.zero_grad()
    mod.zero_grad()


# ---- parametrizations.weight_norm ----------------------------------------------------------------------
def _pweight_norm(lib, module, **kw):
    return lib.nn.utils.parametrizations.weight_norm(module, **kw)


WEIGHT_NORM_CASES = [(kind, dim) for kind in MODULES for dim in (0, 1, None, -1, 2, -2) if kind != "linear" or
                     dim in (0, 1, None, -1)]


@pytest.mark.parametrize("kind,dim", WEIGHT_NORM_CASES)
def test_parametrized_weight_norm_matches_torch(kind, dim, device):
    tmod, mod, tx, x = _pair(kind, _pweight_norm, device, dim=dim)
    assert type(mod).__name__ == type(tmod).__name__ == "Parametrized" + MODULES[kind][0](wt).__class__.__name__
    g, v = mod.parametrizations.weight.original0, mod.parametrizations.weight.original1
    tg = tmod.parametrizations.weight.original0
    assert isinstance(g, wt.nn.Parameter) and tuple(g.shape) == tuple(tg.shape)
    _close(mod.weight, tmod.weight, "weight")
    for _ in range(2):
        _forward_backward_match(tmod, mod, tx, x)
    assert mod.parametrizations.weight.original1 is v


def test_norm_except_dim_matches_torch():
    from webtorch.nn.utils.weight_norm import _weight_norm, norm_except_dim
    v = _rng.standard_normal((3, 4, 5)).astype(np.float32)
    for dim in (-1, 0, 1, 2, -2):
        ours = norm_except_dim(wt.tensor(v), 2, dim)
        _close(ours, torch.norm_except_dim(torch.tensor(v), 2, dim), f"dim={dim}")
        g = wt.tensor(_np(ours) * 1.5)
        _close(_weight_norm(wt.tensor(v), g, dim), torch._weight_norm(torch.tensor(v), torch.tensor(_np(g)), dim))


def test_weight_norm_loads_the_old_hook_state_dict():
    torch.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        old = torch.nn.utils.weight_norm(torch.nn.Linear(5, 4))
    assert sorted(old.state_dict()) == ["bias", "weight_g", "weight_v"]
    mod = wt.nn.utils.parametrizations.weight_norm(wt.nn.Linear(5, 4))
    mod.load_state_dict({k: _ours(v) for k, v in old.state_dict().items()})
    x = _rng.standard_normal((2, 5)).astype(np.float32)
    _close(mod(wt.tensor(x)), old(torch.tensor(x)))
    _close(mod.parametrizations.weight.original1, old.weight_v)


def test_weight_norm_assignment_goes_through_right_inverse(device):
    mod = wt.nn.utils.parametrizations.weight_norm(wt.nn.Linear(3, 2)).to(device)
    target = wt.tensor([[3.0, 4.0, 0.0], [0.0, 0.0, 2.0]], device=device)
    g = mod.parametrizations.weight.original0
    mod.weight = target
    assert mod.parametrizations.weight.original0 is g
    _close(g, torch.tensor([[5.0], [2.0]]))
    _close(mod.weight, torch.tensor(_np(target)))


# ---- parametrizations.spectral_norm --------------------------------------------------------------------
def _pspectral_norm(lib, module, **kw):
    return lib.nn.utils.parametrizations.spectral_norm(module, **kw)


@pytest.mark.parametrize("kw", [dict(), dict(n_power_iterations=3), dict(eps=1e-3, dim=1), dict(dim=-1)])
@pytest.mark.parametrize("kind", list(MODULES))
def test_parametrized_spectral_norm_matches_torch(kind, kw, device):
    tmod, mod, tx, x = _pair(kind, _pspectral_norm, device, **kw)
    sn, tsn = mod.parametrizations.weight[0], tmod.parametrizations.weight[0]
    assert sn.dim == tsn.dim and sn.n_power_iterations == tsn.n_power_iterations
    for step in range(3):  # training mode: one round of power iteration per forward
        _forward_backward_match(tmod, mod, tx, x)
        _close(sn._u, tsn._u, f"_u after forward {step}")
        _close(sn._v, tsn._v, f"_v after forward {step}")
    mod.eval()
    tmod.eval()
    u_before = _np(sn._u).copy()
    _forward_backward_match(tmod, mod, tx, x)
    np.testing.assert_array_equal(_np(sn._u), u_before)
    # sigma estimated from the trained vectors: the normalized weight's top singular value is ~1
    w = _np(mod.weight)
    top = np.linalg.svd(np.moveaxis(w, sn.dim, 0).reshape(w.shape[sn.dim], -1), compute_uv=False)[0]
    assert abs(top - 1) < 0.2


def test_spectral_norm_of_a_vector_normalizes_it(device):
    mod = wt.nn.utils.parametrizations.spectral_norm(wt.nn.Linear(3, 4), name="bias").to(device)
    tmod = torch.nn.Linear(3, 4)
    assert list(mod.state_dict()) == ["weight", "parametrizations.bias.original"]
    with torch.no_grad():
        tmod.bias.copy_(torch.tensor(_np(mod.parametrizations.bias.original)))
    tmod = torch.nn.utils.parametrizations.spectral_norm(tmod, name="bias")
    _close(mod.bias, tmod.bias)
    assert abs(float(wt.linalg.vector_norm(mod.bias).item()) - 1.0) < 1e-6


def test_spectral_norm_initial_power_iteration_converges():
    # the 15 initial iterations from random vectors find the top singular pair of a well-separated matrix
    w = np.diag([5.0, 1.0, 0.5]).astype(np.float32) @ np.linalg.qr(_rng.standard_normal((3, 3)))[0].astype(np.float32)
    lin = wt.nn.Linear(3, 3)
    with wt.no_grad():
        lin.weight.copy_(wt.tensor(w))
    mod = wt.nn.utils.parametrizations.spectral_norm(lin)
    sigma = float(np.linalg.svd(w, compute_uv=False)[0])
    mod.eval()
    _close(mod.weight, torch.tensor(w / sigma), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("fn", [
    lambda m: m.nn.utils.parametrizations.spectral_norm(m.nn.Linear(3, 4), n_power_iterations=0),
    lambda m: m.nn.utils.parametrizations.spectral_norm(m.nn.Linear(3, 4), dim=2),
    lambda m: m.nn.utils.parametrizations.spectral_norm(m.nn.Linear(3, 4), name="nothing"),
    lambda m: m.nn.utils.parametrizations.weight_norm(m.nn.Linear(3, 4), dim=2),
], ids=["power_iterations", "dim", "name", "weight_norm_dim"])
def test_parametrization_errors_like_torch(fn):
    check_same_error(fn)


# ---- parametrize itself --------------------------------------------------------------------------------
def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _scale(lib, factor=2.0):
    class Scale(lib.nn.Module):
        def forward(self, X):
            return X * factor

        def right_inverse(self, A):
            return A / factor

    return Scale()


def _first_rows(lib):
    class FirstRows(lib.nn.Module):
        def forward(self, X):
            return X[:2]

    return FirstRows()


def _bad_inverse(lib):
    class BadInverse(lib.nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, A):
            return A[:2]

    return BadInverse()


def test_register_and_remove_a_custom_parametrization(device):
    P = wt.nn.utils.parametrize
    mod = wt.nn.Linear(3, 3).to(device)
    weight = mod.weight
    P.register_parametrization(mod, "weight", _symmetric(wt))
    assert P.is_parametrized(mod) and P.is_parametrized(mod, "weight") and not P.is_parametrized(mod, "bias")
    assert P.type_before_parametrizations(mod) is wt.nn.Linear and type(mod).__name__ == "ParametrizedLinear"
    assert mod.parametrizations.weight.original is weight  # the optimizer's Parameter is kept
    assert list(mod.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert list(dict(mod.named_parameters())) == ["bias", "parametrizations.weight.original"]
    w = _np(mod.weight)
    np.testing.assert_allclose(w, w.T)
    P.register_parametrization(mod, "weight", _scale(wt))  # chained: Scale(Symmetric(original))
    np.testing.assert_allclose(_np(mod.weight), 2 * w, rtol=1e-6)
    target = wt.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]], device=device)
    mod.weight = target  # right_inverse of the chain, last first
    np.testing.assert_allclose(_np(mod.weight), _np(target), rtol=1e-6)
    np.testing.assert_allclose(_np(mod.parametrizations.weight.original), np.triu(_np(target)) / 2, rtol=1e-6)
    P.remove_parametrizations(mod, "weight")
    assert type(mod) is wt.nn.Linear and not hasattr(mod, "parametrizations")
    assert mod.weight is weight and isinstance(mod.weight, wt.nn.Parameter)
    np.testing.assert_allclose(_np(mod.weight), _np(target), rtol=1e-6)
    assert list(mod.state_dict()) == ["bias", "weight"]  # re-registered last, as in torch


def test_remove_without_leaving_parametrized_restores_the_original():
    P = wt.nn.utils.parametrize
    mod = P.register_parametrization(wt.nn.Linear(2, 2), "weight", _scale(wt, 3.0))
    original = _np(mod.parametrizations.weight.original).copy()
    P.remove_parametrizations(mod, "weight", leave_parametrized=False)
    np.testing.assert_array_equal(_np(mod.weight), original)


def test_two_tensors_parametrized_and_removed_one_at_a_time():
    P = wt.nn.utils.parametrize
    mod = wt.nn.Linear(3, 3)
    P.register_parametrization(mod, "weight", _scale(wt))
    P.register_parametrization(mod, "bias", _scale(wt, 0.5))
    assert list(mod.state_dict()) == ["parametrizations.weight.original", "parametrizations.bias.original"]
    P.remove_parametrizations(mod, "weight")
    assert type(mod).__name__ == "ParametrizedLinear" and P.is_parametrized(mod, "bias")
    P.remove_parametrizations(mod, "bias")
    assert type(mod) is wt.nn.Linear


def test_sequence_right_inverse_remove_needs_leave_parametrized():
    P = wt.nn.utils.parametrize
    mod = wt.nn.utils.parametrizations.weight_norm(wt.nn.Linear(3, 2))
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(mod, "weight", leave_parametrized=False)
    expected = _np(mod.weight).copy()
    P.remove_parametrizations(mod, "weight")
    assert isinstance(mod.weight, wt.nn.Parameter) and mod.weight.requires_grad
    np.testing.assert_allclose(_np(mod.weight), expected)


def test_parametrized_buffer():
    P = wt.nn.utils.parametrize
    bn = wt.nn.BatchNorm1d(3)
    tbn = torch.nn.BatchNorm1d(3)
    for lib, m in ((wt, bn), (torch, tbn)):
        lib.nn.utils.parametrize.register_parametrization(m, "running_var", _scale(lib))
    assert list(bn.state_dict()) == list(tbn.state_dict())
    assert P.is_parametrized(bn, "running_var")
    _close(bn.running_var, tbn.running_var)


def test_cached_computes_once():
    P = wt.nn.utils.parametrize
    calls = []

    class Counting(wt.nn.Module):
        def forward(self, X):
            calls.append(1)
            return X * 1.0

    mod = P.register_parametrization(wt.nn.Linear(2, 2), "weight", Counting())
    calls.clear()
    with P.cached():
        first = mod.weight
        assert mod.weight is first
        with P.cached():
            assert mod.weight is first
    assert len(calls) == 1
    mod.weight
    assert len(calls) == 2


def test_optimizer_trains_the_original_of_a_parametrized_module():
    torch.manual_seed(3)
    tmod = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(4, 3))
    mod = wt.nn.utils.parametrizations.weight_norm(wt.nn.Linear(4, 3))
    mod.load_state_dict({k: _ours(v) for k, v in tmod.state_dict().items()})
    x = _rng.standard_normal((6, 4)).astype(np.float32)
    topt, opt = torch.optim.SGD(tmod.parameters(), lr=0.1), wt.optim.SGD(mod.parameters(), lr=0.1)
    for _ in range(5):
        for o, m, xi in ((topt, tmod, torch.tensor(x)), (opt, mod, wt.tensor(x))):
            o.zero_grad()
            (m(xi) ** 2).mean().backward()
            o.step()
    for key, tv in tmod.state_dict().items():
        _close(mod.state_dict()[key], tv, key, rtol=1e-4, atol=1e-5)


def test_deepcopy_works_and_pickle_is_refused():
    mod = wt.nn.utils.parametrizations.spectral_norm(wt.nn.Linear(3, 2))
    clone = copy.deepcopy(mod)
    assert type(clone) is type(mod)
    assert clone.parametrizations.weight.original is not mod.parametrizations.weight.original
    mod.eval()
    clone.eval()
    _close(clone.weight, torch.tensor(_np(mod.weight)))
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through"):
        pickle.dumps(mod)


def test_transfer_parametrizations_and_params():
    P = wt.nn.utils.parametrize
    src = P.register_parametrization(wt.nn.Linear(3, 3), "weight", _symmetric(wt))
    dst = wt.nn.Linear(3, 3)
    P.transfer_parametrizations_and_params(src, dst)
    assert P.is_parametrized(dst, "weight")
    np.testing.assert_array_equal(_np(dst.weight), _np(src.weight))


@pytest.mark.parametrize("fn", [
    lambda m: m.nn.utils.parametrize.register_parametrization(m.nn.Linear(3, 3), "nothing", _scale(m)),
    lambda m: m.nn.utils.parametrize.register_parametrization(m.nn.Linear(3, 4), "weight", _first_rows(m)),
    lambda m: m.nn.utils.parametrize.register_parametrization(
        m.nn.utils.parametrize.register_parametrization(m.nn.Linear(3, 4), "weight", _scale(m)), "weight",
        _first_rows(m)),
    lambda m: m.nn.utils.parametrize.remove_parametrizations(m.nn.Linear(3, 4), "weight"),
    lambda m: setattr(m.nn.utils.parametrize.register_parametrization(m.nn.Linear(3, 3), "weight", _scale(m)),
                      "weight", m.nn.Parameter(m.ones(3, 3))),
    lambda m: m.nn.utils.parametrize.register_parametrization(
        m.nn.utils.parametrize.register_parametrization(m.nn.Linear(3, 4), "weight", _scale(m)), "weight",
        _bad_inverse(m)),
], ids=["unknown_name", "shape_change", "shape_change_chained", "remove_unparametrized", "assign_parameter",
        "right_inverse_shape"])
def test_parametrize_errors_like_torch(fn):
    check_same_error(fn)


# ---- the older hooks: nn.utils.weight_norm / spectral_norm ---------------------------------------------
def _old_weight_norm(lib, module, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return lib.nn.utils.weight_norm(module, **kw)


@pytest.mark.parametrize("dim", [0, 1, None])
@pytest.mark.parametrize("kind", ["linear", "conv2d"])
def test_old_weight_norm_matches_torch(kind, dim, device):
    tmod, mod, tx, x = _pair(kind, _old_weight_norm, device, dim=dim)
    assert list(mod.state_dict()) == list(tmod.state_dict())
    assert "weight_g" in mod.state_dict() and "weight" not in dict(mod.named_parameters())
    for _ in range(2):
        _forward_backward_match(tmod, mod, tx, x)
    wt.nn.utils.remove_weight_norm(mod)
    torch.nn.utils.remove_weight_norm(tmod)
    assert list(mod.state_dict()) == list(tmod.state_dict())
    assert isinstance(mod.weight, wt.nn.Parameter)
    _forward_backward_match(tmod, mod, tx, x)


def test_old_weight_norm_warns_and_refuses_twice():
    mod = wt.nn.Linear(2, 2)
    with pytest.warns(FutureWarning, match="parametrizations.weight_norm"):
        wt.nn.utils.weight_norm(mod)
    check_same_error(lambda m: _old_weight_norm(m, _old_weight_norm(m, m.nn.Linear(2, 2))))
    check_same_error(lambda m: m.nn.utils.remove_weight_norm(m.nn.Linear(2, 2)))


def _old_spectral_norm(lib, module, **kw):
    return lib.nn.utils.spectral_norm(module, **kw)


@pytest.mark.parametrize("kw", [dict(), dict(n_power_iterations=2, eps=1e-4)])
@pytest.mark.parametrize("kind", ["linear", "conv2d", "conv_transpose2d"])
def test_old_spectral_norm_matches_torch(kind, kw, device):
    tmod, mod, tx, x = _pair(kind, _old_spectral_norm, device, **kw)
    assert list(mod.state_dict()) == list(tmod.state_dict())
    assert [k for k in mod.state_dict() if "weight" in k] == ["weight_orig", "weight_u", "weight_v"]
    for step in range(3):
        _forward_backward_match(tmod, mod, tx, x)
        _close(mod.weight_u, tmod.weight_u, f"u {step}")
        _close(mod.weight_v, tmod.weight_v, f"v {step}")
    mod.eval()
    tmod.eval()
    _forward_backward_match(tmod, mod, tx, x)
    assert mod.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    wt.nn.utils.remove_spectral_norm(mod)
    torch.nn.utils.remove_spectral_norm(tmod)
    assert list(mod.state_dict()) == list(tmod.state_dict())
    assert not mod._state_dict_hooks and not mod._load_state_dict_pre_hooks
    _forward_backward_match(tmod, mod, tx, x)


def test_old_spectral_norm_state_dict_round_trip_with_metadata():
    a = wt.nn.utils.spectral_norm(wt.nn.Linear(3, 4))
    b = wt.nn.utils.spectral_norm(wt.nn.Linear(3, 4))
    a(wt.ones(1, 3))
    b.load_state_dict(a.state_dict())
    a.eval()
    b.eval()
    x = wt.ones(2, 3)
    np.testing.assert_array_equal(_np(a(x)), _np(b(x)))


def test_old_spectral_norm_errors_like_torch():
    check_same_error(lambda m: m.nn.utils.spectral_norm(m.nn.Linear(2, 2), n_power_iterations=0))
    check_same_error(lambda m: m.nn.utils.spectral_norm(m.nn.utils.spectral_norm(m.nn.Linear(2, 2))))
    check_same_error(lambda m: m.nn.utils.spectral_norm(m.nn.Linear(2, 2, bias=False), name="bias"))
    check_same_error(lambda m: m.nn.utils.remove_spectral_norm(m.nn.Linear(2, 2)))
