"""RNN/LSTM/GRU and their cells against PyTorch: state_dict layout, outputs and every gradient after loading
PyTorch's weights; default init; initial states, unbatched input, dropout between layers, error messages."""
import warnings

import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_layer, check_default_init
from optest import check_error, rand


def _call(layer, x, *h):
    return layer(x, h[0] if len(h) == 1 else tuple(h)) if h else layer(x)


@pytest.mark.parametrize("kind,kwargs", [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("RNN", {"bias": False}),
    ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True}), ("GRU", {"batch_first": True}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("LSTM", {"proj_size": 3}), ("LSTM", {"num_layers": 3, "proj_size": 2, "bidirectional": True}),
])
def test_recurrent_layers_match_torch(kind, kwargs, device):
    shape = (3, 5, 4) if kwargs.get("batch_first") else (5, 3, 4)
    check_layer(lambda m: getattr(m.nn, kind)(4, 6, **kwargs), rand(*shape), device=device)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_initial_states_and_unbatched_input(kind, device):
    layers, d = 2, 2
    hid = rand(layers * d, 3, 5)
    states = (hid, rand(layers * d, 3, 5)) if kind == "LSTM" else (hid,)
    make = lambda m: getattr(m.nn, kind)(4, 5, num_layers=layers, bidirectional=True)  # noqa: E731
    check_layer(make, rand(6, 3, 4), *states, device=device, call=_call)
    check_layer(make, rand(6, 4), *(s[:, 0] for s in states), device=device, call=_call)
    check_layer(make, rand(6, 4), device=device)


def test_lstm_projection_initial_states(device):
    check_layer(lambda m: m.nn.LSTM(4, 6, proj_size=2, batch_first=True), rand(3, 5, 4), rand(1, 3, 2),
                rand(1, 3, 6), device=device, call=_call)


@pytest.mark.parametrize("kind,kwargs", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
                                         ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", {"bias": False})])
def test_cells_match_torch(kind, kwargs, device):
    make = lambda m: getattr(m.nn, kind)(4, 5, **kwargs)  # noqa: E731
    check_layer(make, rand(3, 4), device=device)
    states = (rand(3, 5), rand(3, 5)) if kind == "LSTMCell" else (rand(3, 5),)
    check_layer(make, rand(3, 4), *states, device=device, call=_call)
    check_layer(make, rand(4), *(s[0] for s in states), device=device, call=_call)


def test_cell_unrolled_equals_layer(device):
    """An LSTMCell stepped by hand gives the LSTM layer's output (same weights)."""
    webtorch.manual_seed(0)
    layer = webtorch.nn.LSTM(3, 4).to(device)
    cell = webtorch.nn.LSTMCell(3, 4).to(device)
    cell.load_state_dict({k[:-3]: v for k, v in layer.state_dict().items()})
    x = webtorch.tensor(rand(5, 2, 3), device=device)
    out, (h, c) = layer(x)
    hx = None
    for t in range(5):
        hx = cell(x[t], hx)
    np.testing.assert_allclose(hx[0].detach().cpu().numpy(), h[0].detach().cpu().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hx[1].detach().cpu().numpy(), c[0].detach().cpu().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda m: m.nn.RNN(4, 6, 2), lambda m: m.nn.LSTM(4, 6, proj_size=2, bidirectional=True),
    lambda m: m.nn.GRU(4, 8), lambda m: m.nn.LSTMCell(4, 6), lambda m: m.nn.GRUCell(3, 7),
])
def test_default_init_matches_torch(make):
    check_default_init(make)


def test_dropout_between_layers(device):
    webtorch.manual_seed(0)
    lstm = webtorch.nn.LSTM(4, 8, num_layers=2, dropout=0.5).to(device)
    x = webtorch.tensor(rand(5, 3, 4), device=device)
    a, _ = lstm(x)
    b, _ = lstm(x)
    assert not np.allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy())  # dropout is drawn anew
    lstm.eval()
    c, _ = lstm(x)
    d, _ = lstm(x)
    np.testing.assert_array_equal(c.detach().cpu().numpy(), d.detach().cpu().numpy())
    # eval mode equals torch (dropout off)
    check_layer(lambda m: m.nn.GRU(4, 5, num_layers=2, dropout=0.3), rand(5, 2, 4), device=device, train=False)


def test_repr_and_attributes():
    for kind, kwargs in [("LSTM", dict(num_layers=2, bidirectional=True, proj_size=2)),
                         ("RNN", dict(num_layers=2, batch_first=True, dropout=0.1, nonlinearity="relu")),
                         ("GRU", dict(bias=False))]:
        ours, theirs = getattr(webtorch.nn, kind)(4, 3, **kwargs), getattr(torch.nn, kind)(4, 3, **kwargs)
        assert repr(ours) == repr(theirs)
        assert ours.num_layers == theirs.num_layers and ours.dropout == theirs.dropout
        assert [[tuple(w.shape) for w in ws] for ws in ours.all_weights] == \
            [[tuple(w.shape) for w in ws] for ws in theirs.all_weights]
    assert repr(webtorch.nn.RNNCell(4, 3, nonlinearity="relu")) == repr(torch.nn.RNNCell(4, 3, nonlinearity="relu"))
    assert repr(webtorch.nn.LSTMCell(4, 3, bias=False)) == repr(torch.nn.LSTMCell(4, 3, bias=False))
    assert webtorch.nn.RNN(4, 3, 1, "relu").nonlinearity == "relu"


