"""R torch style modules (nn.module factory): R's my_linear example, inheritance and super, private and
active members, clone(deep=...) with finalize_deep_clone, and nn.summary's R-style print."""
import io

import numpy as np
import pytest

import webtorch as torch
from webtorch import nn


def _init_linear(self, in_features, out_features):
    self.w = nn.Parameter(torch.randn(in_features, out_features))
    self.b = nn.Parameter(torch.zeros(out_features))


my_linear = nn.module(
    "my_linear",
    initialize=_init_linear,
    forward=lambda self, input: torch.mm(input, self.w) + self.b,
)


def _summary(m):
    buf = io.StringIO()
    nn.summary(m, file=buf)
    return buf.getvalue()


def test_my_linear_r_example():
    lin = my_linear(3, 1)
    assert isinstance(lin, nn.Module) and type(lin).__name__ == "my_linear"
    assert [n for n, _ in lin.named_parameters()] == ["w", "b"]
    x = torch.randn(2, 3)
    y = lin(x)
    assert tuple(y.shape) == (2, 1)
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ lin.w.detach().numpy() + lin.b.detach().numpy(),
                               rtol=1e-6)
    y.sum().backward()
    assert tuple(lin.w.grad.shape) == (3, 1)
    assert _summary(lin) == (
        "An `nn_module` containing 4 parameters.\n"
        "\n"
        "── Parameters ──────────────────────────────────────────────────────────────────\n"
        "• w: Float [1:3, 1:1]\n"
        "• b: Float [1:1]\n")


def test_summary_of_a_model():
    net = nn.module(
        "net",
        initialize=lambda self: (setattr(self, "fc1", nn.Linear(784, 256)),
                                 setattr(self, "bn", nn.BatchNorm1d(256)),
                                 setattr(self, "act", nn.ReLU()),
                                 setattr(self, "out", my_linear(256, 10)),
                                 self.register_buffer("scale", torch.ones(2, 3))),
        forward=lambda self, x: self.out(self.act(self.bn(self.fc1(x)))),
    )()
    text = _summary(net)
    n = 784 * 256 + 256 + 2 * 256 + 256 * 10 + 10
    assert sum(p.numel() for p in net.parameters()) == n
    assert text == (
        f"An `nn_module` containing {n:,} parameters.\n"
        "\n"
        "── Modules ─────────────────────────────────────────────────────────────────────\n"
        "• fc1: <nn_linear> #200,960 parameters\n"
        "• bn: <nn_batch_norm1d> #512 parameters\n"
        "• act: <nn_relu> #0 parameters\n"
        "• out: <my_linear> #2,570 parameters\n"
        "\n"
        "── Buffers ─────────────────────────────────────────────────────────────────────\n"
        "• scale: Float [1:2, 1:3]\n")
    assert all(len(line) == 80 for line in text.splitlines() if line.startswith("──"))
    bn_text = _summary(nn.BatchNorm1d(4))
    assert "• num_batches_tracked: Long []" in bn_text and "• running_mean: Float [1:4]" in bn_text
    assert _summary(nn.Sequential(nn.Conv2d(1, 2, 3), nn.CrossEntropyLoss())).splitlines()[3:] == [
        "• 0: <nn_conv2d> #20 parameters", "• 1: <nn_cross_entropy_loss> #0 parameters"]
    anon = nn.module(forward=lambda self, x: x)()
    assert "<nn_module>" in _summary(nn.Sequential(anon))


def test_methods_and_no_initialize():
    counter = nn.module(
        "counter",
        forward=lambda self, x: x * 2,
        double_it=lambda self, x: self(x) * 2,
    )
    c = counter()
    assert c.double_it(torch.tensor(3.0)).item() == 12.0
    with pytest.raises(TypeError, match="takes no arguments"):
        counter(3)
    with pytest.raises(TypeError, match="must be a function"):
        nn.module(helper=3)
    with pytest.raises(TypeError, match="inherit must be an nn.Module class"):
        nn.module(inherit=int)


def test_inherit_factory_class_with_super():
    def init_scaled(self, in_features, out_features, scale):
        self.super.initialize(in_features, out_features)
        self.scale = scale

    scaled = nn.module(
        "scaled_linear",
        inherit=my_linear,
        initialize=init_scaled,
        forward=lambda self, x: self.super.forward(x) * self.scale,
    )
    s = scaled(3, 2, 10.0)
    assert isinstance(s, my_linear) and [n for n, _ in s.named_parameters()] == ["w", "b"]
    x = torch.randn(4, 3)
    np.testing.assert_allclose(s(x).detach().numpy(),
                               10 * (x.numpy() @ s.w.detach().numpy() + s.b.detach().numpy()), rtol=1e-5)
    with pytest.raises(RuntimeError, match="only inside the module's methods"):
        s.super


