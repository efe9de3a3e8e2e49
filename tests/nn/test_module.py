"""nn.Module against PyTorch: attribute routing, traversal, state_dict, hooks, moves, modes, printing;
containers; the seed-document examples (apply init, get_submodule, Sequential de-duplication, LeNet)."""
import copy
from collections import OrderedDict

import numpy as np
import pytest
import torch

import webtorch
from bench_models import LeNet
from layercheck import load_torch_state, assert_same_layout
from optest import rand

LIBS = [torch, webtorch]


def _both(fn):
    """fn(m) for each library; returns (torch result, webtorch result)."""
    return fn(torch), fn(webtorch)


def _same_error(fn):
    """fn(m) raises the same exception type and message in both libraries."""
    excs = []
    for m in LIBS:
        try:
            fn(m)
        except Exception as e:  # noqa: BLE001
            excs.append(e)
        else:
            excs.append(None)
    t_exc, w_exc = excs
    assert t_exc is not None, "torch did not raise"
    assert w_exc is not None, f"webtorch did not raise; torch raised {type(t_exc).__name__}: {t_exc}"
    assert type(w_exc).__name__ == type(t_exc).__name__, f"{type(w_exc).__name__}: {w_exc} vs {t_exc!r}"
    assert str(w_exc) == str(t_exc)
    return w_exc


# ---------------------------------------------------------------------------------------------------
# Parameter and attribute routing
# ---------------------------------------------------------------------------------------------------

def test_parameter_repr_and_type():
    p = webtorch.nn.Parameter(webtorch.tensor([1.0, 2.0]))
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert isinstance(p, webtorch.Tensor) and p.requires_grad and p.is_leaf
    frozen = webtorch.nn.Parameter(webtorch.zeros(2), requires_grad=False)
    assert not frozen.requires_grad
    assert type(p * 2) is webtorch.Tensor
    d = copy.deepcopy(p)
    assert type(d) is webtorch.nn.Parameter and d.requires_grad and d.data_ptr() != p.data_ptr()


def test_parameter_before_init():
    def make(m):
        class M(m.nn.Module):
            def __init__(self):
                self.w = m.nn.Parameter(m.zeros(1))
                super().__init__()
        return M()
    _same_error(make)

    def make_module(m):
        class M(m.nn.Module):
            def __init__(self):
                self.l = m.nn.Linear(1, 1)
        return M()
    _same_error(make_module)


def test_setattr_routing():
    nn = webtorch.nn
    m = nn.Module()
    m.w = nn.Parameter(webtorch.zeros(2))
    m.sub = nn.Linear(2, 2)
    m.register_buffer("buf", webtorch.ones(3))
    m.register_buffer("tmp", webtorch.ones(1), persistent=False)
    m.nb = nn.Buffer(webtorch.zeros(2), persistent=False)
    m.plain = 5
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"]
    assert list(m._buffers) == ["buf", "tmp", "nb"]
    assert list(m.state_dict()) == ["w", "buf", "sub.weight", "sub.bias"]
    m.buf = webtorch.zeros(3)  # a known buffer name stays a buffer
    assert "buf" in m._buffers and "buf" not in m.__dict__
    m.w = None
    assert m._parameters["w"] is None and m.w is None
    m.sub = None
    assert m._modules["sub"] is None
    del m.buf
    del m.sub
    del m.plain
    assert "buf" not in m._buffers and "sub" not in m._modules and not hasattr(m, "plain")


@pytest.mark.parametrize("case", range(8))
def test_setattr_errors(case):
    def fn(m):
        mod = m.nn.Linear(2, 3)
        if case == 0:
            mod.weight = m.zeros(3, 2)
        elif case == 1:
            mod.register_parameter("a.b", None)
        elif case == 2:
            mod.register_buffer("", m.zeros(1))
        elif case == 3:
            mod.register_buffer("x", 5)
        elif case == 4:
            mod.add_module("weight", m.nn.Linear(1, 1))
        elif case == 5:
            mod.register_parameter("p", m.zeros(2))
        elif case == 6:
            mod.register_parameter("p", m.nn.Parameter(m.zeros(2)) * 2)
        elif case == 7:
            mod.add_module("x", 3)
    _same_error(fn)


