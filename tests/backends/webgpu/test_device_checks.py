"""Device-side checks (device_checks.py): what PyTorch checks on the host -- integer division by zero, indices
out of range -- the webgpu kernels check themselves and report in an error word that the next read carries,
so no lookup forces a readback; the error is PyTorch's, names the op, and later work is unaffected."""
import math

import pytest
import torch

import webtorch
import webtorch.nn.functional as F


def _device_indices(values):
    """An index tensor computed on the device (the host does not know its values)."""
    t = webtorch.tensor(values, device="webgpu")
    return (t * 3 - t * 2).long()


def _stats():
    return webtorch.webgpu.stats()


@pytest.mark.parametrize("op,make,exc,match", [
    ("gather", lambda x, i: x.gather(0, i), RuntimeError, "index 12 is out of bounds for dimension 0 with size 10"),
    ("index", lambda x, i: x[i], IndexError, "index 12 is out of bounds for dimension 0 with size 10"),
    ("index", lambda x, i: x.index_select(0, i), IndexError, "index 12 is out of bounds"),
    ("scatter", lambda x, i: x.clone().scatter_(0, i, 1.0), RuntimeError, "index 12 is out of bounds"),
    ("index_put_", lambda x, i: x.clone().index_put_((i,), x[:3] * 0 + 1), IndexError,
     "index 12 is out of bounds"),
    ("embedding", lambda x, i: (F if isinstance(x, webtorch.Tensor) else torch.nn.functional).embedding(
        i, x.view(10, 1)), IndexError, "index out of range in self"),
])
def test_index_out_of_range_is_raised_by_the_next_read(op, make, exc, match):
    x = webtorch.arange(10.0, device="webgpu")
    i = _device_indices([1, 12, 3])
    webtorch.webgpu.synchronize()
    before = _stats()["readbacks"]
    y = make(x, i)  # recorded: no readback to check the indices
    assert _stats()["readbacks"] == before
    with pytest.raises(exc, match=match) as info:
        y.sum().item()
    assert f"({op}, checked on the webgpu device)" in str(info.value)
    assert (x + 1).sum().item() == 55.0  # the word is cleared: later work is unaffected
    with pytest.raises(exc):  # and torch agrees on the error type
        make(torch.arange(10.0), torch.tensor([1, 12, 3]))


def test_negative_indices_wrap_and_past_minus_size_raise():
    x = webtorch.arange(10.0, device="webgpu")
    assert x[_device_indices([-1, -10, 0])].tolist() == [9.0, 0.0, 0.0]
    with pytest.raises(IndexError, match="index -11 is out of bounds"):
        x[_device_indices([-11])].item()


def test_synchronize_reports_a_failed_check():
    x = webtorch.arange(10.0, device="webgpu")
    x.gather(0, _device_indices([99]))
    with pytest.raises(RuntimeError, match="index 99 is out of bounds"):
        webtorch.webgpu.synchronize()
    webtorch.webgpu.synchronize()


def test_an_embedding_lookup_on_device_indices_costs_no_readback():
    emb = webtorch.nn.Embedding(50, 8).to("webgpu")
    ids = _device_indices([[1, 2, 3], [4, 5, 49]])
    emb(ids).sum().item()
    s0 = _stats()
    for _ in range(3):
        out = emb(ids)
    out.sum().backward()
    webtorch.webgpu.synchronize()
    s1 = _stats()
    assert s1["readbacks"] == s0["readbacks"]
    assert s1["flushes"] - s0["flushes"] == 1  # synchronize's own


@pytest.mark.parametrize("fn", [lambda a, b: a // b, lambda a, b: a % b, lambda a, b: webtorch.fmod(a, b),
                                lambda a, b: webtorch.div(a, b, rounding_mode="floor")])
