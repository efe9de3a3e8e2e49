"""softmax / log_softmax / layer_norm run as WGSL row kernels on webgpu: no host fallback, every
specialization compiles, and a cross-entropy MLP training step is one submit with a bounded dispatch count."""
import numpy as np
import pytest
import torch

import webtorch
from webtorch.backends import webgpu as wg
from webtorch.backends.webgpu import wgsl_loader

from devices import adapter_kind
from webgpu_counts import counted
from optest import check, rand

DEV = "webgpu"
STEP_KEYS = ("dispatches", "submits", "host_fallbacks", "codegen_misses", "kernels_compiled")




def test_row_kernel_specializations_compile():
    rt = wg.get_backend().rt
    for wg_size, rt_size in ((64, 1), (64, 8), (64, 64), (256, 256)):
        spec = {"WG": f"{wg_size}u", "RT": f"{rt_size}u"}
        for log in (False, True):
            rt.compile("softmax_forward", wgsl_loader.specialize("softmax_forward", LOG=log, **spec))
            rt.compile("softmax_backward", wgsl_loader.specialize("softmax_backward", LOG=log, **spec))
        rt.compile("layernorm_forward", wgsl_loader.specialize("layernorm_forward", **spec))
        rt.compile("layernorm_backward", wgsl_loader.specialize("layernorm_backward", **spec))


@pytest.mark.parametrize("cpu", [False, True])
def test_softmax_family_forward_backward_without_fallback(cpu):
    # rows short (one invocation each), medium and long (a whole workgroup), along inner and outer dims; a
    # CPU adapter gives each of 16+ rows one invocation ((4, 6, 7), (20, 9)), fewer rows share invocations
    with adapter_kind(cpu):
        for shape, dim in (((5, 3), 1), ((4, 6, 7), 1), ((3, 700), -1), ((40, 3), 0), ((20, 9), 1)):
            x = rand(*shape, low=-6, high=6)
            _, n = counted(lambda: check(lambda m, x: (m.softmax(x, dim), m.log_softmax(x, dim)), x, device=DEV))
            assert n["host_fallbacks"] == 0


def test_softmax_non_contiguous_and_float16_input():
    x = rand(6, 5, low=-3, high=3)
    _, n = counted(lambda: check(lambda m, x: m.softmax(x.t()[1:], 0), x, device=DEV))
    assert n["host_fallbacks"] == 0
    if wg.get_backend().rt.features >= {"shader-f16"}:
        check(lambda m, x: m.log_softmax(x.half(), 1, dtype=m.float32), x, device=DEV, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("cpu", [False, True])
def test_layer_norm_forward_backward_without_fallback(cpu):
    # (4, 5, 6): 20 rows, one invocation each on a CPU adapter; the others share rows between invocations
    with adapter_kind(cpu):
        for shape, norm in (((4, 10), (10,)), ((2, 3, 4, 5), (4, 5)), ((3, 600), (600,)), ((4, 5, 6), (6,))):
            x, w, b = rand(*shape, low=-3, high=3), rand(*norm), rand(*norm)
            _, n = counted(lambda: check(lambda m, x, w, b: m.nn.functional.layer_norm(x, norm, w, b), x, w, b,
                                          device=DEV))
            assert n["host_fallbacks"] == 0
            _, n = counted(lambda: check(lambda m, x: m.nn.functional.layer_norm(x, norm), x, device=DEV))
            assert n["host_fallbacks"] == 0


def test_softmax_is_one_kernel_each_way():
    x = webtorch.randn(8, 33, device=DEV, requires_grad=True)
    y, n = counted(lambda: x.log_softmax(1))
    assert (n["dispatches"], n["submits"], n["host_fallbacks"]) == (1, 1, 0)
    g = webtorch.randn(8, 33, device=DEV)
    _, n = counted(lambda: y.backward(g))
    assert n["dispatches"] <= 2 and n["host_fallbacks"] == 0  # the kernel (+ the leaf's gradient copy)
    ref = torch.tensor(x.detach().cpu().numpy(), requires_grad=True)
    torch.log_softmax(ref, 1).backward(torch.tensor(g.cpu().numpy()))
    np.testing.assert_allclose(x.grad.cpu().numpy(), ref.grad.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cpu", [False, True])
def test_mlp_cross_entropy_step_is_one_submit_with_bounded_dispatches(cpu):
    # Linear-ReLU-Linear, cross_entropy, backward, SGD: 17 dispatches today (2 matmuls forward with the bias add
    # and ReLU fused into their epilogues, 3 backward (ReLU's gradient fused into one), softmax forward and
    # backward kernels, the fused loss and its gradient, bias-gradient sums, the update); a CPU adapter
    # updates each of the 4 parameters in its own dispatch: 20
    with adapter_kind(cpu):
        _mlp_step_dispatches(20 if cpu else 17)


def _mlp_step_dispatches(bound):
    webtorch.manual_seed(0)
    nn, F = webtorch.nn, webtorch.nn.functional
    model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5)).to(DEV)
    ref = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 5))
    ref.load_state_dict({k: torch.tensor(v.cpu().numpy()) for k, v in model.state_dict().items()})
    opt = webtorch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1)
    rng = np.random.default_rng(0)
    xs, ys = rng.standard_normal((16, 20), np.float32), rng.integers(0, 5, 16)
    x, y = webtorch.tensor(xs, device=DEV), webtorch.tensor(ys, device=DEV)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    counted(step, STEP_KEYS)  # first step: kernels compile
    for _ in range(2):
        loss, n = counted(step, STEP_KEYS)
        assert n["submits"] == 1 and n["host_fallbacks"] == 0
        assert n["dispatches"] <= bound
        assert n["codegen_misses"] == 0 and n["kernels_compiled"] == 0  # repeated steps reuse generated code
    for _ in range(3):
        ref_opt.zero_grad()
        ref_loss = torch.nn.functional.cross_entropy(ref(torch.tensor(xs)), torch.tensor(ys))
        ref_loss.backward()
        ref_opt.step()
    assert abs(loss.item() - ref_loss.item()) < 1e-5