def test_getattr_missing():
    _same_error(lambda m: m.nn.Linear(2, 3).nonexistent)


def test_dir_lists_members():
    d = dir(webtorch.nn.Linear(2, 3))
    assert "weight" in d and "bias" in d and "forward" in d and "in_features" in d
    s = webtorch.nn.Sequential(webtorch.nn.ReLU())
    assert "0" not in dir(s)


# ---------------------------------------------------------------------------------------------------
# traversal
# ---------------------------------------------------------------------------------------------------

def test_sequential_dedup_seed_example():
    for m in LIBS:
        lin = m.nn.Linear(2, 2)
        net = m.nn.Sequential(lin, lin)
        mods = list(net.named_modules())
        assert [n for n, _ in mods] == ["", "0"]
        assert len(list(net.modules())) == 2
        assert [n for n, _ in net.named_modules(remove_duplicate=False)] == ["", "0", "1"]
        assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias"]
        assert [n for n, _ in net.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "1.weight",
                                                                               "1.bias"]
        assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
        assert len(list(net.children())) == 1


def test_named_modules_prefix_and_memo():
    t, w = _both(lambda m: [n for n, _ in LeNet(m).named_modules(prefix="model")])
    assert t == w
    t, w = _both(lambda m: [n for n, _ in LeNet(m).named_parameters(prefix="p", recurse=True)])
    assert t == w
    t, w = _both(lambda m: [n for n, _ in LeNet(m).named_parameters(recurse=False)])
    assert t == w == []
    memo = set()
    net = LeNet(webtorch)
    memo.add(net.conv1)
    assert [n for n, _ in net.named_modules(memo=memo)] == ["", "conv2", "fc1", "fc2", "fc3"]


