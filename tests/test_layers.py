"""Every layer against PyTorch: state_dict layout, outputs and all gradients after loading PyTorch's weights,
default initialization statistics, reprs and argument errors."""
import re

import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_layer, check_default_init
from optest import rand, randint

F32 = dict(atol=1e-5, rtol=1e-4)

# (id, maker, inputs)
LAYERS = [
    ("linear", lambda m: m.nn.Linear(4, 3), (rand(2, 4),)),
    ("linear-nobias", lambda m: m.nn.Linear(4, 3, bias=False), (rand(5, 4),)),
    ("linear-3d", lambda m: m.nn.Linear(4, 3), (rand(2, 5, 4),)),
    ("linear-1d", lambda m: m.nn.Linear(4, 3), (rand(4),)),
    ("bilinear", lambda m: m.nn.Bilinear(4, 3, 2), (rand(5, 4), rand(5, 3))),
    ("bilinear-nobias-3d", lambda m: m.nn.Bilinear(4, 3, 2, bias=False), (rand(2, 5, 4), rand(2, 5, 3))),
    ("identity", lambda m: m.nn.Identity(54, unused="x"), (rand(2, 3),)),
    ("flatten", lambda m: m.nn.Flatten(), (rand(2, 3, 4, 5),)),
    ("flatten-range", lambda m: m.nn.Flatten(0, 2), (rand(2, 3, 4, 5),)),
    ("unflatten", lambda m: m.nn.Unflatten(1, (2, 6)), (rand(3, 12, 2),)),
    ("conv1d", lambda m: m.nn.Conv1d(3, 4, 3, stride=2, padding=1), (rand(2, 3, 9),)),
    ("conv2d", lambda m: m.nn.Conv2d(2, 4, 3), (rand(2, 2, 7, 6),)),
    ("conv2d-groups-dil", lambda m: m.nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2),
                                               groups=2), (rand(2, 4, 8, 7),)),
    ("conv2d-same", lambda m: m.nn.Conv2d(2, 3, 4, padding="same", bias=False), (rand(1, 2, 6, 5),)),
    ("conv2d-valid", lambda m: m.nn.Conv2d(2, 3, 3, padding="valid"), (rand(1, 2, 6, 5),)),
    ("conv2d-reflect", lambda m: m.nn.Conv2d(2, 3, 3, padding=1, padding_mode="reflect"), (rand(2, 2, 5, 6),)),
    ("conv2d-replicate", lambda m: m.nn.Conv2d(2, 3, 3, padding=(2, 1), padding_mode="replicate"),
     (rand(2, 2, 5, 6),)),
    ("conv2d-circular", lambda m: m.nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular"), (rand(2, 2, 5, 6),)),
    ("conv1d-circular", lambda m: m.nn.Conv1d(2, 3, 3, padding=2, padding_mode="circular"), (rand(2, 2, 7),)),
    ("conv3d", lambda m: m.nn.Conv3d(2, 3, 2, padding=1), (rand(1, 2, 4, 3, 4),)),
    ("convT1d", lambda m: m.nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1), (rand(2, 3, 5),)),
    ("convT2d", lambda m: m.nn.ConvTranspose2d(4, 2, 3, stride=2, groups=2), (rand(2, 4, 4, 3),)),
    ("maxpool1d", lambda m: m.nn.MaxPool1d(3, 2, padding=1), (rand(2, 3, 9),)),
    ("maxpool2d", lambda m: m.nn.MaxPool2d(2), (rand(2, 3, 6, 7),)),
    ("maxpool2d-ceil", lambda m: m.nn.MaxPool2d(3, 2, ceil_mode=True), (rand(1, 2, 7, 8),)),
    ("maxpool2d-indices", lambda m: m.nn.MaxPool2d(2, return_indices=True), (rand(1, 2, 4, 6),)),
    ("avgpool1d", lambda m: m.nn.AvgPool1d(3, 2, padding=1), (rand(2, 3, 9),)),
    ("avgpool2d", lambda m: m.nn.AvgPool2d(2), (rand(2, 3, 6, 7),)),
    ("avgpool2d-nopad-count", lambda m: m.nn.AvgPool2d(3, 2, padding=1, count_include_pad=False),
     (rand(2, 3, 6, 7),)),
    ("adaptive-avg1d", lambda m: m.nn.AdaptiveAvgPool1d(4), (rand(2, 3, 10),)),
    ("adaptive-avg2d", lambda m: m.nn.AdaptiveAvgPool2d((3, 2)), (rand(2, 3, 7, 5),)),
    ("adaptive-max2d", lambda m: m.nn.AdaptiveMaxPool2d(3), (rand(2, 3, 7, 5),)),
    ("batchnorm1d", lambda m: m.nn.BatchNorm1d(3), (rand(5, 3),)),
    ("batchnorm1d-3d", lambda m: m.nn.BatchNorm1d(3, momentum=0.3), (rand(4, 3, 6),)),
    ("batchnorm2d", lambda m: m.nn.BatchNorm2d(3), (rand(4, 3, 5, 5),)),
    ("batchnorm2d-noaffine", lambda m: m.nn.BatchNorm2d(3, affine=False), (rand(4, 3, 5, 5),)),
    ("batchnorm2d-nostats", lambda m: m.nn.BatchNorm2d(3, track_running_stats=False), (rand(4, 3, 5, 5),)),
    ("batchnorm2d-nobias", lambda m: m.nn.BatchNorm2d(3, bias=False), (rand(4, 3, 5, 5),)),
    ("groupnorm-nobias", lambda m: m.nn.GroupNorm(2, 4, bias=False), (rand(3, 4, 5),)),
    ("layernorm", lambda m: m.nn.LayerNorm(6), (rand(3, 4, 6),)),
    ("layernorm-2d-nobias", lambda m: m.nn.LayerNorm((4, 6), bias=False), (rand(3, 4, 6),)),
    ("layernorm-noaffine", lambda m: m.nn.LayerNorm(6, elementwise_affine=False), (rand(3, 6),)),
    ("groupnorm", lambda m: m.nn.GroupNorm(2, 4), (rand(3, 4, 5, 2),)),
    ("rmsnorm", lambda m: m.nn.RMSNorm(6), (rand(3, 4, 6),)),
    ("rmsnorm-eps", lambda m: m.nn.RMSNorm((4, 6), eps=1e-3), (rand(3, 4, 6),)),
    ("dropout-eval", lambda m: m.nn.Dropout(0.3), (rand(4, 5),)),
    ("dropout2d-eval", lambda m: m.nn.Dropout2d(0.3), (rand(2, 4, 5, 3),)),
    ("embedding", lambda m: m.nn.Embedding(10, 3), (randint(0, 10, 4, 5),)),
    ("embedding-pad", lambda m: m.nn.Embedding(10, 3, padding_idx=2), (np.array([[2, 1, 2], [3, 9, 2]]),)),
    ("prelu", lambda m: m.nn.PReLU(), (rand(3, 4),)),
    ("prelu-channels", lambda m: m.nn.PReLU(4, init=0.1), (rand(3, 4, 5),)),
]

