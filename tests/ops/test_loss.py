"""Loss functions against PyTorch: every reduction, values and gradients (input and target), node names,
float64 backward formulas, warnings and error messages."""
import warnings

import numpy as np
import pytest

from optest import check, check_error, rand, randint

REDUCTIONS = ["none", "mean", "sum"]
F64 = dict(atol=1e-10, rtol=1e-9, device="cpu")  # float64 is a cpu dtype (WebGPU has no f64)


def F(m):
    return m.nn.functional


def f64(*shape, low=-1.0, high=1.0):
    return rand(*shape, low=low, high=high).astype(np.float64)


@pytest.mark.parametrize("red", REDUCTIONS)
@pytest.mark.parametrize("name,kw,node", [
    ("mse_loss", {}, "MseLossBackward0"), ("l1_loss", {}, None), ("smooth_l1_loss", {}, "SmoothL1LossBackward0"),
    ("smooth_l1_loss", {"beta": 0.3}, "SmoothL1LossBackward0"), ("smooth_l1_loss", {"beta": 0.0}, None),
    ("huber_loss", {}, "HuberLossBackward0"), ("huber_loss", {"delta": 0.4}, "HuberLossBackward0")])
def test_regression_losses(name, kw, node, red, device):
    out = check(lambda m, x, t: getattr(F(m), name)(x, t, reduction=red, **kw), rand(4, 5, low=-2, high=2),
                rand(4, 5, low=-2, high=2), device=device)
    if node:
        assert out.grad_fn.name() == node
    check(lambda m, x, t: getattr(F(m), name)(x, t, reduction=red, **kw), f64(3, 4, low=-2, high=2),
          f64(3, 4, low=-2, high=2), **F64)


def test_mse_size_mismatch_warns_and_broadcasts(device):
    import webtorch
    x, t = webtorch.zeros(3, 4, device=device), webtorch.ones(4, device=device)
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4\]\)\) that is different to the "
                                         r"input size \(torch.Size\(\[3, 4\]\)\)"):
        webtorch.nn.functional.mse_loss(x, t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, x, t: F(m).mse_loss(x, t), rand(3, 4), rand(4), device=device)


def test_legacy_reduction_flags(device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, x, t: (F(m).mse_loss(x, t, size_average=False), F(m).l1_loss(x, t, reduce=False)),
              rand(3, 4), rand(3, 4), device=device)


def test_soft_margin_and_multilabel(device):
    y = np.sign(rand(4, 5)).astype(np.float32)
    for red in REDUCTIONS:
        out = check(lambda m, x: F(m).soft_margin_loss(x, m.tensor(y, device=x.device), reduction=red), rand(4, 5, low=-3, high=3),
                    device=device)
        if red == "mean":
            assert out.grad_fn.name() == "SoftMarginLossBackward0"
        check(lambda m, x, t, w: F(m).multilabel_soft_margin_loss(x, t, w, reduction=red), rand(4, 5, low=-3, high=3),
              (y > 0).astype(np.float32), rand(5, low=0, high=1), device=device)


# ---- binary cross entropy ----------------------------------------------------------------------------------

@pytest.mark.parametrize("red", REDUCTIONS)
def test_binary_cross_entropy(red, device):
    w = rand(5, low=0.2, high=1.0)
    out = check(lambda m, x, t: F(m).binary_cross_entropy(x, t, reduction=red), rand(4, 5, low=0.02, high=0.98),
                rand(4, 5, low=0, high=1), device=device)
    if red != "none":
        assert out.grad_fn.name() == "BinaryCrossEntropyBackward0"
    check(lambda m, x, t: F(m).binary_cross_entropy(x, t, m.tensor(w, device=x.device), reduction=red), rand(4, 5, low=0.02, high=0.98),
          rand(4, 5, low=0, high=1), device=device)
    check(lambda m, x, t: F(m).binary_cross_entropy(x, t, reduction=red), f64(3, 4, low=0.05, high=0.95),
          f64(3, 4, low=0, high=1), **F64)


def test_binary_cross_entropy_clamps_log(device):
    x = np.array([0.0, 1.0, 0.0, 1.0, 0.5], dtype=np.float32)
    t = np.array([1.0, 0.0, 0.0, 1.0, 1.0], dtype=np.float32)
    check(lambda m, x: F(m).binary_cross_entropy(x, m.tensor(t, device=x.device), reduction="none"), x, device=device)


