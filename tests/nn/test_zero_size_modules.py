"""Layers given an input with a zero-size dim, as PyTorch 2.13 runs them (issue 21 section 2, the bad-input sweep's
zero-size classes): outputs, buffers (a batch norm of no element leaves its running statistics alone but counts the
batch) and every gradient; the layers PyTorch refuses an empty dim with raise its exception type."""
import pytest

from layercheck import check_layer
from optest import check_error, rand

# (id, maker, input shape, train)
LAYERS = [
    ("batchnorm1d-no-channel", lambda m: m.nn.BatchNorm1d(3), (2, 0, 4), True),
    ("batchnorm1d-empty-batch", lambda m: m.nn.BatchNorm1d(3), (0, 3, 4), True),
    ("batchnorm1d-2d-empty-batch-eval", lambda m: m.nn.BatchNorm1d(3), (0, 3), False),
    ("batchnorm2d-no-channel", lambda m: m.nn.BatchNorm2d(3), (2, 0, 4, 4), True),
    ("batchnorm3d-no-channel", lambda m: m.nn.BatchNorm3d(3), (2, 0, 4, 4, 4), True),
    ("batchnorm3d-empty-batch-eval", lambda m: m.nn.BatchNorm3d(3), (0, 3, 2, 2, 2), False),
    ("batchnorm1d-momentum-none-empty", lambda m: m.nn.BatchNorm1d(3, momentum=None), (0, 3, 4), True),
    ("groupnorm-empty-batch", lambda m: m.nn.GroupNorm(3, 3, 2.0), (0, 3, 4), True),
    ("groupnorm-empty-group", lambda m: m.nn.GroupNorm(3, 3), (2, 3, 0), True),
    ("adaptiveavgpool2d-empty-batch", lambda m: m.nn.AdaptiveAvgPool2d(3), (0, 3, 4, 4), True),
    ("convtranspose3d-empty-batch", lambda m: m.nn.ConvTranspose3d(3, 3, 2), (0, 3, 2, 2, 2), True),
]


@pytest.mark.parametrize("name,make,shape,train", LAYERS, ids=[c[0] for c in LAYERS])
def test_zero_size_layer_matches_torch(name, make, shape, train, device):
    ours, _ = check_layer(make, rand(*shape), device=device, train=train, steps=2)
    if name.startswith("batchnorm") and train:
        assert int(ours.num_batches_tracked) == 2


def _attend(layer, q, k, v):
    return layer(q, k, v)


@pytest.mark.parametrize("shapes,kw", [
    (((0, 2, 4), (0, 2, 4), (0, 2, 4)), {}),
    (((3, 2, 4), (0, 2, 4), (0, 2, 4)), {}),
    (((3, 0, 4), (3, 0, 4), (3, 0, 4)), {}),
    (((2, 0, 4), (2, 0, 4), (2, 0, 4)), {"batch_first": True}),
    (((0, 2, 4), (3, 2, 4), (3, 2, 4)), {"need_weights": False}),
], ids=["no-target-no-source", "no-source", "empty-batch", "batch-first-no-target", "no-target-fast-path"])
def test_multihead_attention_of_an_empty_sequence_or_batch(shapes, kw, device):
    need = kw.pop("need_weights", True)
    check_layer(lambda m: m.nn.MultiheadAttention(4, 2, **kw), *[rand(*s) for s in shapes], device=device,
                call=lambda layer, q, k, v: layer(q, k, v, need_weights=need)[0 if not need else slice(None)])


@pytest.mark.parametrize("make,shape", [(lambda m: m.nn.GRU(3, 2), (0, 3)), (lambda m: m.nn.LSTM(3, 2), (0, 1, 3)),
                                        (lambda m: m.nn.RNN(3, 2, batch_first=True), (2, 0, 3))],
                         ids=["gru-unbatched", "lstm", "rnn-batch-first"])
def test_recurrent_layer_refuses_an_empty_sequence(make, shape, device):
    check_error(lambda m, x: make(m).to(x.device)(x), rand(*shape), device=device,
                match="Expected sequence length to be larger than 0 in RNN")


def test_recurrent_layer_of_an_empty_batch(device):
    check_layer(lambda m: m.nn.LSTM(3, 2, num_layers=2), rand(4, 0, 3), device=device)


# outputs only: PyTorch's backward refuses their empty channel dim (tests/ops/test_zero_size_inputs.py)
@pytest.mark.parametrize("make,shape", [(lambda m: m.nn.AdaptiveAvgPool1d(3), (2, 0, 4)),
                                        (lambda m: m.nn.AdaptiveAvgPool2d(3), (2, 0, 4, 4))])
def test_adaptive_avg_pool_of_no_channel(make, shape, device):
    check_layer(make, rand(*shape), device=device, grad=False)


@pytest.mark.parametrize("make,shape,match", [
    (lambda m: m.nn.ConvTranspose3d(3, 3, 2), (2, 3, 0, 4, 4), "Only zero batch or zero channel inputs"),
    (lambda m: m.nn.ConvTranspose3d(3, 3, 2), (3, 4, 0, 4), "Only zero batch or zero channel inputs"),
    (lambda m: m.nn.ConvTranspose2d(3, 3, 2), (2, 3, 4, 0), "Only zero batch or zero channel inputs"),
    (lambda m: m.nn.ConvTranspose1d(3, 3, 2), (3, 0), "Only zero batch or zero channel inputs"),
    (lambda m: m.nn.ConvTranspose3d(3, 3, 2), (2, 0, 4, 4, 4), "to have 3 channels, but got 0 channels"),
    (lambda m: m.nn.GroupNorm(3, 3), (1, 3), "Expected more than 1 value per channel when training"),
    (lambda m: m.nn.AdaptiveMaxPool2d(3), (2, 0, 4, 4), "with dimension 1 being empty"),
], ids=["convT3d-depth", "convT3d-unbatched", "convT2d-width", "convT1d-unbatched", "convT3d-no-channel",
        "groupnorm-one-value", "adaptivemaxpool2d-no-channel"])
def test_zero_size_layer_refused_as_torch(make, shape, match, device):
    check_error(lambda m, x: make(m).to(x.device)(x), rand(*shape), device=device, match=match)