ACTIVATIONS = [
    ("ReLU", ()), ("ReLU6", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.7,)), ("SELU", ()), ("CELU", (0.5,)),
    ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()), ("Sigmoid", ()), ("Tanh", ()),
    ("Hardtanh", (-0.5, 2.0)), ("Hardswish", ()), ("Hardsigmoid", ()), ("Softplus", (2.0, 1.5)),
    ("Softmax", (1,)), ("LogSoftmax", (1,)), ("Softmin", (0,)), ("Threshold", (0.1, -2.0)), ("LogSigmoid", ()),
    ("Softsign", ()), ("Tanhshrink", ()), ("Hardshrink", (0.7,)), ("Softshrink", (0.3,)), ("GLU", ()),
    ("Softmax2d", ()),
]

LOSSES = [
    ("MSELoss", {}, lambda: (rand(4, 3), rand(4, 3))),
    ("MSELoss", {"reduction": "sum"}, lambda: (rand(4, 3), rand(4, 3))),
    ("L1Loss", {"reduction": "none"}, lambda: (rand(4, 3), rand(4, 3))),
    ("SmoothL1Loss", {"beta": 0.5}, lambda: (rand(4, 3), rand(4, 3))),
    ("HuberLoss", {"delta": 0.4}, lambda: (rand(4, 3), rand(4, 3))),
    ("CrossEntropyLoss", {}, lambda: (rand(5, 4), randint(0, 4, 5))),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "ignore_index": 1}, lambda: (rand(5, 4), randint(0, 4, 5))),
    ("CrossEntropyLoss", {"reduction": "sum"}, lambda: (rand(2, 4, 3), randint(0, 4, 2, 3))),
    ("NLLLoss", {}, lambda: (rand(5, 4), randint(0, 4, 5))),
    ("BCELoss", {}, lambda: (rand(4, 3, low=0.05, high=0.95), rand(4, 3, low=0.0, high=1.0))),
    ("BCEWithLogitsLoss", {}, lambda: (rand(4, 3), rand(4, 3, low=0.0, high=1.0))),
    ("KLDivLoss", {"reduction": "batchmean"}, lambda: (rand(4, 3, low=-3, high=-0.1), rand(4, 3, low=0.1, high=1))),
    ("KLDivLoss", {"log_target": True}, lambda: (rand(4, 3, low=-3, high=-0.1), rand(4, 3, low=-3, high=-0.1))),
    ("CosineEmbeddingLoss", {"margin": 0.1},
     lambda: (rand(5, 4), rand(5, 4), np.array([1, -1, 1, -1, 1], dtype=np.int64))),
    ("MarginRankingLoss", {"margin": 0.2}, lambda: (rand(6), rand(6), np.array([1., -1., 1., 1., -1., -1.],
                                                                                 dtype=np.float32))),
    ("TripletMarginLoss", {"margin": 0.5}, lambda: (rand(5, 4), rand(5, 4), rand(5, 4))),
    ("TripletMarginLoss", {"p": 1.0, "swap": True}, lambda: (rand(5, 4), rand(5, 4), rand(5, 4))),
]