def test_binary_cross_entropy_errors(device):
    check_error(lambda m, x, t: F(m).binary_cross_entropy(x, t), rand(3, 4, low=0, high=1),
                rand(3, 5, low=0, high=1), device=device,
                match="Using a target size (torch.Size([3, 5])) that is different to the input size "
                      "(torch.Size([3, 4])) is deprecated")


def test_binary_cross_entropy_input_range_checked_on_cpu():
    # a data-dependent check needs a readback: done on cpu only, so that a webgpu step never waits on the GPU
    check_error(lambda m, x, t: F(m).binary_cross_entropy(x, t), rand(3, low=1.5, high=2), rand(3, low=0, high=1),
                device="cpu", match="all elements of input should be between 0 and 1")


@pytest.mark.parametrize("red", REDUCTIONS)
def test_bce_with_logits(red, device):
    w, pw = rand(5, low=0.2, high=1.0), rand(5, low=0.5, high=3.0)
    out = check(lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t, reduction=red),
                rand(4, 5, low=-6, high=6), rand(4, 5, low=0, high=1), device=device)
    if red != "none":
        assert out.grad_fn.name() == "BinaryCrossEntropyWithLogitsBackward0"
    check(lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t, m.tensor(w, device=x.device), reduction=red,
                                                                pos_weight=m.tensor(pw, device=x.device)),
          rand(4, 5, low=-6, high=6), rand(4, 5, low=0, high=1), device=device)
    check(lambda m, x, t: m.binary_cross_entropy_with_logits(x, t, None, m.tensor(pw, device=x.device), 1),
          f64(3, 5, low=-4, high=4), f64(3, 5, low=0, high=1), **F64)


def test_bce_with_logits_is_stable_for_huge_logits(device):
    x = np.array([-1e4, -50.0, 0.0, 50.0, 1e4], dtype=np.float32)
    t = np.array([1.0, 1.0, 0.5, 0.0, 0.0], dtype=np.float32)
    check(lambda m, x: F(m).binary_cross_entropy_with_logits(x, m.tensor(t, device=x.device), reduction="none"), x, device=device)
    check_error(lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t), rand(3, 4), rand(3, 5), device=device,
                match="Target size (torch.Size([3, 5])) must be the same as input size (torch.Size([3, 4]))")


# ---- nll / cross entropy -------------------------------------------------------------------------------------

@pytest.mark.parametrize("red", REDUCTIONS)
def test_nll_loss(red, device):
    t = randint(0, 5, 6)
    w = rand(5, low=0.1, high=1.0)
    out = check(lambda m, x: F(m).nll_loss(x, m.tensor(t, device=x.device), reduction=red), rand(6, 5), device=device)
    assert out.grad_fn.name() == "NllLossBackward0"
    check(lambda m, x: F(m).nll_loss(x, m.tensor(t, device=x.device), m.tensor(w, device=x.device), reduction=red), rand(6, 5), device=device)
    t2 = t.copy()
    t2[[1, 4]] = -100
    check(lambda m, x: F(m).nll_loss(x, m.tensor(t2, device=x.device), m.tensor(w, device=x.device), reduction=red), rand(6, 5), device=device)
    check(lambda m, x: F(m).nll_loss(x, m.tensor(t, device=x.device), ignore_index=2, reduction=red), f64(6, 5), **F64)


def test_nll_loss_k_dim_and_unbatched(device):
    t = randint(0, 4, 2, 3, 5)
    w = rand(4, low=0.1, high=1)
    check(lambda m, x: F(m).nll_loss(x, m.tensor(t, device=x.device), m.tensor(w, device=x.device)), rand(2, 4, 3, 5), device=device)
    check(lambda m, x: F(m).nll_loss(x, m.tensor(t, device=x.device), reduction="none"), rand(2, 4, 3, 5), device=device)
    check(lambda m, x: F(m).nll_loss(x, m.tensor(2, device=x.device)), rand(5), device=device)


@pytest.mark.parametrize("red", REDUCTIONS)
def test_cross_entropy_class_indices(red, device):
    t = randint(0, 5, 6)
    out = check(lambda m, x: F(m).cross_entropy(x, m.tensor(t, device=x.device), reduction=red), rand(6, 5, low=-3, high=3),
                device=device)
    assert out.grad_fn.name() == "NllLossBackward0"
    t2 = t.copy()
    t2[0] = 3
    t2[2] = 3
    w = rand(5, low=0.1, high=1.0)
    check(lambda m, x: F(m).cross_entropy(x, m.tensor(t2, device=x.device), m.tensor(w, device=x.device), ignore_index=3, reduction=red),
          rand(6, 5, low=-3, high=3), device=device)
    check(lambda m, x: F(m).cross_entropy(x, m.tensor(t, device=x.device), reduction=red), f64(6, 5, low=-3, high=3), **F64)


