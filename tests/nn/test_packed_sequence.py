"""torch.nn.utils.rnn against PyTorch: PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence,
unpad_sequence, pack_sequence, unpack_sequence (values, gradients, batch_sizes on the host, PyTorch's errors),
and RNN/LSTM/GRU fed a PackedSequence (packed output, each sequence's final state, every gradient)."""
import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_layer
from optest import check, check_error, rand


def R(m):
    return m.nn.utils.rnn


def _lengths(m, lengths, as_tensor):
    return m.tensor(lengths) if as_tensor else list(lengths)


@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 3, 1], True), ([2, 5, 1, 4], False),
                                                    ([3, 3, 5, 3], False), ([5], True)])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_pack_padded_sequence(device, lengths, enforce_sorted, batch_first, as_tensor):
    b = len(lengths)
    shape = (b, 6, 3) if batch_first else (6, b, 3)
    out = check(lambda m, x: R(m).pack_padded_sequence(x, _lengths(m, lengths, as_tensor), batch_first,
                                                       enforce_sorted), rand(*shape), device=device)
    assert isinstance(out, R(webtorch).PackedSequence)
    assert out.batch_sizes.device.type == "cpu" and out.batch_sizes.dtype is webtorch.int64
    if not enforce_sorted:
        assert out.sorted_indices.device.type == device and out.unsorted_indices.device.type == device


@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 3, 1], True), ([2, 5, 1, 4], False)])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("kw", [{}, {"padding_value": -2.5}, {"total_length": 8}])
def test_pad_packed_sequence_round_trip(device, lengths, enforce_sorted, batch_first, kw):
    b = len(lengths)
    shape = (b, 5, 2, 3) if batch_first else (5, b, 2, 3)

    def fn(m, x):
        packed = R(m).pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
        return R(m).pad_packed_sequence(packed, batch_first, **kw)
    padded, lens = check(fn, rand(*shape), device=device)
    assert lens.device.type == "cpu" and lens.dtype is webtorch.int64


def test_pad_packed_sequence_integer_data(device):
    check(lambda m, x: R(m).pad_packed_sequence(R(m).pack_padded_sequence(x, [2, 3, 1], enforce_sorted=False),
                                                padding_value=-1), np.arange(12).reshape(3, 4), device=device)


@pytest.mark.parametrize("kw", [{}, {"batch_first": True}, {"padding_value": 7.0},
                                {"padding_side": "left", "batch_first": True}, {"padding_side": "left"}])
def test_pad_sequence(device, kw):
    check(lambda m, seqs: R(m).pad_sequence(seqs, **kw), [rand(3, 2), rand(5, 2), rand(1, 2)], device=device)
    check(lambda m, seqs: R(m).pad_sequence(seqs, **kw), [rand(4), rand(2)], device=device)


def test_pad_sequence_of_a_tensor_and_mixed_dtypes(device):
    # a Tensor is a sequence of its rows; the result takes the first sequence's dtype
    check(lambda m, x: R(m).pad_sequence(x), rand(3, 4), device=device)
    check(lambda m, a, b: R(m).pad_sequence([a, b.to(m.int64)]), rand(2, 3), rand(3, 3) * 5, device=device)
    check(lambda m, a, b: R(m).pad_sequence([a, b]), rand(2, 3), rand(3, 1), device=device)  # broadcast


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(device, batch_first):
    shape = (3, 5, 2) if batch_first else (5, 3, 2)
    # (x * 1: PyTorch transposes a time-major input in place, which a leaf that requires grad refuses)
    check(lambda m, x: R(m).unpad_sequence(x * 1, m.tensor([5, 2, 4]), batch_first), rand(*shape), device=device)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_and_unpack_sequence(device, enforce_sorted):
    seqs = [rand(4, 3), rand(3, 3), rand(1, 3)] if enforce_sorted else [rand(2, 3), rand(4, 3), rand(3, 3)]
    check(lambda m, s: R(m).pack_sequence(s, enforce_sorted), seqs, device=device)
    check(lambda m, s: R(m).unpack_sequence(R(m).pack_sequence(s, enforce_sorted)), seqs, device=device)