@pytest.mark.parametrize("name,make,inputs", LAYERS, ids=[c[0] for c in LAYERS])
def test_layer_matches_torch(name, make, inputs, device):
    check_layer(make, *inputs, device=device, train=not name.endswith("-eval"), **F32)


@pytest.mark.parametrize("name,make,inputs", [c for c in LAYERS if c[0].startswith("batchnorm")],
                         ids=[c[0] for c in LAYERS if c[0].startswith("batchnorm")])
def test_batchnorm_eval_after_training(name, make, inputs, device):
    ours, theirs = check_layer(make, *inputs, device=device, steps=3, **F32)
    ours.eval()
    theirs.eval()
    x = rand(*inputs[0].shape)
    np.testing.assert_allclose(ours(webtorch.tensor(x, device=device)).detach().cpu().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), atol=1e-5, rtol=1e-4)


def test_batchnorm_cumulative_momentum(device):
    ours, theirs = check_layer(lambda m: m.nn.BatchNorm1d(3, momentum=None), rand(6, 3), device=device, steps=4)
    assert int(ours.num_batches_tracked) == 4


def test_batchnorm_eval_mode_uses_running_stats(device):
    check_layer(lambda m: m.nn.BatchNorm2d(3), rand(2, 3, 4, 4), device=device, train=False)


def test_dropout_training_scales_and_zeros(device):
    d = webtorch.nn.Dropout(0.25)
    x = webtorch.ones(200, 50, device=device)
    y = d(x).cpu().numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.03
    d.eval()
    assert d(x) is x or np.array_equal(d(x).cpu().numpy(), x.cpu().numpy())


def test_dropout2d_zeros_whole_channels(device):
    y = webtorch.nn.Dropout2d(0.5)(webtorch.ones(8, 16, 3, 3, device=device)).cpu().numpy()
    per_channel = y.reshape(8, 16, 9)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))


@pytest.mark.parametrize("name,args", ACTIVATIONS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ACTIVATIONS)])
def test_activation_module(name, args, device):
    check_layer(lambda m: getattr(m.nn, name)(*args), rand(2, 4, 3, 2, low=-3, high=3), device=device, **F32)
    assert repr(getattr(webtorch.nn, name)(*args)) == repr(getattr(torch.nn, name)(*args))


@pytest.mark.parametrize("name", ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "SiLU", "Mish", "Hardtanh",
                                  "Hardswish", "Threshold"])
def test_inplace_activation(name, device):
    args = (0.1, -2.0) if name == "Threshold" else ()
    layer = getattr(webtorch.nn, name)(*args, inplace=True)
    assert repr(layer) == repr(getattr(torch.nn, name)(*args, inplace=True))
    x = rand(3, 4, low=-3, high=3)
    w = webtorch.tensor(x, device=device)
    out = layer(w)
    expected = getattr(torch.nn, name)(*args)(torch.tensor(x)).numpy()
    np.testing.assert_allclose(w.cpu().numpy(), expected, atol=1e-6, rtol=1e-5)
    assert out is w