@pytest.mark.parametrize("red", REDUCTIONS)
def test_cross_entropy_label_smoothing(red, device):
    t = randint(0, 4, 5)
    t[1] = -100
    w = rand(4, low=0.1, high=1.0)
    check(lambda m, x: F(m).cross_entropy(x, m.tensor(t, device=x.device), label_smoothing=0.2, reduction=red),
          rand(5, 4, low=-3, high=3), device=device)
    check(lambda m, x: F(m).cross_entropy(x, m.tensor(t, device=x.device), m.tensor(w, device=x.device), label_smoothing=0.1, reduction=red),
          rand(5, 4, low=-3, high=3), device=device)


@pytest.mark.parametrize("red", REDUCTIONS)
def test_cross_entropy_probabilities_and_k_dim(red, device):
    check(lambda m, x, p: F(m).cross_entropy(x, p.softmax(1), reduction=red), rand(4, 5, low=-3, high=3),
          rand(4, 5), device=device)
    w, t = rand(3, low=0.2, high=1), randint(0, 3, 2, 4, 2)
    check(lambda m, x, p: F(m).cross_entropy(x, p.softmax(1), m.tensor(w, device=x.device), label_smoothing=0.3, reduction=red),
          rand(2, 3, 4), rand(2, 3, 4), device=device)
    check(lambda m, x: F(m).cross_entropy(x, m.tensor(t, device=x.device), reduction=red), rand(2, 3, 4, 2), device=device)


def test_cross_entropy_extreme_logits(device):
    x = np.array([[1e4, 0.0, -1e4], [-1e4, -1e4, 1e4]], dtype=np.float32)
    check(lambda m, x: F(m).cross_entropy(x, m.tensor([2, 2], device=x.device)), x, device=device)


def test_target_range_checked_on_cpu():
    # a data-dependent check needs a readback: done on cpu only, so that a webgpu step never waits on the GPU
    check_error(lambda m, x: F(m).nll_loss(x, m.tensor([1, 2, 5])), rand(3, 5), device="cpu",
                match="Target 5 is out of bounds.")
    check_error(lambda m, x: F(m).cross_entropy(x, m.tensor([1, -3, 2])), rand(3, 5), device="cpu",
                match="Target -3 is out of bounds.")
    check_error(lambda m, x: F(m).multi_margin_loss(x, m.tensor([0, 7, 2])), rand(3, 5), device="cpu",
                match="target out of range")