def test_integer_division_by_zero_is_zero_division_error(fn):
    a = webtorch.tensor([7, -7, 3], device="webgpu", dtype=webtorch.int32)
    b = a * 0 + webtorch.tensor([2, 0, 1], device="webgpu", dtype=webtorch.int32)
    y = fn(a, b)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        y.tolist()
    assert fn(a, a * 0 + 2).tolist() in ([3, -4, 1], [1, 1, 1], [1, -1, 1])  # floor division; remainder; fmod


def test_float_semantics_match_pytorch():
    z = [0.0, -0.0, 0.0, -0.0]
    got = webtorch.atan2(webtorch.tensor(z, device="webgpu"), webtorch.tensor([0.0, 0.0, -0.0, -0.0], device="webgpu"))
    want = torch.atan2(torch.tensor(z), torch.tensor([0.0, 0.0, -0.0, -0.0]))
    assert [math.copysign(1, v) * abs(v) for v in got.tolist()] == pytest.approx(want.tolist())
    assert [math.copysign(1, v) for v in got.tolist()] == [math.copysign(1, v) for v in want.tolist()]
    odd = [float("inf"), float("-inf"), float("nan"), 3e9, -3e9, 2.9]
    assert webtorch.tensor(odd, device="webgpu").to(webtorch.int32).tolist() == \
        torch.tensor(odd).to(torch.int32).tolist()
    nan = float("nan")
    for dev in ("cpu", "webgpu"):
        u = webtorch.unique(webtorch.tensor([nan, 1.0, nan], device=dev), return_counts=True)
        assert [len(u[0]), u[1].tolist()] == [3, [1, 1, 1]]  # every NaN is its own value, as in PyTorch
        assert math.isnan(webtorch.sign(webtorch.tensor(nan, device=dev)).item()) is False
        c = webtorch.tensor([float("inf"), 0.0, 2.0], device=dev).cumprod(0).tolist()
        assert c[0] == float("inf") and math.isnan(c[1]) and math.isnan(c[2])


def test_cross_entropy_targets_are_checked_on_the_device():
    x = webtorch.randn(4, 5, device="webgpu")
    bad = _device_indices([0, 2, 6, 1])
    webtorch.webgpu.synchronize()
    before = _stats()["readbacks"]
    loss = F.cross_entropy(x, bad)
    assert _stats()["readbacks"] == before
    with pytest.raises(IndexError, match=r"Target 6 is out of bounds\. \(nll_loss"):
        loss.item()
    ignored = _device_indices([0, 2, -100, 1])
    want = torch.nn.functional.cross_entropy(torch.tensor(x.tolist()), torch.tensor([0, 2, -100, 1]))
    assert F.cross_entropy(x, ignored).item() == pytest.approx(want.item(), rel=1e-5)
    with pytest.raises(RuntimeError, match="target out of range"):
        F.multi_margin_loss(x, bad).item()


# input checks of binary_cross_entropy, normal with a tensor std and histc's data range (op_facts.VALUE_CHECKS):
# checked on the device, raised by the next read with PyTorch's error, no readback at the call
_VALUE_CHECKS = [
    ("binary_cross_entropy", lambda m, d: m.nn.functional.binary_cross_entropy(
        m.tensor([0.5, 1.5], device=d), m.tensor([1.0, 0.0], device=d)), "all elements of input should be between 0 and 1"),
    ("binary_cross_entropy", lambda m, d: m.nn.functional.binary_cross_entropy(
        m.tensor([0.5, math.nan], device=d), m.tensor([1.0, 0.0], device=d)), "all elements of input should be between"),
    ("normal", lambda m, d: m.normal(m.zeros(3, device=d), m.tensor([1.0, -1.0, 2.0], device=d)),
     "normal expects all elements of std >= 0.0"),
    ("normal", lambda m, d: m.normal(m.zeros(2, device=d), m.tensor([1.0, math.nan], device=d)),
     "normal expects all elements of std >= 0.0"),
    ("histc", lambda m, d: m.histc(m.tensor([1.0, math.nan], device=d)), r"torch.histc: range of \[.*\] is not finite"),
    ("histc", lambda m, d: m.histc(m.tensor([1.0, math.inf], device=d), bins=3), r"torch.histc: range of .* not finite"),
]