@pytest.mark.parametrize("name,kw,inputs", LOSSES, ids=[f"{c[0]}-{i}" for i, c in enumerate(LOSSES)])
def test_loss_module(name, kw, inputs, device):
    check_layer(lambda m: getattr(m.nn, name)(**kw), *inputs(), device=device, **F32)


def test_weighted_losses(device):
    w = rand(4, low=0.2, high=2.0)
    check_layer(lambda m: m.nn.CrossEntropyLoss(weight=m.tensor(w)), rand(5, 4), randint(0, 4, 5), device=device)
    check_layer(lambda m: m.nn.NLLLoss(weight=m.tensor(w)), rand(5, 4), randint(0, 4, 5), device=device)
    pw = rand(3, low=0.5, high=3.0)
    check_layer(lambda m: m.nn.BCEWithLogitsLoss(pos_weight=m.tensor(pw)), rand(4, 3), rand(4, 3, low=0, high=1),
                device=device)
    check_layer(lambda m: m.nn.BCELoss(weight=m.tensor(rand(4, 3, low=0.1, high=1))),
                rand(4, 3, low=0.05, high=0.95), rand(4, 3, low=0, high=1), device=device)
    # weight and pos_weight are buffers, as in PyTorch
    assert [k for k, _ in webtorch.nn.BCEWithLogitsLoss(pos_weight=webtorch.ones(3)).named_buffers()] == ["pos_weight"]


INIT_CASES = [
    ("linear", lambda m: m.nn.Linear(300, 200)),
    ("bilinear", lambda m: m.nn.Bilinear(30, 20, 40)),
    ("conv1d", lambda m: m.nn.Conv1d(16, 32, 5)),
    ("conv2d", lambda m: m.nn.Conv2d(16, 32, 3)),
    ("conv3d", lambda m: m.nn.Conv3d(4, 16, 3)),
    ("convT2d", lambda m: m.nn.ConvTranspose2d(32, 16, 3, groups=2)),
    ("embedding", lambda m: m.nn.Embedding(300, 20)),
    ("batchnorm", lambda m: m.nn.BatchNorm2d(50)),
    ("layernorm", lambda m: m.nn.LayerNorm(50)),
    ("groupnorm", lambda m: m.nn.GroupNorm(5, 50)),
    ("rmsnorm", lambda m: m.nn.RMSNorm(50)),
    ("prelu", lambda m: m.nn.PReLU(50)),
]


@pytest.mark.parametrize("name,make", INIT_CASES, ids=[c[0] for c in INIT_CASES])
def test_default_init_distribution(name, make):
    check_default_init(make)


def test_embedding_padding_row_is_zero_and_gets_no_grad():
    e = webtorch.nn.Embedding(6, 4, padding_idx=-2)
    assert e.padding_idx == 4
    assert not np.any(e.weight.detach().numpy()[4])
    e(webtorch.tensor([[4, 1], [4, 4]])).sum().backward()
    assert not np.any(e.weight.grad.numpy()[4])
    assert repr(e) == "Embedding(6, 4, padding_idx=4)"


def test_embedding_from_pretrained_and_max_norm():
    w = rand(5, 3, low=-2, high=2)
    ours = webtorch.nn.Embedding.from_pretrained(webtorch.tensor(w), max_norm=1.0)
    theirs = torch.nn.Embedding.from_pretrained(torch.tensor(w), max_norm=1.0)
    assert not ours.weight.requires_grad
    idx = np.array([0, 2, 2, 4])
    np.testing.assert_allclose(ours(webtorch.tensor(idx)).numpy(), theirs(torch.tensor(idx)).numpy(), rtol=1e-5)
    # max_norm renormalizes the looked-up rows of the weight in place
    np.testing.assert_allclose(ours.weight.numpy(), theirs.weight.detach().numpy(), rtol=1e-5)
    trainable = webtorch.nn.Embedding.from_pretrained(webtorch.tensor(w), freeze=False)
    assert trainable.weight.requires_grad


