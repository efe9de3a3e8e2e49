"""Memory formats against PyTorch 2.13: torch.channels_last / channels_last_3d / contiguous_format /
preserve_format; contiguous(), clone(), to() and Module.to() with memory_format give PyTorch's strides (NHWC /
NDHWC order in memory) and values, is_contiguous(memory_format=...) PyTorch's answers, gradients flow through, ops
on channels-last tensors give PyTorch's values; nn.utils.convert_conv2d/3d_weight_memory_format; the errors."""
import pickle

import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES
from optest import check, check_error, check_same_error, rand

SHAPES_4D = [(2, 3, 4, 5), (2, 0, 3, 3), (0, 3, 2, 2), (2, 3, 0, 4), (1, 3, 1, 1), (2, 1, 4, 4), (3, 2, 1, 5)]


def fmt(lib, name):
    return getattr(lib, name)


def test_memory_format_objects():
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        ours = getattr(webtorch, name)
        assert repr(ours) == repr(getattr(torch, name)) == f"torch.{name}"
        assert isinstance(ours, webtorch.memory_format) and pickle.loads(pickle.dumps(ours)) is ours


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", SHAPES_4D)
def test_contiguous_channels_last_strides_and_checks(device, shape):
    x = rand(*shape)
    t, w = torch.tensor(x), webtorch.tensor(x, device=device)
    for name in ("channels_last", "contiguous_format", "preserve_format"):
        assert w.is_contiguous(memory_format=fmt(webtorch, name)) == t.is_contiguous(memory_format=fmt(torch, name))
    tc, wc = t.contiguous(memory_format=torch.channels_last), w.contiguous(memory_format=webtorch.channels_last)
    assert wc.stride() == tc.stride() and (wc is w) == (tc is t)
    assert wc.is_contiguous(memory_format=webtorch.channels_last) and wc.is_contiguous() == tc.is_contiguous()
    assert wc.tolist() == tc.tolist()
    back = wc.contiguous()
    assert back.stride() == tc.contiguous().stride() and back.tolist() == tc.tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_channels_last_3d_and_permuted_inputs(device):
    x = rand(2, 3, 4, 5, 6)
    t, w = torch.tensor(x).transpose(2, 4), webtorch.tensor(x, device=device).transpose(2, 4)
    tc = t.contiguous(memory_format=torch.channels_last_3d)
    wc = w.contiguous(memory_format=webtorch.channels_last_3d)
    assert wc.stride() == tc.stride() and wc.tolist() == tc.tolist()
    assert wc.is_contiguous(memory_format=webtorch.channels_last_3d)
    assert not wc.is_contiguous(memory_format=webtorch.channels_last)