def _nested(m):
    class NetC(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = m.nn.Conv2d(16, 33, 3, 2)
            self.register_buffer("stat", m.zeros(2))

    class NetB(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.net_c = NetC()
            self.linear = m.nn.Linear(100, 200)

    class A(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.net_b = NetB()
    return A()


def test_get_submodule_seed_example():
    a = _nested(webtorch)
    assert isinstance(a.get_submodule("net_b.net_c.conv"), webtorch.nn.Conv2d)
    assert a.get_submodule("") is a
    assert a.get_parameter("net_b.net_c.conv.weight") is a.net_b.net_c.conv.weight
    assert a.get_buffer("net_b.net_c.stat") is a.net_b.net_c.stat
    for target in ("net_b.net_x.conv", "net_b.linear.weight", "net_b.net_c.conv.missing"):
        _same_error(lambda m: _nested(m).get_submodule(target))
    _same_error(lambda m: _nested(m).get_parameter("net_b.net_c.stat"))
    _same_error(lambda m: _nested(m).get_parameter("net_b.net_c.nothing"))
    _same_error(lambda m: _nested(m).get_buffer("net_b.linear.weight"))
    _same_error(lambda m: _nested(m).get_buffer("net_b.nothing.x"))


def test_set_submodule():
    a = _nested(webtorch)
    new = webtorch.nn.Identity()
    a.set_submodule("net_b.net_c.conv", new)
    assert a.net_b.net_c.conv is new
    _same_error(lambda m: _nested(m).set_submodule("net_b.linear.weight", m.nn.ReLU()))


def test_apply_init_seed_example():
    nn = webtorch.nn

    @webtorch.no_grad()
    def init_weights(m):
        if type(m) is nn.Linear:
            m.weight.fill_(1.0)
    net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    assert net.apply(init_weights) is net
    for layer in net:
        np.testing.assert_array_equal(layer.weight.detach().numpy(), np.ones((2, 2), np.float32))


# ---------------------------------------------------------------------------------------------------
# state_dict
# ---------------------------------------------------------------------------------------------------

def test_state_dict_layout_and_roundtrip():
    t, w = LeNet(torch), LeNet(webtorch)
    assert_same_layout(w, t)
    load_torch_state(w, t)
    x = rand(1, 1, 32, 32)
    out = w(webtorch.tensor(x))
    assert tuple(out.shape) == (1, 10)
    np.testing.assert_allclose(out.detach().numpy(), t(torch.tensor(x)).detach().numpy(), atol=1e-5, rtol=1e-4)
    sd = w.state_dict()
    assert all(not v.requires_grad for v in sd.values())
    assert all(v.requires_grad for v in w.state_dict(keep_vars=True).values())
    assert w.state_dict(prefix="net.").keys() == t.state_dict(prefix="net.").keys()
    assert sd._metadata[""]["version"] == 1 and "conv1" in sd._metadata


def _linear_state(m, case):
    lin = m.nn.Linear(2, 3)
    sd = {k: v.clone() for k, v in lin.state_dict().items()}
    if case == "missing+unexpected":
        sd.pop("bias")
        sd["extra"] = m.zeros(1)
        sd["sub.x"] = m.zeros(1)
    elif case == "size":
        sd["weight"] = m.zeros(3, 3)
    elif case == "not-tensor":
        sd["bias"] = [1, 2, 3]
    return lin, sd


@pytest.mark.parametrize("case", ["missing+unexpected", "size", "not-tensor"])
def test_load_state_dict_errors_exact(case):
    exc = _same_error(lambda m: (lambda lin, sd: lin.load_state_dict(sd))(*_linear_state(m, case)))
    assert str(exc).startswith("Error(s) in loading state_dict for Linear:\n\t")


def test_load_state_dict_nonstrict_and_assign():
    lin = webtorch.nn.Linear(2, 3)
    res = lin.load_state_dict({"weight": webtorch.ones(3, 2), "junk": webtorch.zeros(1)}, strict=False)
    assert res.missing_keys == ["bias"] and res.unexpected_keys == ["junk"]
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"
    np.testing.assert_array_equal(lin.weight.detach().numpy(), np.ones((3, 2), np.float32))
    w = webtorch.full((3, 2), 2.0)
    old = lin.weight
    lin.load_state_dict({"weight": w, "bias": webtorch.zeros(3)}, assign=True)
    assert lin.weight is not old and isinstance(lin.weight, webtorch.nn.Parameter) and lin.weight.requires_grad
    assert lin.weight.data_ptr() == w.data_ptr()
    lin.load_state_dict({"weight": webtorch.ones(3, 2), "bias": webtorch.ones(3)})
    assert lin.weight.data_ptr() == w.data_ptr()  # copy keeps the storage


def test_load_state_dict_type_error():
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        webtorch.nn.Linear(1, 1).load_state_dict([1, 2])


def _extra_state_module(m):
    class WithExtra(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = m.nn.Linear(1, 1)
            self.value = 3

        def get_extra_state(self):
            return {"value": self.value}

        def set_extra_state(self, state):
            self.value = state["value"]
    return WithExtra()


def test_extra_state():
    t, w = _both(lambda m: list(_extra_state_module(m).state_dict()))
    assert t == w == ["_extra_state", "lin.weight", "lin.bias"]
    src = _extra_state_module(webtorch)
    src.value = 9
    dst = _extra_state_module(webtorch)
    dst.load_state_dict(src.state_dict())
    assert dst.value == 9
    sd = src.state_dict()
    del sd["_extra_state"]
    _same_error(lambda m: _extra_state_module(m).load_state_dict(
        {k: v for k, v in _extra_state_module(m).state_dict().items() if k != "_extra_state"}))
    _same_error(lambda m: m.nn.Linear(1, 1).load_state_dict(
        {**m.nn.Linear(1, 1).state_dict(), "_extra_state": 1}))


def test_overridable_save_load():
    log = []

    class Custom(webtorch.nn.Linear):
        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "scale"] = webtorch.tensor(2.0)

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            log.append(state_dict.pop(prefix + "scale").item())
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing, unexpected, errors)

    net = webtorch.nn.Sequential(Custom(2, 2))
    sd = net.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "0.scale"]
    net.load_state_dict(sd)
    assert log == [2.0]


def test_state_dict_hooks():
    lin = webtorch.nn.Linear(2, 2)
    calls = []
    h1 = lin.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: calls.append(("pre", prefix)))

    def post(mod, sd, prefix, meta):
        calls.append(("post", prefix))
        sd[prefix + "added"] = webtorch.zeros(1)
    h2 = lin.register_state_dict_post_hook(post)
    net = webtorch.nn.Sequential(lin)
    assert "0.added" in net.state_dict()
    assert calls == [("pre", "0."), ("post", "0.")]
    h1.remove()
    h2.remove()
    assert "0.added" not in net.state_dict()
    lin.register_state_dict_post_hook(lambda *a: {})
    with pytest.raises(RuntimeError, match="state_dict post-hook must return None"):
        lin.state_dict()


