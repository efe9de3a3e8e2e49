"""Training-mode batch_norm runs as two fused WGSL kernels on webgpu (statistics + running stats + output; the
three gradients): values, running statistics and gradients equal PyTorch's, with no host fallback, in both
reduction variants, and a BatchNorm2d forward+backward costs 3 dispatches (14 when composed of ops)."""
import numpy as np
import pytest
import torch

import webtorch
from webtorch.backends import webgpu as wg
from webtorch.backends.webgpu import subgroup_reduce

from webgpu_counts import counted
from optest import check, rand

DEV = "webgpu"




@pytest.mark.parametrize("subgroups", [False, True])
@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 7), (3, 5, 4, 6), (2, 2, 3, 2, 3), (300, 2)])
def test_batch_norm_matches_torch_with_running_stats(shape, subgroups):
    c = shape[1]
    rm0, rv0 = rand(c), rand(c, low=0.5, high=2)

    def fn(m, x, w, b):
        rm = m.tensor(rm0, device=x.device)
        rv = m.tensor(rv0, device=x.device)
        y = m.nn.functional.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3, eps=1e-3)
        return y, rm, rv

    with subgroup_reduce.forced(wg.get_backend(), subgroups):
        _, n = counted(lambda: check(fn, rand(*shape, low=-3, high=3), rand(c), rand(c), device=DEV))
    assert n["host_fallbacks"] == 0


def test_batch_norm_strided_input_partial_grads_and_no_affine():
    x = rand(4, 6, 5, low=-2, high=2)
    _, n = counted(lambda: check(lambda m, x, w: m.nn.functional.batch_norm(
        x.transpose(0, 2)[1:], None, None, w, None, training=True), x, rand(6), device=DEV))
    assert n["host_fallbacks"] == 0
    check(lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True), rand(5, 3, 2), device=DEV)
    # only the input needs a gradient; the weight is a plain (non-leaf-grad) tensor
    check(lambda m, x: m.nn.functional.batch_norm(x, None, None, m.ones(3, device=x.device) * 2, None,
                                                  training=True), rand(5, 3, 4), device=DEV)


def test_batch_norm_float16_input():  # the CI adapter (lavapipe) has shader-f16
    check(lambda m, x, w, b: m.nn.functional.batch_norm(x.half(), None, None, w.half(), b.half(),
                                                        training=True).float(),
          rand(4, 3, 5), rand(3), rand(3), device=DEV, atol=5e-3, rtol=5e-3)


def test_batchnorm_module_steps_and_double_backward():
    webtorch.manual_seed(0)
    bn = webtorch.nn.BatchNorm1d(4, momentum=None).to(DEV)
    ref = torch.nn.BatchNorm1d(4, momentum=None)
    ref.load_state_dict({k: torch.tensor(v.cpu().numpy()) for k, v in bn.state_dict().items()})
    rng = np.random.default_rng(0)
    for _ in range(3):
        xs = rng.standard_normal((8, 4)).astype(np.float32)
        bn(webtorch.tensor(xs, device=DEV)).square().sum().backward()
        ref(torch.tensor(xs)).square().sum().backward()
    for k, v in ref.state_dict().items():
        np.testing.assert_allclose(bn.state_dict()[k].cpu().numpy(), v.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.weight.grad.cpu().numpy(), ref.weight.grad.numpy(), rtol=1e-4, atol=1e-4)
    # create_graph: the backward composes ops again, so second derivatives see the statistics
    x = rand(5, 3)
    check(lambda m, x: m.autograd.grad(m.nn.functional.batch_norm(x, None, None, training=True).pow(3).sum(), x,
                                       create_graph=True)[0], x, device=DEV)


def test_batchnorm2d_forward_backward_dispatches():
    webtorch.manual_seed(0)
    bn = webtorch.nn.BatchNorm2d(8).to(DEV)
    x = webtorch.randn(4, 8, 6, 6, device=DEV, requires_grad=True)
    g = webtorch.randn(4, 8, 6, 6, device=DEV)

    def step():
        x.grad = None
        bn.zero_grad()
        bn(x).backward(g)

    def measure():
        counted(step)
        return counted(step)[1]

    fused = measure()
    # the forward kernel, num_batches_tracked += 1, the backward kernel
    assert fused == {"dispatches": 3, "submits": 1, "host_fallbacks": 0}