def test_class_loss_errors(device):
    check_error(lambda m, x: F(m).nll_loss(x, m.tensor([1, 2, 3, 4], device=x.device)), rand(3, 5), device=device,
                match="Expected input batch_size (3) to match target batch_size (4).")
    check_error(lambda m, x: F(m).cross_entropy(x, m.tensor([1, 2, 3, 4], device=x.device)), rand(3, 5), device=device,
                match="Expected input batch_size (3) to match target batch_size (4).")
    check_error(lambda m, x: F(m).nll_loss(x, m.zeros(2, 4, dtype=m.long, device=x.device)), rand(2, 5, 3), device=device,
                match="Expected target size [2, 3], got [2, 4]")
    check_error(lambda m, x: F(m).nll_loss(x, m.tensor([1, 2, 3], device=x.device), m.ones(4, device=x.device)), rand(3, 5), device=device,
                match="weight tensor should be defined either for all 5 classes or no classes")
    check_error(lambda m, x: F(m).nll_loss(x, m.tensor([1.0, 2.0, 3.0], device=x.device)), rand(3, 5), device=device,
                match="expected target dtype to be Long or Byte, but got Float")
    check_error(lambda m, x: F(m).cross_entropy(x, m.tensor([1, 2, 3], device=x.device), label_smoothing=1.5), rand(3, 5),
                device=device, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5")
    check_error(lambda m, x: F(m).mse_loss(x, x, reduction="avg"), rand(3), device=device,
                match="avg is not a valid value for reduction")
    check_error(lambda m, x: F(m).smooth_l1_loss(x, x, beta=-1.0), rand(3), device=device,
                match="smooth_l1_loss does not support negative values for beta.")
    check_error(lambda m, x: F(m).huber_loss(x, x, delta=0.0), rand(3), device=device,
                match="huber_loss does not support non-positive values for delta.")


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("red", REDUCTIONS)
def test_multi_margin_loss(p, red, device):
    t = randint(0, 5, 4)
    w = rand(5, low=0.2, high=1.0)
    out = check(lambda m, x: F(m).multi_margin_loss(x, m.tensor(t, device=x.device), p=p, margin=0.7, reduction=red), rand(4, 5),
                device=device)
    if red != "none":
        assert out.grad_fn.name() == "MultiMarginLossBackward0"
    check(lambda m, x: F(m).multi_margin_loss(x, m.tensor(t, device=x.device), p=p, weight=m.tensor(w, device=x.device), reduction=red), rand(4, 5),
          device=device)
    check(lambda m, x: F(m).multi_margin_loss(x, m.tensor(3, device=x.device), p=p, reduction=red), rand(5), device=device)
    check_error(lambda m, x: F(m).multi_margin_loss(x, m.tensor(t, device=x.device), p=3), rand(4, 5), device=device,
                match="only p == 1 and p == 2 supported")


# ---- composite losses ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("red", ["none", "mean", "sum", "batchmean"])
def test_kl_div(red, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda m, x, t: F(m).kl_div(x.log_softmax(1), t.softmax(1), reduction=red), rand(3, 5), rand(3, 5),
              device=device)
        check(lambda m, x, t: F(m).kl_div(x, t, reduction=red, log_target=True), rand(3, 5), rand(3, 5),
              device=device)
    check(lambda m, x, t: m.kl_div(x, t, 2), rand(3, 4), rand(3, 4, low=0, high=1), device=device)


def test_kl_div_mean_warns(device):
    import webtorch
    x = webtorch.zeros(2, 3, device=device)
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        webtorch.nn.functional.kl_div(x, x.exp())


@pytest.mark.parametrize("red", REDUCTIONS)
def test_poisson_and_gaussian_nll(red, device):
    check(lambda m, x, t: (F(m).poisson_nll_loss(x, t, reduction=red),
                           F(m).poisson_nll_loss(x.exp(), t, log_input=False, full=True, reduction=red)),
          rand(3, 4), rand(3, 4, low=0, high=4), device=device)
    check(lambda m, x, t, v: (F(m).gaussian_nll_loss(x, t, v, reduction=red),
                              F(m).gaussian_nll_loss(x, t, v[:, :1], full=True, reduction=red)),
          rand(3, 4), rand(3, 4), rand(3, 4, low=0.1, high=2), device=device)
    check(lambda m, x, t, v: F(m).gaussian_nll_loss(x, t, v, reduction=red), rand(3, 4), rand(3, 4),
          rand(3, low=0.1, high=2), device=device)


def test_gaussian_nll_errors(device):
    check_error(lambda m, x: F(m).gaussian_nll_loss(x, x, m.ones(2, device=x.device)), rand(3, 5), device=device,
                match="var is of incorrect size")
    check_error(lambda m, x: F(m).gaussian_nll_loss(x, x, -m.ones(3, 5, device=x.device)), rand(3, 5), device=device,
                match="var has negative entry/entries")


@pytest.mark.parametrize("red", REDUCTIONS)
def test_embedding_and_ranking_losses(red, device):
    y = np.array([1, -1, 1, -1], dtype=np.float32)
    s = np.sign(rand(4, 3))
    check(lambda m, a, b: (F(m).cosine_embedding_loss(a, b, m.tensor(y, device=a.device), margin=0.1, reduction=red),
                           F(m).margin_ranking_loss(a.sum(1), b.sum(1), m.tensor(y, device=a.device), margin=0.2, reduction=red),
                           F(m).hinge_embedding_loss(a, m.tensor(s, device=a.device), margin=0.5, reduction=red)),
          rand(4, 3), rand(4, 3), device=device)
    check(lambda m, a, p, n: (F(m).triplet_margin_loss(a, p, n, reduction=red),
                              F(m).triplet_margin_loss(a, p, n, margin=0.5, p=1, swap=True, reduction=red)),
          rand(4, 3), rand(4, 3), rand(4, 3), device=device)
    check(lambda m, a, b: F(m).cosine_embedding_loss(a, b, m.tensor(-1.0, device=a.device), reduction=red), rand(3), rand(3),
          device=device)


def test_torch_namespace_forms(device):
    y = np.array([1, -1, 1], dtype=np.float32)
    s = np.sign(rand(3, 4))
    check(lambda m, a, b: (m.cosine_embedding_loss(a, b, m.tensor(y, device=a.device), 0.0, 2), m.margin_ranking_loss(
        a.sum(1), b.sum(1), m.tensor(y, device=a.device), 0.1, 0), m.hinge_embedding_loss(a, m.tensor(s, device=a.device), 1.0, 1),
        m.triplet_margin_loss(a, b, b + 1, 1.0, 2, 1e-6, False, 1), m.poisson_nll_loss(a, b.abs(), True, False, 1e-8, 1)),
        rand(3, 4), rand(3, 4), device=device)


def test_embedding_loss_errors(device):
    check_error(lambda m, x: F(m).cosine_embedding_loss(x, x, m.ones(3, 1, device=x.device)), rand(3, 5), device=device,
                match="0D or 1D target tensor expected, multi-target not supported")
    check_error(lambda m, x: F(m).margin_ranking_loss(x, x, m.ones(3, device=x.device)), rand(3, 5), device=device,
                match="margin_ranking_loss : All input tensors should have same dimension")
    check_error(lambda m, x: F(m).triplet_margin_loss(x, x, x[0]), rand(3, 5), device=device,
                match="anchor 2D, positive 2D, and negative 1D inputs")
    check_error(lambda m, x: F(m).triplet_margin_loss(x, x, x, margin=0.0), rand(3, 5), device=device,
                match="margin must be greater than 0, got 0.0")


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
@pytest.mark.parametrize("red", REDUCTIONS)
def test_weighted_regression_losses(name, red, device):
    # PyTorch 2.13's weighted 'mean' divides mse and l1 by the sum of the weights, huber by the element count
    w = rand(3, 4, low=0.1, high=2.0)
    check(lambda m, x, t: getattr(F(m), name)(x, t, reduction=red, weight=m.tensor(w, device=x.device)),
          rand(3, 4, low=-2, high=2), rand(3, 4, low=-2, high=2), device=device)
    check_error(lambda m, x, t: getattr(F(m), name)(x, t, weight=m.ones(4, device=x.device)), rand(3, 4), rand(3, 4),
                device=device, match="Weights and input must have the same size")


# the loss kernels' dtype rules: (call, the dtype pairs (input, target) to try)
_DTYPES = ["float32", "int64", "int32", "uint8", "bool"]
_DTYPE_RULE_CALLS = {
    # one lambda a line: the browser replay finds a lambda's source by its line (tests/browser/oracle.py)
    "mse_loss": lambda m, x, t: F(m).mse_loss(x, t),
    "smooth_l1_loss": lambda m, x, t: F(m).smooth_l1_loss(x, t),
    "huber_loss": lambda m, x, t: F(m).huber_loss(x, t),
    "soft_margin_loss": lambda m, x, t: F(m).soft_margin_loss(x, t),
    "binary_cross_entropy": lambda m, x, t: F(m).binary_cross_entropy(x, t),
    "binary_cross_entropy_with_logits": lambda m, x, t: F(m).binary_cross_entropy_with_logits(x, t),
    "torch.binary_cross_entropy_with_logits": lambda m, x, t: m.binary_cross_entropy_with_logits(x, t),
    "hinge_embedding_loss": lambda m, x, t: m.hinge_embedding_loss(x, t, 1.5),
}


@pytest.mark.parametrize("name", list(_DTYPE_RULE_CALLS))
def test_loss_dtype_rules(name, device):
    # an integer or bool input or target: PyTorch's result dtype, or its exception (a float result cast into an
    # integer loss, a kernel without an integer version, a target of another dtype)
    import torch
    fn = _DTYPE_RULE_CALLS[name]
    x = rand(2, 3, low=0.05, high=0.95)
    for dx in _DTYPES:
        for dt in _DTYPES:
            a, b = (x > 0.5) if dx == "bool" else x.astype(dx), (x > 0.5) if dt == "bool" else x.astype(dt)
            try:
                fn(torch, torch.tensor(a), torch.tensor(b))
            except Exception:  # noqa: BLE001 (PyTorch's refusal is what webtorch must match)
                check_error(fn, a, b, device=device)
                continue
            check(fn, a, b, device=device, grad=False)