def _ctor_error(make):
    """Constructor errors: same type and message as PyTorch."""
    with pytest.raises(Exception) as theirs:
        make(torch)
    with pytest.raises(type(theirs.value), match=None) as ours:
        make(webtorch)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("make", [
    lambda m: m.nn.RNN(4, 3, dropout=2), lambda m: m.nn.GRU(4, 3, proj_size=2),
    lambda m: m.nn.LSTM(4, 3, proj_size=3), lambda m: m.nn.LSTM(4, 3, proj_size=-1),
    lambda m: m.nn.RNN(4, 3, nonlinearity="x"), lambda m: m.nn.RNN(4, 0), lambda m: m.nn.RNN(4, 3.0),
    lambda m: m.nn.RNN(4, 3, 0),
])
def test_constructor_errors(make):
    _ctor_error(make)


def test_dropout_warning():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got "
                                         "dropout=0.5 and num_layers=1"):
        webtorch.nn.GRU(4, 3, dropout=0.5)


@pytest.mark.parametrize("fn,args", [
    (lambda m, x: m.nn.RNN(4, 3)(x), (rand(2, 3, 5),)),
    (lambda m, x: m.nn.RNN(4, 3)(x), (rand(2, 3, 4, 1),)),
    (lambda m, x, h: m.nn.RNN(4, 3)(x, h), (rand(2, 3, 4), rand(1, 2, 3))),
    (lambda m, x, h, c: m.nn.LSTM(4, 3)(x, (h, c)), (rand(2, 3, 4), rand(1, 3, 3), rand(2, 3, 3))),
    (lambda m, x, h: m.nn.RNN(4, 3)(x, h), (rand(2, 4), rand(1, 2, 3))),
    (lambda m, x, h: m.nn.GRU(4, 3)(x, h), (rand(2, 3, 4), rand(3, 3))),
    (lambda m, x, h, c: m.nn.LSTM(4, 3)(x, (h, c)), (rand(2, 3, 4), rand(3, 3), rand(3, 3))),
    (lambda m, x: m.nn.RNNCell(4, 3)(x), (rand(2, 5),)),
    (lambda m, x: m.nn.RNNCell(4, 3)(x), (rand(2, 2, 4),)),
    (lambda m, x, h: m.nn.RNNCell(4, 3)(x, h), (rand(2, 4), rand(3, 3))),
    (lambda m, x, h: m.nn.GRUCell(4, 3)(x, h), (rand(2, 4), rand(2, 2, 3))),
    (lambda m, x, h, c: m.nn.LSTMCell(4, 3)(x, (h, c)), (rand(2, 4), rand(2, 2, 3), rand(2, 3))),
    (lambda m, x, h: m.nn.GRUCell(4, 3)(x, h), (rand(2, 4), rand(2, 4))),
])
def test_forward_errors(fn, args, device):
    with pytest.raises(Exception) as theirs:
        fn(torch, *[torch.tensor(a) for a in args])
    check_error(fn, *args, device=device, match=str(theirs.value))


def test_training_loop_reduces_loss(device):
    """A GRU + Linear learns to sum a sequence with SGD (the layer trains end to end)."""
    webtorch.manual_seed(0)
    gru = webtorch.nn.GRU(1, 8, batch_first=True).to(device)
    head = webtorch.nn.Linear(8, 1).to(device)
    opt = webtorch.optim.Adam(list(gru.parameters()) + list(head.parameters()), lr=0.05)
    x = webtorch.tensor(rand(16, 6, 1), device=device)
    y = x.sum(1)
    losses = []
    for _ in range(40):
        out, h = gru(x)
        loss = webtorch.nn.functional.mse_loss(head(h[0]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with warnings.catch_warnings():
        assert losses[-1] < 0.2 * losses[0]


@pytest.mark.parametrize("c_grad,use_c", [(True, True), (False, True), (True, False)])
def test_fused_lstm_cell_gradients_match_torch(c_grad, use_c, device):
    """The LSTM step's single autograd node: (h', c') and the gradients of gi, gh, c (first and second order)
    against torch autograd through the composed cell."""
    from webtorch.ops.rnn_cell import lstm_cell
    arrays = [rand(3, 8) * 2, rand(3, 8) * 2, rand(3, 2), rand(3, 2), rand(3, 2)]

    def run(m, gi, gh, c, wh, wc):
        if m is torch:
            i, f, g, o = (gi + gh).chunk(4, -1)
            c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
            h2 = o.sigmoid() * c2.tanh()
        else:
            h2, c2 = lstm_cell(gi, gh, c)
        loss = (h2 * wh).sum() + ((c2 * wc).sum() if use_c else 0)
        inputs = [gi, gh, c] if c_grad else [gi, gh]
        grads = m.autograd.grad(loss, inputs, create_graph=True)
        second = m.autograd.grad(sum((gr * gr).sum() for gr in grads), inputs)
        return [h2, c2, *grads, *second]

    def inputs(m, **kw):
        ts = [m.tensor(a, **kw) for a in arrays]
        for t in ts[:3 if c_grad else 2]:
            t.requires_grad_(True)
        return ts

    want = run(torch, *inputs(torch))
    got = run(webtorch, *inputs(webtorch, device=device))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.detach().cpu().numpy(), w.detach().numpy(), rtol=1e-4, atol=1e-5)
