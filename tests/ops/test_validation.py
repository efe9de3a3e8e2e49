"""PyTorch's validation that webtorch used to skip (issue 12 section 4), and the APIs it lacked: ctc_loss,
Tensor.unfold, mode, dist, finfo/iinfo. Values and gradients against torch 2.13; the mixed-device cases, which
torch's CPU build cannot run, against the errors PyTorch raises for CUDA tensors."""
import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES
from optest import check, rand

OTHER = {"cpu": "webgpu", "webgpu": "cpu"}


@pytest.mark.parametrize("op", ["gather", "scatter", "scatter_add", "index_select", "index_add_", "take",
                                "masked_fill"])
def test_index_tensor_from_another_device_is_refused(device, op):
    if len(DEVICES) < 2:
        pytest.fail("the webgpu device is required (WEBTORCH_REQUIRE_WEBGPU=1 in CI)")
    x = webtorch.arange(6.0, device=device).reshape(2, 3)
    i = webtorch.tensor([[0, 1, 0]], device=OTHER[device])
    calls = {"gather": lambda: x.gather(0, i), "scatter": lambda: x.scatter(0, i, 1.0),
             "scatter_add": lambda: x.scatter_add(0, i, webtorch.ones(1, 3, device=device)),
             "index_select": lambda: x.index_select(0, i[0, :2]),
             "index_add_": lambda: x.index_add_(0, i[0, :2], webtorch.ones(2, 3, device=device)),
             "take": lambda: x.take(i[0]), "masked_fill": lambda: x.masked_fill(i.bool(), 0.0)}
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        calls[op]()


def test_indexing_takes_cpu_indices_only(device):
    x = webtorch.arange(6.0, device=device).reshape(2, 3)
    assert x[webtorch.tensor([1, 0])].tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]  # a cpu index: fine anywhere
    if device == "webgpu":
        with pytest.raises(RuntimeError, match="indices should be either on cpu or on the same device"):
            webtorch.arange(6.0)[webtorch.tensor([1], device="webgpu")]
    # a 0-dim cpu value may fill a tensor of any device (PyTorch's cpu-scalar rule)
    assert x.index_fill(0, webtorch.tensor([0], device=device), webtorch.tensor(7.0))[0].tolist() == [7.0] * 3


def test_grad_assignment_from_another_device_is_refused(device):
    p = webtorch.zeros(2, 3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="same device"):
        p.grad = webtorch.ones(2, 3, device=OTHER[device])


def test_sgd_never_broadcasts_a_wrong_gradient(device):
    p = webtorch.nn.Parameter(webtorch.ones(2, 3, device=device))
    with pytest.raises(RuntimeError, match=r"gradient of size '\[3\]' to a tensor of size '\[2, 3\]'"):
        p.grad = webtorch.ones(3, device=device)
    assert p.grad is None


def test_hook_cannot_change_the_gradient_type(device):
    x = webtorch.ones(2, device=device, requires_grad=True)
    x.register_hook(lambda g: g.to(OTHER[device]))
    with pytest.raises(RuntimeError, match="has changed the type of value"):
        (x * 2).sum().backward()


@pytest.mark.parametrize("targets", ["padded", "concatenated"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_loss_values_and_gradients(device, targets, reduction):
    tg = np.array([[1, 2, 2], [3, 0, 0], [4, 4, 1]])
    tl, il = [3, 1, 3], [6, 4, 5]
    if targets == "concatenated":
        tg = np.concatenate([row[:n] for row, n in zip(tg, tl)])
    check(lambda m, x: m.nn.functional.ctc_loss(x.log_softmax(2), m.tensor(tg, device=x.device), il, tl,
                                                reduction=reduction),
          rand(6, 3, 5), device=device, grad_atol=1e-4)


def test_ctc_loss_impossible_alignment_and_zero_infinity(device):
    tg = np.array([[1, 1], [2, 3]])
    check(lambda m, x: m.nn.CTCLoss(zero_infinity=True, reduction="none")(
        x.log_softmax(2), m.tensor(tg, device=x.device), [2, 4], [2, 2]), rand(4, 2, 5), device=device)
    check(lambda m, x: m.nn.functional.ctc_loss(x.log_softmax(1), m.tensor([1, 2], device=x.device), [4], [2]),
          rand(4, 5), device=device)


def test_unfold_mode_dist(device):
    check(lambda m, x: (x.unfold(1, 3, 2), x.unfold(0, 1, 1), x.unfold(1, 7, 1)), rand(3, 7), device=device)
    ints = np.array([[1, 3, 3, 0, 1], [2, 2, 5, 5, 2]])
    check(lambda m, x: (x.mode(), x.mode(0, keepdim=True), m.mode(x, -1)), ints, device=device)
    check(lambda m, x: x.round().mode(1).values, rand(4, 6, low=-2, high=2), device=device)
    check(lambda m, x, y: (m.dist(x, y), m.dist(x, y, 1), x.dist(y, float("inf"))), rand(3, 4), rand(4),
          device=device)
    # torch 2.13's own backward of dist(p=0) fails (an undefined tensor), so only its value is compared
    check(lambda m, x, y: m.dist(x, y, 0), rand(3, 4), rand(4), device=device, grad=False)


def test_overlapping_as_strided_gradient_adds_up(device):
    check(lambda m, x: x.as_strided((3, 3), (2, 1), 1), rand(8), device=device)


def test_finfo_iinfo_as_torch():
    for name in ("float16", "bfloat16", "float32", "float64"):
        w, t = webtorch.finfo(getattr(webtorch, name)), torch.finfo(getattr(torch, name))
        assert repr(w) == repr(t)
        assert (w.bits, w.eps, w.max, w.min, w.tiny, w.resolution) == (t.bits, t.eps, t.max, t.min, t.tiny,
                                                                         t.resolution)
    for name in ("uint8", "int8", "int16", "int32", "int64", "uint32"):
        w, t = webtorch.iinfo(getattr(webtorch, name)), torch.iinfo(getattr(torch, name))
        assert (repr(w), w.bits, w.min, w.max) == (repr(t), t.bits, t.min, t.max)
    assert webtorch.finfo().eps == torch.finfo().eps
    for bad in ((webtorch.finfo, webtorch.int32), (webtorch.iinfo, webtorch.float32), (webtorch.iinfo, webtorch.bool)):
        with pytest.raises(TypeError):
            bad[0](bad[1])