def test_packed_sequence_is_a_named_tuple_with_tensor_methods(device):
    seqs = [webtorch.tensor(rand(2, 3), device=device), webtorch.tensor(rand(4, 3), device=device)]
    p = R(webtorch).pack_sequence(seqs, enforce_sorted=False)
    assert p._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")
    data, batch_sizes, sorted_indices, unsorted_indices = p
    assert batch_sizes.tolist() == [2, 2, 1, 1]
    assert sorted_indices.tolist() == [1, 0] and unsorted_indices.tolist() == [1, 0]
    assert p.is_cuda is False
    assert p.to(device) is p
    h = p.half() if device == "cpu" else p.float()
    assert isinstance(h, R(webtorch).PackedSequence) and h.batch_sizes is p.batch_sizes
    assert p.long().data.dtype is webtorch.int64 and p.int().data.dtype is webtorch.int32
    c = p.cpu()
    assert c.data.device.type == "cpu" and c.sorted_indices.device.type == "cpu"
    np.testing.assert_array_equal(c.data.numpy(), data.cpu().numpy())
    if device == "cpu":
        assert p.double().data.dtype is webtorch.float64
        assert p.to("cpu", dtype=webtorch.float64).data.dtype is webtorch.float64
    else:
        moved = c.to(device)
        assert moved.data.device.type == device and moved.unsorted_indices.device.type == device
    with pytest.raises(RuntimeError, match="webgpu"):
        p.cuda()
    # built from (data, batch_sizes) and a sorted_indices alone: unsorted_indices is its inverse
    q = R(webtorch).PackedSequence((data, batch_sizes), sorted_indices=webtorch.tensor([2, 0, 1], device=device))
    assert q.data is data and q.unsorted_indices.tolist() == [1, 2, 0]
    if device != "cpu":
        with pytest.raises(ValueError, match="batch_sizes should always be on CPU"):
            R(webtorch).PackedSequence(data, batch_sizes.to(device))


def test_invert_permutation(device):
    check(lambda m, p: R(m).invert_permutation(p), np.array([3, 0, 4, 1, 2]), device=device)
    assert R(webtorch).invert_permutation(None) is None


@pytest.mark.parametrize("fn,args,match", [
    (lambda m, x: R(m).pack_padded_sequence(x, [3, 4, 1]), (rand(4, 3, 2),),
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True"),
    (lambda m, x: R(m).pack_padded_sequence(x, [4, 3, 0]), (rand(4, 3, 2),),
     "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"),
    (lambda m, x: R(m).pack_padded_sequence(x, [2, 0, 3], enforce_sorted=False), (rand(4, 3, 2),),
     "Length of all samples has to be greater than 0"),
    (lambda m, x: R(m).pack_padded_sequence(x, [4, 3]), (rand(4, 3, 2),),
     "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"),
    (lambda m, x: R(m).pack_padded_sequence(x, m.tensor([[4, 3, 1]])), (rand(4, 3, 2),),
     "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"),
    (lambda m, x: R(m).pad_packed_sequence(R(m).pack_padded_sequence(x, [3, 2, 1]), total_length=2),
     (rand(4, 3, 2),), "Expected total_length to be at least the length of the longest sequence in input, but got "
                       "total_length=2 and max sequence length being 3"),
    (lambda m, a, b: R(m).pad_sequence([a, b]), (rand(2, 3), rand(3, 2)),
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    (lambda m: R(m).pad_sequence([]), (), "received an empty list of sequences"),
    (lambda m, a: R(m).pad_sequence([a], padding_side="middle"), (rand(2, 3),),
     "Expected padding_side to be one of left or right, but got middle."),
    (lambda m, x: R(m).PackedSequence(x), (rand(3),), "Expected data to be a list or tuple of length 2"),
])
def test_errors(device, fn, args, match):
    check_error(fn, *args, device=device, match=match)


def test_lengths_longer_than_the_input_raise(device):
    # (PyTorch 2.13 reads past the input here instead of raising)
    x = webtorch.tensor(rand(4, 3, 2), device=device)
    with pytest.raises(RuntimeError, match="a length of 5 exceeds the 4 time steps of the input"):
        R(webtorch).pack_padded_sequence(x, [5, 3, 1])


# ---- recurrent layers fed a PackedSequence ---------------------------------------------------------------

def _packed_call(lengths, enforce_sorted=False, batch_first=False, unpack=False):
    """A check_layer call that packs the padded input, runs the layer, and returns the packed output's data
    (or the re-padded output) and the final states."""
    def call(layer, x, *h):
        m = torch if isinstance(layer, torch.nn.Module) else webtorch
        packed = R(m).pack_padded_sequence(x, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
        hx = None if not h else (h[0] if len(h) == 1 else tuple(h))
        out, hidden = layer(packed, hx)
        assert isinstance(out, R(m).PackedSequence)
        assert out.batch_sizes is packed.batch_sizes and out.sorted_indices is packed.sorted_indices
        return (R(m).pad_packed_sequence(out, batch_first)[0] if unpack else out.data), hidden
    return call


@pytest.mark.parametrize("kind,kwargs", [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}),
    ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}),
    ("LSTM", {}), ("LSTM", {"bidirectional": True}), ("LSTM", {"num_layers": 2, "proj_size": 3}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "proj_size": 2, "bias": False}),
])
@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 5, 3, 1], True), ([2, 5, 1, 4], False)])
def test_recurrent_layers_on_packed_input(device, kind, kwargs, lengths, enforce_sorted):
    check_layer(lambda m: getattr(m.nn, kind)(4, 6, **kwargs), rand(5, 4, 4), device=device,
                call=_packed_call(lengths, enforce_sorted))


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_packed_input_with_initial_states_and_batch_first(device, kind):
    layers, d = 2, 2
    states = (rand(layers * d, 3, 5), rand(layers * d, 3, 5)) if kind == "LSTM" else (rand(layers * d, 3, 5),)
    make = lambda m: getattr(m.nn, kind)(4, 5, num_layers=layers, bidirectional=True,  # noqa: E731
                                         batch_first=True)
    check_layer(make, rand(3, 6, 4), *states, device=device,
                call=_packed_call([3, 6, 2], batch_first=True, unpack=True))


