"""Every public class and function of torch.nn, torch.nn.functional, torch.nn.init, torch.nn.utils, torch.optim and
torch.utils.data is importable from the module where PyTorch 2.13 defines it (real programs import e.g.
``torch.nn.modules.activation.MultiheadAttention``); the list comes from torch's own ``__module__`` attributes.
NOT_YET lists what webtorch still lacks, each with its reason; it must stay exact (a name that starts to exist
fails the test until it is struck from the list)."""
import importlib
import inspect
import warnings

import pytest
import torch

import webtorch

PUBLIC_MODULES = ["torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.utils.rnn",
                  "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations", "torch.optim",
                  "torch.optim.lr_scheduler", "torch.utils.data"]

NOT_YET = {}


def torch_definitions():
    """{"torch.<defining module>.<name>": public name} of every public class/function of PUBLIC_MODULES."""
    found = {}
    for public in PUBLIC_MODULES:
        mod = importlib.import_module(public)
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        for name in names:
            obj = getattr(mod, name, None)
            where = getattr(obj, "__module__", None) or ""
            if name.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)) \
                    or not where.startswith("torch."):
                continue
            found[f"{where}.{name}"] = name
    return found


def _importable(path):
    module, name = path.rsplit(".", 1)
    try:
        return hasattr(importlib.import_module("webtorch" + module[len("torch"):]), name)
    except ImportError:
        return False


def test_every_public_name_is_importable_where_pytorch_defines_it():
    defs = torch_definitions()
    assert len(defs) > 350 and "torch.nn.modules.activation.MultiheadAttention" in defs  # the list is real
    missing = sorted(p for p in defs if not _importable(p) and p not in NOT_YET)
    assert not missing, f"not importable from PyTorch's module path: {missing}"
    now_there = sorted(p for p in NOT_YET if p in defs and _importable(p))
    assert not now_there, f"strike these from NOT_YET, they exist now: {now_there}"
    gone = sorted(p for p in NOT_YET if p not in defs)
    assert not gone, f"NOT_YET names what PyTorch 2.13 does not define: {gone}"


def test_the_same_object_at_both_paths():
    from webtorch.nn.modules.activation import MultiheadAttention
    from webtorch.nn.parallel.data_parallel import DataParallel
    from webtorch.utils.data._utils.collate import default_collate
    assert (MultiheadAttention, DataParallel, default_collate) == (
        webtorch.nn.MultiheadAttention, webtorch.nn.DataParallel, webtorch.utils.data.default_collate)


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
                                  "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"])