@pytest.mark.parametrize("op,make,match", _VALUE_CHECKS)
def test_input_checks_are_raised_by_the_next_read_with_pytorchs_error(op, make, match):
    with pytest.raises(RuntimeError, match=match):
        make(torch, "cpu")  # the oracle raises this
    with pytest.raises(RuntimeError, match=match):
        make(webtorch, "cpu")
    webtorch.webgpu.synchronize()
    before = _stats()["readbacks"]
    y = make(webtorch, "webgpu")  # recorded: no readback to check the values
    assert _stats()["readbacks"] == before
    with pytest.raises(RuntimeError, match=match) as info:
        y.tolist()
    assert f"({op}, checked on the webgpu device)" in str(info.value)
    assert webtorch.arange(3.0, device="webgpu").tolist() == [0.0, 1.0, 2.0]  # the word was cleared


@pytest.mark.parametrize("op,make,match", _VALUE_CHECKS[::2])
def test_a_checked_result_never_used_still_reports_at_synchronize(op, make, match):
    webtorch.webgpu.synchronize()
    make(webtorch, "webgpu")  # the result is dropped at once: its check must not be
    with pytest.raises(RuntimeError, match=match):
        webtorch.webgpu.synchronize()
    webtorch.webgpu.synchronize()  # reported once


def test_an_unused_integer_division_by_zero_reports_at_synchronize():
    a, z = webtorch.tensor([4, 5], device="webgpu"), _device_indices([2, 0])
    webtorch.webgpu.synchronize()
    a // z  # never read
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        webtorch.webgpu.synchronize()


def test_valid_inputs_pass_and_match_pytorch():
    for m, d in ((torch, "cpu"), (webtorch, "webgpu")):
        x, t = m.tensor([0.25, 0.0, 1.0], device=d), m.tensor([1.0, 0.0, 1.0], device=d)
        bce = m.nn.functional.binary_cross_entropy(x, t).item()
        hist = m.histc(m.tensor([1.0, 2.0, 2.0, 3.0], device=d), bins=4).tolist()
        n = m.normal(m.tensor([1.0, 2.0], device=d), m.tensor([0.0, 0.0], device=d)).tolist()
        assert (bce, hist, n) == (pytest.approx(0.46209812), [1.0, 0.0, 2.0, 1.0], [1.0, 2.0])


def test_a_bce_training_step_reads_back_once():
    """The loss read is the step's only readback: the input range check rides along with it."""
    torch_w = torch.tensor([[0.3, -0.2], [0.1, 0.4]], requires_grad=True)
    w = webtorch.tensor(torch_w.tolist(), device="webgpu", requires_grad=True)
    x = webtorch.tensor([[1.0, 2.0], [-1.0, 0.5], [0.5, 0.5]], device="webgpu")
    y = webtorch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], device="webgpu")
    opt = webtorch.optim.SGD([w], lr=0.1)
    torch_opt = torch.optim.SGD([torch_w], lr=0.1)
    for step in range(3):
        webtorch.webgpu.synchronize()
        before = _stats()["readbacks"]
        opt.zero_grad()
        loss = F.binary_cross_entropy(webtorch.sigmoid(x @ w), y)
        loss.backward()
        opt.step()
        value = loss.item()
        assert _stats()["readbacks"] == before + 1, step
        torch_opt.zero_grad()
        torch_loss = torch.nn.functional.binary_cross_entropy(torch.sigmoid(torch.tensor(x.tolist()) @ torch_w),
                                                              torch.tensor(y.tolist()))
        torch_loss.backward()
        torch_opt.step()
        assert value == pytest.approx(torch_loss.item(), rel=1e-5)