def test_inherit_plain_module_class():
    # R: nn_module(inherit = nn_linear, ...): the parent's initialize is its __init__
    noisy = nn.module("noisy_linear", inherit=nn.Linear,
                      forward=lambda self, x: self.super.forward(x) + 1.0)
    n = noisy(3, 2)
    assert isinstance(n, nn.Linear) and list(n.state_dict()) == ["weight", "bias"]
    x = torch.randn(2, 3)
    np.testing.assert_allclose(n(x).detach().numpy(), nn.functional.linear(x, n.weight, n.bias).detach().numpy()
                               + 1.0, rtol=1e-6)

    def init_wide(self, n):
        self.super.initialize(n, 2 * n, bias=False)
        self.n = n
    wide = nn.module("wide", inherit=nn.Linear, initialize=init_wide)
    w = wide(3)
    assert tuple(w.weight.shape) == (6, 3) and w.bias is None and w.n == 3


def test_private_members():
    def init_acc(self, start):
        self.total = start
        self.history = []

    def add(self, x):
        self.total = self.total + x
        self.history.append(x)
        return self._clip()

    acc = nn.module(
        "accumulator",
        initialize=init_acc,
        forward=lambda self, x: x,
        add=add,
        private={"total": 0, "history": None, "_clip": lambda self: min(self.total, 100)},
        active={"total_twice": lambda self: 2 * self.total},
    )
    a = acc(5)
    assert a.add(10) == 15 and a.add(200) == 100
    assert a.total_twice == 430
    for name in ("total", "history", "_clip"):
        with pytest.raises(AttributeError, match="private member"):
            getattr(a, name)
        assert name not in dir(a)
    with pytest.raises(AttributeError, match="cannot assign private member"):
        a.total = 3
    b = acc(1)
    b.add(1)
    assert b.total_twice == 4 and a.total_twice == 430  # each instance has its own private fields


def test_active_with_setter_and_property():
    def scale(self, value=None):
        if value is None:
            return self.s
        self.s = value

    box = nn.module(
        "box",
        initialize=lambda self: setattr(self, "s", 1.0),
        forward=lambda self, x: x * self.s,
        private={"s": None},
        active={"scale": scale, "doubled": property(lambda self: 2)},
    )
    b = box()
    assert b.scale == 1.0
    b.scale = 3.0
    assert b.scale == 3.0 and b(torch.tensor(2.0)).item() == 6.0
    assert b.doubled == 2
    ro = nn.module(active={"x": lambda self: 1})()
    with pytest.raises(AttributeError, match="read-only"):
        ro.x = 2


def test_clone_deep_and_shallow():
    finalized = []

    def finalize(self):
        finalized.append(self)
        self.tag = "clone"

    cls = nn.module(
        "with_clone",
        initialize=lambda self: (setattr(self, "lin", nn.Linear(2, 2)), setattr(self, "shared", self.lin),
                                 setattr(self, "tag", "orig")),
        forward=lambda self, x: self.lin(x),
        private={"finalize_deep_clone": finalize},
    )
    m = cls()
    deep = m.clone(deep=True)
    assert finalized == [deep] and deep.tag == "clone" and m.tag == "orig"
    assert deep.lin is not m.lin and deep.shared is deep.lin  # sharing inside the copy is kept
    assert deep.lin.weight.data_ptr() != m.lin.weight.data_ptr()
    np.testing.assert_array_equal(deep.lin.weight.detach().numpy(), m.lin.weight.detach().numpy())
    assert isinstance(deep.lin.weight, nn.Parameter) and deep.lin.weight.requires_grad
    with torch.no_grad():
        deep.lin.weight.fill_(0.0)
    assert np.any(m.lin.weight.detach().numpy())
    shallow = m.clone()
    assert shallow is not m and shallow.lin is m.lin and finalized == [deep]
    shallow.extra = nn.ReLU()
    assert "extra" not in m._modules
    with pytest.raises(AttributeError):
        m.finalize_deep_clone


def test_factory_module_state_dict_interop():
    lin = my_linear(3, 2)
    other = my_linear(3, 2)
    other.load_state_dict(lin.state_dict())
    np.testing.assert_array_equal(other.w.detach().numpy(), lin.w.detach().numpy())
    assert "w" in dir(lin) and "forward" in dir(lin)
    assert repr(lin) == "my_linear()"
