"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against PyTorch 2.13: the
reference path (options=None) and the chunked path (values and gradients of input, weight and bias for every
reduction, class weights, ignore_index, unbatched input), that the chunked path never holds more than one chunk
of logits, its fall-back warning, its retain_graph rule, the options' validation and resolution, and the errors."""
import warnings

import numpy as np
import pytest
import torch

import webtorch
from devices import DEVICES
from optest import RNG, check, check_error, check_same_error, rand, randint

N, D, C = 37, 8, 50


def lce(reduction="mean", chunk=None, bias=True, cls_weight=False, **kw):
    def fn(m, x, w, b, t, cw):
        opts = None if chunk is None else m.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk) if chunk > 0 \
            else m.nn.LinearCrossEntropyOptions()
        return m.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b if bias else None,
                                                    weight=cw.detach() if cls_weight else None, reduction=reduction,
                                                    options=opts, **kw)
    return fn


def targets(n=N, ignored=(3, 10)):
    t = randint(0, C, n)
    t[list(ignored)] = -100
    return t


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("chunk", [None, 5, 64, 0], ids=["reference", "chunk5", "one-chunk", "auto"])
def test_values_and_grads_match_torch(device, reduction, chunk):
    check(lce(reduction, chunk, cls_weight=True), rand(N, D), rand(C, D), rand(C), targets(), rand(C, low=0.2),
          device=device, atol=1e-5, rtol=1e-4)
    check(lce(reduction, chunk, bias=False), rand(N, D), rand(C, D), rand(C), targets(), rand(C), device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_unbatched_and_custom_ignore_index(device):
    check(lce("mean", 4), rand(D), rand(C, D), rand(C), np.array(7), rand(C), device=device)
    check(lce("none", 4), rand(D), rand(C, D), rand(C), np.array(7), rand(C), device=device)
    t = randint(0, C, N)
    t[:5] = 2
    check(lce("mean", 8, ignore_index=2), rand(N, D), rand(C, D), rand(C), t, rand(C), device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_reference_path_k_dims_probabilities_and_smoothing(device):
    x, w, b = rand(6, D), rand(C, 3, D), rand(C, 3)
    check(lambda m, x, w, b, t: m.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b), x, w, b,
          randint(0, C, 6, 3), device=device)
    probs = RNG.dirichlet(np.ones(C), size=6).astype(np.float32)
    check(lambda m, x, w, t: m.nn.functional.linear_cross_entropy(x, w, t.detach(), label_smoothing=0.1),
          x, rand(C, D), probs, device=device)
    with pytest.warns(UserWarning, match="``options`` ignored; chunked path needs"):
        check(lambda m, x, w, t: m.nn.functional.linear_cross_entropy(
            x, w, t, label_smoothing=0.2, options=m.nn.LinearCrossEntropyOptions()), x, rand(C, D),
            randint(0, C, 6), device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_chunked_path_never_holds_the_whole_logits(device, monkeypatch):
    import webtorch.ops.linear_cross_entropy as lce_mod
    shapes = []

    def recording_linear(*args):
        out = webtorch.nn.functional.linear(*args)
        shapes.append(tuple(out.shape))
        return out
    monkeypatch.setattr(lce_mod, "linear", recording_linear)
    x = webtorch.randn(100, 16, device=device, requires_grad=True)
    w = webtorch.randn(1000, 16, device=device, requires_grad=True)
    t = webtorch.randint(0, 1000, (100,), device=device)
    loss = webtorch.nn.functional.linear_cross_entropy(x, w, t, options=webtorch.nn.LinearCrossEntropyOptions())
    loss.backward()
    # aspect_ratio:2 (the fallback pick for float32): next_pow2(ceil(100 / ceil(1000 / 16))) // 2 = 1 row
    assert shapes and max(s[0] for s in shapes) == 1 and all(s[1] == 1000 for s in shapes)
    assert len(shapes) == 100  # one pass: the loss and the gradients come from the same chunk's logits
    ref = torch.nn.functional.cross_entropy(torch.tensor(x.tolist()) @ torch.tensor(w.tolist()).T,
                                            torch.tensor(t.tolist()))
    assert abs(loss.item() - ref.item()) < 1e-4


def test_module_matches_torch_and_state_dict():
    torch.manual_seed(0)
    for kw in ({}, {"bias": True, "out_features": (2,), "reduction": "sum"},
               {"bias": True, "options": "chunked", "ignore_index": 1}):
        tkw = {k: (torch.nn.LinearCrossEntropyOptions(batch_chunk_size=3) if v == "chunked" else v)
               for k, v in kw.items()}
        wkw = {k: (webtorch.nn.LinearCrossEntropyOptions(batch_chunk_size=3) if v == "chunked" else v)
               for k, v in kw.items()}
        mt, mw = torch.nn.LinearCrossEntropyLoss(D, 7, **tkw), webtorch.nn.LinearCrossEntropyLoss(D, 7, **wkw)
        assert list(mw.state_dict()) == list(mt.state_dict()) and repr(mw) == repr(mt)
        mw.load_state_dict({k: webtorch.tensor(v.numpy()) for k, v in mt.state_dict().items()})
        x = torch.randn(10, D)
        t = torch.randint(0, 7, (10, *kw.get("out_features", ())))
        np.testing.assert_allclose(mw(webtorch.tensor(x.numpy()), webtorch.tensor(t.numpy())).item(),
                                   mt(x, t).item(), rtol=1e-5)


def test_retain_graph_rule_as_torch():
    grads = []
    for lib in (torch, webtorch):
        x = lib.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]], requires_grad=True)
        w = lib.tensor([[1.0, 2.0, 0.5], [-1.0, 0.3, 0.2], [0.0, 1.0, -2.0]], requires_grad=True)
        t = lib.tensor([0, 2])
        loss = lib.nn.functional.linear_cross_entropy(x, w, t, options=lib.nn.LinearCrossEntropyOptions())
        loss.backward(retain_graph=True)
        with pytest.raises(RuntimeError, match="chunked backward called twice"):
            loss.backward()
        opts = lib.nn.LinearCrossEntropyOptions(allow_retain_graph=True)
        loss = lib.nn.functional.linear_cross_entropy(x, w, t, reduction="sum", options=opts)
        loss.backward(retain_graph=True)
        loss.backward()  # the gradients were kept: a second backward adds them again
        grads.append((np.array(x.grad.tolist()), np.array(w.grad.tolist())))
    for ours, ref in zip(grads[1], grads[0]):
        np.testing.assert_allclose(ours, ref, atol=1e-6)