REPRS = [
    lambda m: m.nn.Linear(3, 2, bias=False),
    lambda m: m.nn.Bilinear(3, 2, 4),
    lambda m: m.nn.Conv2d(2, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False, padding_mode="reflect"),
    lambda m: m.nn.Conv1d(2, 4, 3, padding="same"),
    lambda m: m.nn.ConvTranspose2d(4, 2, 3, stride=2, output_padding=1),
    lambda m: m.nn.MaxPool2d(3, 2, 1),
    lambda m: m.nn.MaxPool1d(2),
    lambda m: m.nn.AvgPool1d(3),
    lambda m: m.nn.AvgPool2d((2, 3)),
    lambda m: m.nn.AdaptiveAvgPool2d((5, 7)),
    lambda m: m.nn.AdaptiveMaxPool2d(2),
    lambda m: m.nn.BatchNorm1d(5, momentum=None),
    lambda m: m.nn.LayerNorm((3, 4)),
    lambda m: m.nn.GroupNorm(2, 4),
    lambda m: m.nn.GroupNorm(2, 4, bias=False),
    lambda m: m.nn.BatchNorm2d(4, bias=False),
    lambda m: m.nn.LayerNorm(4, bias=False),
    lambda m: m.nn.RMSNorm(4),
    lambda m: m.nn.Dropout(0.2),
    lambda m: m.nn.Dropout2d(),
    lambda m: m.nn.Embedding(10, 3, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True),
    lambda m: m.nn.Flatten(),
    lambda m: m.nn.Unflatten(1, (2, 3)),
    lambda m: m.nn.Identity(),
    lambda m: m.nn.PReLU(3),
    lambda m: m.nn.CrossEntropyLoss(),
]


@pytest.mark.parametrize("make", REPRS, ids=[str(i) for i in range(len(REPRS))])
def test_layer_repr(make):
    assert repr(make(webtorch)) == repr(make(torch))


ERRORS = [
    lambda m: m.nn.Conv2d(3, 4, 3, groups=2),
    lambda m: m.nn.Conv2d(4, 3, 3, groups=2),
    lambda m: m.nn.Conv2d(4, 4, 3, groups=0),
    lambda m: m.nn.Conv2d(4, 4, 3, padding="full"),
    lambda m: m.nn.Conv2d(4, 4, 3, padding="same", stride=2),
    lambda m: m.nn.Conv2d(4, 4, 3, padding_mode="mirror"),
    lambda m: m.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
    lambda m: m.nn.GroupNorm(3, 4),
    lambda m: m.nn.Dropout(1.5),
    lambda m: m.nn.BatchNorm2d(3)(m.zeros(2, 3)),
    lambda m: m.nn.BatchNorm1d(3)(m.zeros(2, 3, 4, 5)),
    lambda m: m.nn.Linear(4, 3)(m.zeros(1, 5)),
    lambda m: m.nn.Linear(4, 3)(m.zeros(2, 6, 5)),
    lambda m: m.nn.Bilinear(4, 3, 2)(m.zeros(2, 5), m.zeros(2, 3)),
    lambda m: m.nn.Bilinear(4, 3, 2)(m.zeros(2, 4), m.zeros(3, 3)),
    lambda m: m.nn.TripletMarginLoss(margin=0.0),
]


@pytest.mark.parametrize("make", ERRORS, ids=[str(i) for i in range(len(ERRORS))])
def test_layer_errors_match_torch(make):
    try:
        make(torch)
    except Exception as e:  # noqa: BLE001
        t_exc = e
    else:
        raise AssertionError("torch did not raise")
    with pytest.raises(type(t_exc)) as info:
        make(webtorch)
    assert _unordered_sets(str(info.value)) == _unordered_sets(str(t_exc))


def _unordered_sets(msg):
    """PyTorch prints Python sets ({'zeros', ...}) whose order changes from run to run."""
    return re.sub(r"\{([^}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", msg)


def test_wrong_feature_size_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(1x5 and 4x3\)"):
        webtorch.nn.Linear(4, 3)(webtorch.zeros(1, 5))


def test_conv_transpose_output_size(device):
    check_layer(lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=2), rand(1, 2, 4, 4), device=device,
                call=lambda layer, x: layer(x, output_size=[10, 10]))
    with pytest.raises(ValueError, match="requested an output size of"):
        webtorch.nn.ConvTranspose2d(2, 3, 3, stride=2)(webtorch.zeros(1, 2, 4, 4), output_size=[12, 12])


def test_factory_kwargs_dtype():
    layer = webtorch.nn.Linear(3, 2, dtype=webtorch.float64)
    assert layer.weight.dtype == webtorch.float64 and layer.bias.dtype == webtorch.float64
    bn = webtorch.nn.BatchNorm1d(3, dtype=webtorch.float64)
    assert bn.running_mean.dtype == webtorch.float64 and bn.num_batches_tracked.dtype == webtorch.int64
