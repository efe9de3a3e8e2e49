"""Activation functions against PyTorch: values, gradients, in-place forms, node names, errors."""
import numpy as np
import pytest

import webtorch
from optest import check, check_error, rand

F_CASES = [
    ("relu6", {}), ("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {}),
    ("elu", {"alpha": 0.5}), ("selu", {}), ("celu", {"alpha": 0.7}), ("gelu", {}),
    ("gelu", {"approximate": "tanh"}), ("silu", {}), ("mish", {}), ("hardtanh", {}),
    ("hardtanh", {"min_val": -0.5, "max_val": 2.0}), ("hardswish", {}), ("hardsigmoid", {}), ("softplus", {}),
    ("softplus", {"beta": 2.0, "threshold": 1.5}), ("softsign", {}), ("tanhshrink", {}), ("logsigmoid", {}),
    ("hardshrink", {}), ("hardshrink", {"lambd": 1.0}), ("softshrink", {}), ("softshrink", {"lambd": 0.9}),
    ("sigmoid", {}), ("tanh", {}), ("rrelu", {}),
]

NODE_NAMES = {"relu6": "HardtanhBackward0", "leaky_relu": "LeakyReluBackward0", "elu": "EluBackward0",
              "selu": "EluBackward0", "celu": "CeluBackward0", "gelu": "GeluBackward0", "silu": "SiluBackward0",
              "mish": "MishBackward0", "hardtanh": "HardtanhBackward0", "hardswish": "HardswishBackward0",
              "hardsigmoid": "HardsigmoidBackward0", "softplus": "SoftplusBackward0", "softsign": "DivBackward0",
              "tanhshrink": "SubBackward0", "logsigmoid": "LogSigmoidBackward0", "hardshrink": "HardshrinkBackward0",
              "softshrink": "SoftshrinkBackward0", "rrelu": "RreluWithNoiseBackward0"}


def _wide(*shape):
    """Values spanning every branch point of the activations (|x| up to 5, plus exact kinks)."""
    x = rand(*shape, low=-5.0, high=5.0)
    return x


@pytest.mark.parametrize("name,kw", F_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(F_CASES)])
def test_functional(name, kw, device):
    check(lambda m, x: getattr(m.nn.functional, name)(x, **kw), _wide(4, 7), device=device)


@pytest.mark.parametrize("name,kw", F_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(F_CASES)])
def test_float64_and_node_name(name, kw):
    # PyTorch rounds some constants to float32 even for double tensors: celu's 1/alpha in backward,
    # hardsigmoid's 1/6 in backward, rrelu's eval slope (lower + upper) / 2
    rtol = 1e-6 if name in ("celu", "hardsigmoid", "rrelu") else 1e-9
    out = check(lambda m, x: getattr(m.nn.functional, name)(x, **kw), _wide(3, 5).astype(np.float64),
                device="cpu", atol=1e-10, rtol=rtol)  # float64 is a cpu dtype
    if name in NODE_NAMES:
        assert out.grad_fn.name() == NODE_NAMES[name]


@pytest.mark.parametrize("name", ["relu6", "leaky_relu", "elu", "selu", "celu", "hardtanh", "silu", "mish",
                                  "hardswish", "hardsigmoid", "rrelu"])
def test_inplace(name, device):
    def fn(m, x):
        y = x * 1.5
        z = getattr(m.nn.functional, name)(y, inplace=True)
        assert z is y
        return y
    out = check(fn, _wide(3, 6), device=device)
    assert out.grad_fn.name() == NODE_NAMES[name]


def test_inplace_underscore_names(device):
    check(lambda m, x: (m.nn.functional.elu_(x * 1), m.selu_(x * 1), m.celu_(x * 1, 0.5),
                        m.threshold_(x * 1, 0.1, 2.0), m.nn.functional.leaky_relu_(x * 1, 0.3),
                        m.nn.functional.hardtanh_(x * 1)), _wide(2, 5), device=device)


def test_torch_and_tensor_forms(device):
    check(lambda m, x: (m.selu(x), m.celu(x), m.threshold(x, 0.5, -2.0), m.hardshrink(x, 0.3), x.hardshrink(),
                        m.rrelu(x)), _wide(3, 4), device=device)