def test_packed_equals_running_each_sequence_alone(device):
    """An LSTM's packed output and final states equal running every sequence by itself at its own length."""
    webtorch.manual_seed(0)
    lstm = webtorch.nn.LSTM(3, 4, bidirectional=True).to(device)
    lengths = [2, 5, 3]
    x = webtorch.tensor(rand(5, 3, 3), device=device)
    out, (h, c) = lstm(R(webtorch).pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded, _ = R(webtorch).pad_packed_sequence(out)
    for b, n in enumerate(lengths):
        o1, (h1, c1) = lstm(x[:n, b:b + 1])
        np.testing.assert_allclose(padded[:n, b].detach().cpu().numpy(), o1[:, 0].detach().cpu().numpy(),
                                   rtol=1e-5, atol=1e-6)
        assert not padded[n:, b].detach().cpu().numpy().any()
        np.testing.assert_allclose(h[:, b].detach().cpu().numpy(), h1[:, 0].detach().cpu().numpy(), rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(c[:, b].detach().cpu().numpy(), c1[:, 0].detach().cpu().numpy(), rtol=1e-5,
                                   atol=1e-6)


def test_packed_forward_reads_nothing_from_the_device(device):
    if device == "cpu":
        return
    from webgpu_counts import counted
    lstm = webtorch.nn.LSTM(3, 4, num_layers=2, bidirectional=True).to(device)
    x = webtorch.tensor(rand(5, 3, 3), device=device)

    def run():
        packed = R(webtorch).pack_padded_sequence(x, [2, 5, 3], enforce_sorted=False)
        out, (h, c) = lstm(packed)
        return R(webtorch).pad_packed_sequence(out)[0], h
    _, cost = counted(run, keys=("readbacks", "host_fallbacks"))
    assert cost == {"readbacks": 0, "host_fallbacks": 0}, cost


@pytest.mark.parametrize("fn,match", [
    (lambda m, layer, x: layer(R(m).pack_padded_sequence(x, [3, 2, 1]), m.zeros(1, 2, 6)),
     "Expected hidden size (1, 3, 6), got [1, 2, 6]"),
    (lambda m, layer, x: layer(R(m).PackedSequence(x[:, :, :3].reshape(-1, 3), m.tensor([3, 3, 3, 3]))),
     "input.size(-1) must be equal to input_size. Expected 4, got 3"),
])
def test_packed_errors(device, fn, match):
    theirs, ours = torch.nn.GRU(4, 6), webtorch.nn.GRU(4, 6).to(device)
    x = rand(4, 3, 4)
    with pytest.raises(RuntimeError) as t_err:
        fn(torch, theirs, torch.tensor(x))
    with pytest.raises(RuntimeError) as w_err:
        fn(webtorch, ours, webtorch.tensor(x, device=device))
    assert match in str(t_err.value) and match in str(w_err.value), (t_err.value, w_err.value)