def test_load_state_dict_post_hook_can_clear_keys():
    lin = webtorch.nn.Linear(2, 2)
    seen = []

    def hook(module, keys):
        seen.append((module, list(keys.missing_keys)))
        keys.missing_keys.clear()
    lin.register_load_state_dict_post_hook(hook)
    assert repr(lin.load_state_dict({"weight": webtorch.zeros(2, 2)})) == "<All keys matched successfully>"
    assert seen == [(lin, ["bias"])]
    lin.register_load_state_dict_post_hook(lambda m, k: 1)
    with pytest.raises(AssertionError):
        lin.load_state_dict(lin.state_dict())


def test_load_state_dict_pre_hook():
    lin = webtorch.nn.Linear(2, 2)

    def rename(module, state_dict, prefix, *rest):
        if prefix + "w" in state_dict:
            state_dict[prefix + "weight"] = state_dict.pop(prefix + "w")
    lin.register_load_state_dict_pre_hook(rename)
    lin.load_state_dict({"w": webtorch.ones(2, 2), "bias": webtorch.ones(2)})
    np.testing.assert_array_equal(lin.weight.detach().numpy(), np.ones((2, 2), np.float32))


def test_batchnorm_old_checkpoint_without_num_batches_tracked():
    bn = webtorch.nn.BatchNorm1d(3)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    bn.load_state_dict(sd)
    sd2 = bn.state_dict()
    del sd2["num_batches_tracked"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        webtorch.nn.BatchNorm1d(3).load_state_dict(sd2)


# ---------------------------------------------------------------------------------------------------
# hooks
# ---------------------------------------------------------------------------------------------------

def test_forward_hooks_order_kwargs_prepend_and_removal():
    lin = webtorch.nn.Linear(2, 2)
    log = []
    h1 = lin.register_forward_pre_hook(lambda m, args: log.append("pre1"))
    h2 = lin.register_forward_pre_hook(lambda m, args: log.append("pre0"), prepend=True)
    h3 = lin.register_forward_pre_hook(lambda m, args, kwargs: (args, kwargs), with_kwargs=True)
    h4 = lin.register_forward_hook(lambda m, args, out: log.append(("post", tuple(out.shape))))
    h5 = lin.register_forward_hook(lambda m, args, kwargs, out: out * 0, with_kwargs=True)
    out = lin(webtorch.ones(1, 2))
    assert log == ["pre0", "pre1", ("post", (1, 2))]
    assert not np.any(out.detach().numpy())
    for h in (h1, h2, h3, h4, h5):
        h.remove()
    log.clear()
    assert np.any(lin(webtorch.ones(1, 2)).detach().numpy()) and log == []
    with lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,)):
        assert not np.any(lin(webtorch.ones(1, 2)).detach().numpy() - lin.bias.detach().numpy())
    assert np.any(lin(webtorch.ones(1, 2)).detach().numpy() - lin.bias.detach().numpy())