def test_threshold(device):
    check(lambda m, x: m.nn.functional.threshold(x, 0.25, 7.0), _wide(5, 3), device=device)


def test_gelu_double_backward():
    def fn(m, x):
        y = m.nn.functional.gelu(x, approximate="tanh") * m.nn.functional.silu(x)
        (g,) = m.autograd.grad(y.sum(), x, create_graph=True)
        return g
    check(fn, rand(6).astype(np.float64), device="cpu", atol=1e-10, rtol=1e-9)


def test_softplus_large_input_is_stable(device):
    x = np.array([-200.0, -30.0, 0.0, 30.0, 200.0], dtype=np.float32)
    check(lambda m, x: (m.nn.functional.softplus(x), m.nn.functional.logsigmoid(x), m.nn.functional.mish(x)),
          x, device=device)


@pytest.mark.parametrize("shape,wshape", [((4, 3, 5), (3,)), ((4, 3), (1,)), ((2, 3, 2, 2), (3,)), ((5,), (1,)),
                                          ((), (1,))])
def test_prelu(shape, wshape, device):
    out = check(lambda m, x, w: m.nn.functional.prelu(x, w), _wide(*shape), rand(*wshape, low=0.0, high=0.5),
                device=device)
    assert out.grad_fn.name() == "PreluKernelBackward0"


def test_prelu_errors(device):
    check_error(lambda m, x, w: m.nn.functional.prelu(x, w), rand(2, 3), rand(2), device=device,
                match="Found parameter numbers = 2 and channel size = 3")
    check_error(lambda m, x, w: m.nn.functional.prelu(x, w), rand(2, 3), rand(3, 1), device=device,
                match="Expected `weight` to be a scalar or 1D tensor")


@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_glu(dim, device):
    out = check(lambda m, x: m.nn.functional.glu(x, dim), rand(4, 6, 2), device=device)
    assert out.grad_fn.name() == "GluBackward0"


def test_glu_double_backward():
    def fn(m, x):
        (g,) = m.autograd.grad((m.nn.functional.glu(x, 1) ** 2).sum(), x, create_graph=True)
        return g
    check(fn, rand(3, 4).astype(np.float64), device="cpu", atol=1e-10, rtol=1e-9)


def test_rrelu_training_is_random_and_bounded(device):
    webtorch.manual_seed(0)
    x = webtorch.tensor(-np.ones((200, 50), dtype=np.float32), device=device, requires_grad=True)
    y = webtorch.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().cpu().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 0.005 and slopes.std() > 0.04
    y.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), slopes, rtol=1e-6)
    pos = webtorch.nn.functional.rrelu(webtorch.ones(10, device=device), training=True)
    assert pos.cpu().numpy().tolist() == [1.0] * 10


def test_errors(device):
    check_error(lambda m, x: m.nn.functional.hardtanh(x, 2.0, 1.0), rand(3), device=device,
                match="min_val cannot be greater than max_val")
    check_error(lambda m, x: m.nn.functional.gelu(x, approximate="fast"), rand(3), device=device,
                match="approximate argument must be either none or tanh.")
    check_error(lambda m, x: m.nn.functional.glu(x), rand(3, 5), device=device,
                match="Halving dimension must be even, but dimension 1 is size 5")
    check_error(lambda m, x: m.nn.functional.softshrink(x, -1.0), rand(3), device=device, match="lambda must be")
    check_error(lambda m, x: m.nn.functional.celu(x, alpha=0.0), rand(3), device=device,
                match="alpha cannot be 0 for CELU")
    check_error(lambda m, x: m.nn.functional.elu(x), np.arange(3), device=device,
                match="\"elu_cpu\" not implemented for 'Long'")


def test_inplace_on_leaf_raises(device):
    check_error(lambda m, x: m.nn.functional.elu(x.requires_grad_(), inplace=True), rand(3), device=device,
                match="a leaf Variable that requires grad is being used in an in-place operation.")


def test_prelu_dtype_rules(device):
    check_error(lambda m, x, w: m.nn.functional.prelu(x, w.double() if x.device.type == "cpu" else w.int()),
                rand(2, 3), rand(3), device=device, match="Type promoting not supported")
    check_error(lambda m, x: m.nn.functional.prelu(x.long(), x[0].long()), rand(2, 3), device=device,
                match="prelu_cpu")