def test_options_validation_and_resolution_as_torch():
    for kw in ({"acc_policy": "fast"}, {"chunking_method": "square"}, {"chunking_method": "aspect_ratio:0"},
               {"batch_chunk_size": 0}, {"acc_dtype": "int"}):
        check_same_error(lambda m: m.nn.LinearCrossEntropyOptions(**kw))
    for kw in ({}, {"batch_chunk_size": 7}, {"chunking_method": "aspect_ratio"}, {"chunking_method": None},
               {"acc_policy": "balanced"}, {"chunking_method": "aspect_ratio:4", "acc_policy": "accurate"}):
        for shape in ((100, 16, 1000), (5, 64, 10), (1000, 8, 8)):
            for tdt, wdt in ((torch.float32, webtorch.float32), (torch.float16, webtorch.float16)):
                want = torch.nn.LinearCrossEntropyOptions(**kw)._adjust(*shape, tdt, torch.device("cpu"))
                got = webtorch.nn.LinearCrossEntropyOptions(**kw)._adjust(*shape, wdt, webtorch.device("cpu"))
                assert (got.batch_chunk_size, got.acc_policy, got.chunking_method, str(got.acc_dtype)) == \
                    (want.batch_chunk_size, want.acc_policy, want.chunking_method, str(want.acc_dtype))
    check_same_error(lambda m: m.nn.LinearCrossEntropyOptions(batch_chunk_size=3, chunking_method="aspect_ratio")
                     ._adjust(100, 16, 1000, m.float32, m.device("cpu")))


@pytest.mark.parametrize("device", DEVICES)
def test_errors_as_torch(device):
    f = lambda m, x, w, t, **kw: m.nn.functional.linear_cross_entropy(x, w, t, **kw)  # noqa: E731
    check_error(f, rand(2, 3, D), rand(C, D), randint(0, C, 2), device=device, match="dimensionality 1 or 2, got 3")
    check_error(f, rand(2, D), rand(D), randint(0, C, 2), device=device, match="at least 2, got 1")
    check_error(f, rand(2, D), rand(C, D + 1), randint(0, C, 2), device=device, match="got 8 and 9, respectively")
    check_error(lambda m, x, w, t, b: f(m, x, w, t, linear_bias=b), rand(2, D), rand(C, D), randint(0, C, 2),
                rand(C + 1), device=device, match="expected linear_bias shape (50,), got (51,)")
    check_error(f, rand(D), rand(C, 2, D), randint(0, C, 2), device=device, match="requires batched input")
    check_error(lambda m, x, w, t: f(m, x, w, t, ignore_index=0), rand(2, D), rand(C, D), rand(2, C),
                device=device, match="ignore_index cannot be specified when target contains probabilities")
    for lib in (torch, webtorch):
        with pytest.raises(RuntimeError, match=r"expected weight shape to be \(4,\), got \(3,\)"):
            lib.nn.LinearCrossEntropyLoss(2, 4, weight=lib.ones(3))
        with pytest.raises(RuntimeError, match=r"expected label_smoothing to be in range \[0, 1\], got 1.5"):
            lib.nn.LinearCrossEntropyLoss(2, 4, label_smoothing=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the chunked path takes int64 targets without a warning
        f(webtorch, webtorch.ones(2, D, device=device), webtorch.ones(C, D, device=device),
          webtorch.tensor([1, 2], device=device), options=webtorch.nn.LinearCrossEntropyOptions())