def test_forward_pre_hook_with_kwargs_bad_return():
    lin = webtorch.nn.Linear(2, 2)
    lin.register_forward_pre_hook(lambda m, a, k: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        lin(webtorch.ones(1, 2))


def test_always_call_hook_runs_on_error():
    lin = webtorch.nn.Linear(2, 2)
    seen = []
    lin.register_forward_hook(lambda m, args, out: seen.append(out), always_call=True)
    with pytest.raises(RuntimeError):
        lin(webtorch.ones(1, 3))
    assert seen == [None]


def _hooked(m, grads_log, modify=False, pre=False):
    lin = m.nn.Linear(3, 2)
    if pre:
        lin.register_full_backward_pre_hook(lambda mod, gout: (gout[0] * 2,))
    def hook(mod, gin, gout):
        grads_log.append(([None if g is None else g.detach().numpy().copy() for g in gin],
                          [g.detach().numpy().copy() for g in gout]))
        if modify:
            return (gin[0] * 3,)
    lin.register_full_backward_hook(hook)
    return lin


@pytest.mark.parametrize("modify,pre", [(False, False), (True, False), (False, True)])
def test_full_backward_hook_matches_torch(modify, pre):
    x = rand(4, 3)
    results = {}
    for m in LIBS:
        log = []
        torch.manual_seed(0)
        lin = _hooked(m, log, modify, pre)
        if m is webtorch:
            load_torch_state(lin, results[torch][2])
        xt = m.tensor(x, requires_grad=True)
        out = lin(xt)
        assert out.grad_fn.name() == "BackwardHookFunctionBackward"
        (out * m.tensor(np.arange(8, dtype=np.float32).reshape(4, 2))).sum().backward()
        results[m] = (log, xt.grad.numpy().copy(), lin, lin.weight.grad.numpy().copy())
    (tl, tg, _, tw), (wl, wg, _, ww) = results[torch], results[webtorch]
    assert len(tl) == len(wl) == 1
    for a, b in zip(wl[0][0] + wl[0][1], tl[0][0] + tl[0][1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(wg, tg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ww, tw, rtol=1e-5, atol=1e-6)


def test_full_backward_hook_input_without_grad():
    for m in LIBS:
        log = []
        lin = _hooked(m, log)
        lin(m.ones(2, 3)).sum().backward()
        assert len(log) == 1 and log[0][0] == [None]


def test_old_backward_hook_and_mixing_error():
    lin = webtorch.nn.Linear(3, 2)
    seen = []
    lin.register_backward_hook(lambda mod, gin, gout: seen.append(len(gout)))
    lin(webtorch.ones(2, 3, requires_grad=True)).sum().backward()
    assert seen == [1]
    _same_error(lambda m: (lambda l: (l.register_backward_hook(lambda *a: None),
                                      l.register_full_backward_hook(lambda *a: None)))(m.nn.Linear(1, 1)))


# ---------------------------------------------------------------------------------------------------
# moves, dtypes, modes, gradients
# ---------------------------------------------------------------------------------------------------

def test_to_dtype_keeps_parameter_objects():
    bn = webtorch.nn.BatchNorm1d(3)
    w = bn.weight
    bn.weight.grad = webtorch.ones(3)
    assert bn.double() is bn
    assert bn.weight is w and w.dtype == webtorch.float64 and w.grad.dtype == webtorch.float64
    assert bn.running_mean.dtype == webtorch.float64 and bn.num_batches_tracked.dtype == webtorch.int64
    bn.to(webtorch.float32)
    assert w.dtype == webtorch.float32
    bn.to("cpu", webtorch.float64)
    assert w.dtype == webtorch.float64
    bn.to(webtorch.zeros(1))
    assert w.dtype == webtorch.float32 and isinstance(bn.weight, webtorch.nn.Parameter)
    bn.to(dtype=webtorch.float16)
    assert w.dtype == webtorch.float16
    bn.float()
    assert w.dtype == webtorch.float32
    _same_error(lambda m: m.nn.Linear(1, 1).to(m.int64))


def test_bfloat16_and_cuda_errors_are_clear():
    with pytest.raises((TypeError, RuntimeError), match="bfloat16"):
        webtorch.nn.Linear(2, 2).bfloat16()
    for method in ("cuda", "xpu", "ipu"):
        with pytest.raises(RuntimeError, match=r'\.to\("webgpu"\)'):
            getattr(webtorch.nn.Linear(2, 2), method)()


def test_to_empty_and_type():
    lin = webtorch.nn.Linear(2, 3)
    lin.to_empty(device="cpu")
    assert tuple(lin.weight.shape) == (3, 2) and isinstance(lin.weight, webtorch.nn.Parameter)
    lin.type(webtorch.float64)
    assert lin.weight.dtype == webtorch.float64


def test_train_eval_requires_grad_zero_grad():
    net = LeNet(webtorch)
    assert net.training and all(mod.training for mod in net.modules())
    assert net.eval() is net and not any(mod.training for mod in net.modules())
    net.train()
    assert all(mod.training for mod in net.modules())
    _same_error(lambda m: m.nn.Linear(1, 1).train("yes"))
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    net(webtorch.randn(1, 1, 32, 32)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not np.any(p.grad.numpy()) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_forward_not_implemented():
    _same_error(lambda m: m.nn.Module()(1))


def test_init_rejects_arguments():
    _same_error(lambda m: m.nn.Module(3))
    _same_error(lambda m: m.nn.Module(x=3))


# ---------------------------------------------------------------------------------------------------
# printing and the LeNet tutorial
# ---------------------------------------------------------------------------------------------------

def test_lenet_tutorial():
    t, w = LeNet(torch), LeNet(webtorch)
    assert repr(w) == repr(t)
    params = list(w.parameters())
    assert len(params) == 10
    assert tuple(params[0].size()) == (6, 1, 5, 5)
    load_torch_state(w, t)
    x = rand(1, 1, 32, 32)
    out = w(webtorch.tensor(x))
    assert tuple(out.shape) == (1, 10)
    w.zero_grad()
    out.backward(webtorch.ones(1, 10))
    t_out = t(torch.tensor(x))
    t.zero_grad()
    t_out.backward(torch.ones(1, 10))
    for (k, pw), (_, pt) in zip(w.named_parameters(), t.named_parameters()):
        np.testing.assert_allclose(pw.grad.numpy(), pt.grad.numpy(), atol=1e-5, rtol=1e-4, err_msg=k)
    loss_w = webtorch.nn.MSELoss()(w(webtorch.tensor(x)), webtorch.arange(10.0).view(1, -1))
    loss_t = torch.nn.MSELoss()(t(torch.tensor(x)), torch.arange(10.0).view(1, -1))
    np.testing.assert_allclose(loss_w.item(), loss_t.item(), rtol=1e-5)


def test_nested_repr_matches_torch():
    def build(m):
        nn = m.nn
        return nn.Sequential(OrderedDict([
            ("features", nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True))),
            ("pool", nn.AdaptiveAvgPool2d(1)),
            ("blocks", nn.ModuleList([nn.Linear(8, 8) for _ in range(3)] + [nn.ReLU()])),
            ("heads", nn.ModuleDict({"a": nn.Linear(8, 2), "b": nn.Identity()})),
            ("params", nn.ParameterList([nn.Parameter(m.zeros(2, 3)), m.ones(4)])),
            ("pdict", nn.ParameterDict({"scale": nn.Parameter(m.ones(1))})),
        ]))
    t, w = _both(lambda m: repr(build(m)))
    assert w == t
    assert repr(webtorch.nn.ModuleList()) == "ModuleList()"


def test_extra_repr_multiline():
    class Custom(webtorch.nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"
    assert repr(Custom()) == "Custom(\n  a=1\n  b=2\n)"


# ---------------------------------------------------------------------------------------------------
# containers
# ---------------------------------------------------------------------------------------------------

def test_sequential_api():
    nn = webtorch.nn
    a, b, c, d = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Tanh()
    s = nn.Sequential(a, b, c)
    assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
    sl = s[1:]
    assert isinstance(sl, nn.Sequential) and list(sl) == [b, c] and list(sl._modules) == ["1", "2"]
    s.append(d)
    assert s[3] is d
    s.insert(0, nn.Identity())
    assert list(s._modules) == ["0", "1", "2", "3", "4"] and s[1] is a
    assert s.pop(0).__class__ is nn.Identity and s[0] is a and list(s._modules) == ["0", "1", "2", "3"]
    s.extend([nn.Sigmoid()])
    assert len(s) == 5
    del s[4]
    s2 = s + nn.Sequential(nn.ReLU())
    assert len(s2) == 5 and len(s) == 4
    s[1] = nn.GELU()
    assert isinstance(s[1], nn.GELU)
    assert len(s * 2) == 8
    with pytest.raises(IndexError, match="index 9 is out of range"):
        s[9]
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        s + [1]
    od = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert list(od.state_dict()) == ["fc.weight", "fc.bias"] and isinstance(od.act, nn.ReLU)
    x = webtorch.ones(4, 2)
    assert tuple(s(x).shape) == (4, 1)


def test_module_list_and_dict():
    nn = webtorch.nn
    ml = nn.ModuleList([nn.Linear(1, 1), nn.ReLU()])
    ml.append(nn.Tanh())
    ml.extend([nn.Sigmoid()])
    ml.insert(1, nn.Identity())
    assert [type(x).__name__ for x in ml] == ["Linear", "Identity", "ReLU", "Tanh", "Sigmoid"]
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2 and ml[-1].__class__ is nn.Sigmoid
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2", "3"]
    ml += [nn.ReLU()]
    assert len(ml) == 5 and len(ml + ml) == 10
    with pytest.raises(NotImplementedError):
        ml(1)
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(2, 2)})
    assert list(md.keys()) == ["b", "a"] and "a" in md and len(md) == 2
    md["c"] = nn.Tanh()
    md.update([("d", nn.Sigmoid())])
    assert list(md) == ["b", "a", "c", "d"]
    assert isinstance(md.pop("b"), nn.ReLU) and list(md.state_dict()) == ["a.weight", "a.bias"]
    md.clear()
    assert len(md) == 0


def test_parameter_list_and_dict():
    nn = webtorch.nn
    pl = nn.ParameterList([webtorch.zeros(2), nn.Parameter(webtorch.ones(3))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(pl) == 2
    pl.append(webtorch.ones(1))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert len(pl[1:]) == 2
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()
    pd = nn.ParameterDict({"b": webtorch.zeros(1), "a": nn.Parameter(webtorch.ones(2))})
    assert list(pd.keys()) == ["a", "b"]  # a plain dict is sorted, as in PyTorch
    pd["c"] = webtorch.ones(3)
    assert isinstance(pd["c"], nn.Parameter) and "c" in pd and pd.get("zz") is None
    assert [n for n, _ in pd.named_parameters()] == ["a", "b", "c"]
    k, v = pd.popitem()
    assert k == "c" and len(pd) == 2
    assert list(pd.copy().keys()) == ["a", "b"]
    pd.clear()
    assert len(pd) == 0
    _same_error(lambda m: m.nn.ParameterDict()[1])