def test_deprecated_init_names_warn_and_initialize(name):
    w = webtorch.zeros(4, 3)
    with pytest.warns(FutureWarning, match=f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`"):
        out = getattr(webtorch.nn.init, name)(w, *({"constant": [0.5], "sparse": [0.5]}.get(name, [])))
    assert out is w and bool((w != 0).any())


def test_pool_with_indices_match_torch():
    x = torch.randn(2, 3, 8, 8)
    w = webtorch.tensor(x.numpy())
    for name, args in [("max_pool2d_with_indices", (2,)), ("adaptive_max_pool2d_with_indices", ((3, 3),)),
                       ("max_pool1d_with_indices", (3,)), ("adaptive_max_pool1d_with_indices", (4,))]:
        xin, win = (x[:, :, 0], w[:, :, 0]) if "1d" in name else (x, w)
        tv, ti = getattr(torch.nn.functional, name)(xin, *args)
        fn = getattr(webtorch.nn.functional, name)
        wv, wi = fn(win, *args)
        assert fn.__name__ == name
        assert wv.tolist() == tv.tolist() and wi.tolist() == ti.tolist(), name


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval_matches_torch(transpose):
    torch.manual_seed(0)
    conv = (torch.nn.ConvTranspose2d(3, 4, 3) if transpose else torch.nn.Conv2d(3, 4, 3)).eval()
    bn = torch.nn.BatchNorm2d(4).eval()
    bn.running_mean.uniform_(-1, 1), bn.running_var.uniform_(0.5, 2), bn.weight.data.uniform_(0.5, 2)
    wconv = (webtorch.nn.ConvTranspose2d(3, 4, 3) if transpose else webtorch.nn.Conv2d(3, 4, 3)).eval()
    wbn = webtorch.nn.BatchNorm2d(4).eval()
    wconv.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in conv.state_dict().items()})
    wbn.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    fused = torch.nn.utils.fuse_conv_bn_eval(conv, bn, transpose)
    wfused = webtorch.nn.utils.fuse_conv_bn_eval(wconv, wbn, transpose)
    x = torch.randn(2, 3, 6, 6)
    assert wfused.weight.requires_grad and isinstance(wfused.weight, webtorch.nn.Parameter)
    assert torch.allclose(torch.tensor(wfused(webtorch.tensor(x.numpy())).tolist()), fused(x), atol=1e-5)
    assert torch.allclose(fused(x), bn(conv(x)), atol=1e-5)


def test_fuse_linear_bn_eval_matches_torch_and_checks_features():
    torch.manual_seed(1)
    lin, bn = torch.nn.Linear(5, 4).eval(), torch.nn.BatchNorm1d(4).eval()
    bn.running_mean.uniform_(-1, 1), bn.running_var.uniform_(0.5, 2)
    wlin, wbn = webtorch.nn.Linear(5, 4).eval(), webtorch.nn.BatchNorm1d(4).eval()
    wlin.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in lin.state_dict().items()})
    wbn.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in bn.state_dict().items()})
    x = torch.randn(3, 5)
    got = webtorch.nn.utils.fuse_linear_bn_eval(wlin, wbn)(webtorch.tensor(x.numpy()))
    assert torch.allclose(torch.tensor(got.tolist()), torch.nn.utils.fuse_linear_bn_eval(lin, bn)(x), atol=1e-5)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        webtorch.nn.utils.fuse_linear_bn_eval(wlin.train(), wbn)
    with pytest.raises(AssertionError, match="linear.out_features=4 and bn.num_features=3"):
        webtorch.nn.utils.fuse_linear_bn_eval(wlin.eval(), webtorch.nn.BatchNorm1d(3).eval())


def test_gumbel_softmax_samples_and_straight_through_gradient():
    webtorch.manual_seed(0)
    logits = webtorch.tensor([[0.0, 3.0, -1.0]] * 400, requires_grad=True)
    soft = webtorch.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert webtorch.allclose(soft.sum(-1), webtorch.ones(400))
    hard = webtorch.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    assert sorted(set(hard.flatten().tolist())) == [0.0, 1.0] and hard.sum().item() == 400
    counts = hard.sum(0).tolist()
    assert counts[1] > counts[0] > counts[2]  # the argmax of logits + Gumbel noise follows softmax(logits)
    (hard * webtorch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad is not None and logits.grad.abs().sum().item() > 0  # the soft sample's gradient


def test_deprecated_modules_and_sync_batch_norm_as_torch():
    torch.manual_seed(2)
    x = torch.randn(4, 3, 5)
    m, wm = torch.nn.SyncBatchNorm(3), webtorch.nn.SyncBatchNorm(3)
    assert torch.allclose(torch.tensor(wm(webtorch.tensor(x.numpy())).tolist()), m(x), atol=1e-5)
    assert torch.allclose(torch.tensor(wm.running_var.tolist()), m.running_var, atol=1e-6)
    with pytest.raises(ValueError, match="expected at least 2D input"):
        wm(webtorch.ones(3))
    net = webtorch.nn.Sequential(webtorch.nn.Conv2d(2, 3, 1), webtorch.nn.BatchNorm2d(3))
    conv = webtorch.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    assert type(conv[1]) is webtorch.nn.SyncBatchNorm and conv[1].weight is net[1].weight
    assert list(conv.state_dict()) == list(net.state_dict())
    with pytest.warns(FutureWarning, match="NLLLoss2d"):
        loss = webtorch.nn.NLLLoss2d()
    assert isinstance(loss, webtorch.nn.NLLLoss)
    with pytest.warns(FutureWarning, match="nn.Container"):
        c = webtorch.nn.Container(a=webtorch.nn.ReLU())
    assert list(dict(c.named_children())) == ["a"]
    for cls in (webtorch.nn.Dropout3d, webtorch.nn.FeatureAlphaDropout):
        y = webtorch.ones(2, 3, 2, 2, 2)
        assert cls(0.5).eval()(y).tolist() == y.tolist()
        assert repr(cls(0.2)) == repr(getattr(torch.nn, cls.__name__)(0.2))


def test_skip_init_builds_on_the_device_and_refuses_non_modules():
    m = webtorch.nn.utils.skip_init(webtorch.nn.Linear, 5, 1)
    assert tuple(m.weight.shape) == (1, 5)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        webtorch.nn.utils.skip_init(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        webtorch.nn.utils.skip_init(webtorch.nn.Linear, in_features=6, out_features=1)


def test_lazy_modules_infer_shapes_then_become_the_module():
    m = webtorch.nn.LazyLinear(3)
    assert repr(m.weight) == "<UninitializedParameter>" and webtorch.nn.parameter.is_lazy(m.weight)
    opt = webtorch.optim.SGD(m.parameters(), lr=0.1)  # holds the parameters before they have a shape
    y = m(webtorch.randn(2, 5))
    assert type(m) is webtorch.nn.Linear and type(m.weight) is webtorch.nn.Parameter
    assert tuple(m.weight.shape) == (3, 5) and m.in_features == 5 and tuple(y.shape) == (2, 3)
    y.sum().backward()
    opt.step()
    assert opt.param_groups[0]["params"][0] is m.weight
    for lazy, x, become, weight in [
            (webtorch.nn.LazyConv2d(4, 3, groups=2), webtorch.randn(1, 2, 5, 5), webtorch.nn.Conv2d, (4, 1, 3, 3)),
            (webtorch.nn.LazyConvTranspose1d(5, 2), webtorch.randn(3, 7), webtorch.nn.ConvTranspose1d, (3, 5, 2)),
            (webtorch.nn.LazyBatchNorm1d(), webtorch.randn(4, 3), webtorch.nn.BatchNorm1d, (3,)),
            (webtorch.nn.LazyInstanceNorm2d(), webtorch.randn(2, 3, 4, 4), webtorch.nn.InstanceNorm2d, (3,))]:
        want = repr(getattr(torch.nn, type(lazy).__name__)(*([4, 3] if "Conv2d" in type(lazy).__name__ else
                                                              [5, 2] if "Conv" in type(lazy).__name__ else [])))
        assert repr(lazy).split("(")[0] == want.split("(")[0]
        lazy(x)
        assert type(lazy) is become and tuple(lazy.weight.shape) == weight, type(lazy)


def test_lazy_module_state_dict_round_trip():
    m = webtorch.nn.LazyLinear(3)
    assert [(k, repr(v)) for k, v in m.state_dict().items()] == [("weight", "<UninitializedParameter>"),
                                                                 ("bias", "<UninitializedParameter>")]
    src = webtorch.nn.Linear(4, 3)
    m.load_state_dict(src.state_dict())  # materializes with the loaded shapes
    assert tuple(m.weight.shape) == (3, 4) and m.weight.tolist() == src.weight.tolist()
    m(webtorch.ones(1, 4))
    assert type(m) is webtorch.nn.Linear
    bn = webtorch.nn.LazyBatchNorm2d()
    assert type(bn.running_mean) is webtorch.nn.UninitializedBuffer
    bn(webtorch.randn(2, 5, 3, 3))
    assert tuple(bn.running_var.shape) == (5,) and int(bn.num_batches_tracked) == 1


def test_factory_kwargs_as_torch():
    kw = {"device": "cpu", "factory_kwargs": {"dtype": webtorch.float64}}
    assert webtorch.nn.factory_kwargs(kw) == {"dtype": webtorch.float64, "device": "cpu"}
    with pytest.raises(TypeError, match="specified twice"):
        webtorch.nn.factory_kwargs({"dtype": None, "factory_kwargs": {"dtype": None}})
    with pytest.raises(TypeError, match="unexpected kwargs"):
        webtorch.nn.factory_kwargs({"layout": None})


def test_boolean_dispatch_and_assert_int_or_pair_as_torch():
    from torch._jit_internal import boolean_dispatch as torch_dispatch
    from webtorch._jit_internal import boolean_dispatch, boolean_dispatched

    def with_idx(x, flag=False):
        """Doc of the pair."""
        return ("true", x)

    def without(x, flag=False):
        return ("false", x)

    for make in (torch_dispatch, boolean_dispatch):
        fn = make("flag", 1, False, with_idx, without, "mymod", "pick")
        assert (fn(1), fn(1, True), fn(1, flag=True), fn(1, flag=0)) == (
            ("false", 1), ("true", 1), ("true", 1), ("false", 1))
        assert (fn.__name__, fn.__module__, fn.__doc__, without.__doc__) == ("pick", "mymod", "Doc of the pair.",
                                                                             "Doc of the pair.")
        without.__doc__ = None
    assert boolean_dispatched[fn]["index"] == 1 and boolean_dispatched[fn]["if_true"] is with_idx

    def documented(x):
        """Another doc."""
    for make in (torch_dispatch, boolean_dispatch):
        with pytest.raises(RuntimeError, match="only one function can have a docstring"):
            make("f", 0, False, with_idx, documented, None, None)
    for lib in (torch, webtorch):
        lib.nn.functional.assert_int_or_pair(3, "kernel_size", "{} must be int or pair")
        lib.nn.functional.assert_int_or_pair((3, 2), "kernel_size", "{} must be int or pair")
        with pytest.raises(AssertionError, match="^kernel_size must be int or pair$"):
            lib.nn.functional.assert_int_or_pair((3, 2, 1), "kernel_size", "{} must be int or pair")