@pytest.mark.parametrize("device", DEVICES)
def test_grads_and_values_through_channels_last(device):
    check(lambda m, x: m.nn.functional.conv2d(x.contiguous(memory_format=m.channels_last) * 2, x[:2, :, :1, :1]),
          rand(3, 2, 5, 4), device=device)
    check(lambda m, x: (x.to(memory_format=m.channels_last) + 1).sum((1, 3)), rand(2, 3, 4, 5), device=device)
    check(lambda m, x: x.clone(memory_format=m.channels_last).permute(0, 2, 3, 1).reshape(-1, 3).sum(0),
          rand(2, 3, 4, 5), device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_clone_to_and_in_place(device):
    x = rand(2, 3, 4, 5)
    t = torch.tensor(x).to(memory_format=torch.channels_last)
    w = webtorch.tensor(x, device=device).to(memory_format=webtorch.channels_last)
    assert w.stride() == t.stride()
    assert w.clone().stride() == t.clone().stride()  # preserve_format keeps channels_last
    assert w.clone(memory_format=webtorch.contiguous_format).stride() == t.clone(
        memory_format=torch.contiguous_format).stride()
    assert (w.to(memory_format=webtorch.channels_last) is w) == (t.to(memory_format=torch.channels_last) is t)
    assert (w.to(memory_format=webtorch.preserve_format) is w) and w.to(webtorch.float32) is w
    assert w.to(memory_format=webtorch.contiguous_format).stride() == (60, 20, 5, 1)
    if device == "cpu":
        assert w.to(webtorch.float64).stride() == t.to(torch.float64).stride()
    w.add_(1)[0, 1, 2, 3] = 7.0
    t.add_(1)[0, 1, 2, 3] = 7.0
    assert w.tolist() == t.tolist() and w.stride() == t.stride()
    assert w.reshape(2, -1).tolist() == t.reshape(2, -1).tolist()
    check_same_error(lambda m: m.ones(2, 3, 4, 5).to(memory_format=m.channels_last).view(2, -1))


@pytest.mark.parametrize("device", DEVICES)
def test_like_factories_keep_channels_last(device):
    likes = [lambda m, t, **k: m.zeros_like(t, **k), lambda m, t, **k: m.ones_like(t, **k),
             lambda m, t, **k: m.empty_like(t, **k), lambda m, t, **k: m.full_like(t, 2.0, **k),
             lambda m, t, **k: m.rand_like(t, **k), lambda m, t, **k: m.randn_like(t, **k),
             lambda m, t, **k: m.randint_like(t, 5, **k)]
    t = torch.ones(2, 3, 4, 5).to(memory_format=torch.channels_last)
    w = webtorch.ones(2, 3, 4, 5, device=device).to(memory_format=webtorch.channels_last)
    for like in likes:
        assert like(webtorch, w).stride() == like(torch, t).stride()
        assert like(webtorch, w, memory_format=webtorch.contiguous_format).stride() == like(
            torch, t, memory_format=torch.contiguous_format).stride()
        assert like(webtorch, w.contiguous(), memory_format=webtorch.channels_last).stride() == like(
            torch, t.contiguous(), memory_format=torch.channels_last).stride()
    z = webtorch.zeros_like(w, requires_grad=True)
    assert z.is_leaf and z.requires_grad and z.sum().item() == 0
    assert webtorch.empty(2, 3, 4, 5, memory_format=webtorch.channels_last, device=device).stride() == \
        torch.empty(2, 3, 4, 5, memory_format=torch.channels_last).stride()
    check_same_error(lambda m: m.empty(2, 3, memory_format=m.channels_last))


@pytest.mark.parametrize("device", DEVICES)
def test_module_to_and_convert_conv_weights(device):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ConvTranspose2d(4, 2, 2))
    wm = webtorch.nn.Sequential(webtorch.nn.Conv2d(3, 4, 3), webtorch.nn.BatchNorm2d(4),
                                webtorch.nn.ConvTranspose2d(4, 2, 2)).to(device)
    wm.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    for lib, m in ((torch, tm), (webtorch, wm)):
        out = lib.nn.utils.convert_conv2d_weight_memory_format(m, lib.channels_last)
        assert out is m and isinstance(m[0].weight, lib.nn.Parameter)
    assert [p.stride() for p in wm.parameters()] == [p.stride() for p in tm.parameters()]
    x = rand(2, 3, 6, 6)
    np.testing.assert_allclose(np.asarray(wm(webtorch.tensor(x, device=device)).tolist()),
                               tm(torch.tensor(x)).detach().numpy(), atol=1e-5)
    t3, w3 = torch.nn.Conv3d(2, 3, 2), webtorch.nn.Conv3d(2, 3, 2).to(device)
    torch.nn.utils.convert_conv3d_weight_memory_format(t3, torch.channels_last_3d)
    webtorch.nn.utils.convert_conv3d_weight_memory_format(w3, webtorch.channels_last_3d)
    assert w3.weight.stride() == t3.weight.stride()
    tl, wl = torch.nn.Conv2d(3, 4, 3), webtorch.nn.Conv2d(3, 4, 3).to(device)
    tl.to(memory_format=torch.channels_last)
    wl.to(memory_format=webtorch.channels_last)
    assert wl.weight.stride() == tl.weight.stride() and wl.bias.stride() == tl.bias.stride()


@pytest.mark.parametrize("device", DEVICES)
def test_errors_as_torch(device):
    check_error(lambda m, x: x.contiguous(memory_format=m.channels_last), rand(3, 4), device=device,
                match="required rank 4 tensor to use channels_last format")
    check_error(lambda m, x: x.clone(memory_format=m.channels_last_3d), rand(2, 3, 4, 5), device=device,
                match="required rank 5 tensor to use channels_last_3d format")
    check_error(lambda m, x: x.to(memory_format=m.channels_last), rand(2, 3, 4, 5, 6), device=device,
                match="required rank 4 tensor")
    check_error(lambda m, x: x.transpose(2, 3).contiguous(memory_format=m.preserve_format), rand(2, 3, 4, 5),
                device=device, match="preserve memory format is unsupported by the contiguous operator")
    for lib in (torch, webtorch):
        with pytest.raises(TypeError, match="positional argument"):  # memory_format is keyword-only
            lib.ones(2, 3, 4, 5).is_contiguous(lib.channels_last)
    assert not webtorch.ones(3, 4).is_contiguous(memory_format=webtorch.channels_last)
