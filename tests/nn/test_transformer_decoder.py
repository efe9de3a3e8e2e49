"""TransformerDecoderLayer, TransformerDecoder and Transformer against PyTorch: state_dict layout, outputs and
every input and parameter gradient (eval mode or dropout 0) with PyTorch's weights loaded; masks, causal
hints, the default init, a few training steps of a small seq2seq model, and the shape errors."""
import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_default_init, check_layer, load_torch_state
from optest import assert_close, check_error, rand, randint

pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")

E, H, FF = 8, 2, 16
T, S, N = 4, 5, 3  # target length, source (memory) length, batch


def _mask(*shape, p=0.3, seed=0):
    m = np.random.default_rng(seed).uniform(size=shape) < p
    m[..., 0] = False  # every query keeps a key: no all-masked rows (NaN in PyTorch)
    return m


def _causal(n, dtype=np.float32):
    if dtype is bool:
        return np.triu(np.ones((n, n), bool), 1)
    return np.triu(np.full((n, n), -np.inf, dtype), 1)


def _seq(length, batch_first, batch=N):
    return rand(batch, length, E) if batch_first else rand(length, batch, E)


def _call(**masks):
    """Call a layer with NumPy masks (None entries dropped) made into tensors of the layer's library; other
    keyword values (the causal hints) are passed as they are."""
    def call(layer, *xs):
        is_torch = isinstance(layer, torch.nn.Module)
        t = (lambda a: torch.tensor(a)) if is_torch else (lambda a: webtorch.tensor(a, device=xs[0].device))
        kw = {k: t(v) if isinstance(v, np.ndarray) else v for k, v in masks.items() if v is not None}
        return layer(*xs, **kw)
    return call


# ---- TransformerDecoderLayer -------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"activation": "gelu"}, {"norm_first": True}, {"batch_first": True},
                                    {"batch_first": True, "norm_first": True, "activation": "gelu"},
                                    {"bias": False, "layer_norm_eps": 1e-3}])
def test_decoder_layer_matches_torch(kwargs, device):
    bf = kwargs.get("batch_first", False)
    check_layer(lambda m: m.nn.TransformerDecoderLayer(E, H, FF, **kwargs), _seq(T, bf), _seq(S, bf),
                device=device, train=False)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_layer_masks(norm_first, batch_first, device):
    call = _call(tgt_mask=_causal(T), memory_mask=_mask(T, S, seed=1), tgt_key_padding_mask=_mask(N, T, seed=2),
                 memory_key_padding_mask=_mask(N, S, seed=3))
    check_layer(lambda m: m.nn.TransformerDecoderLayer(E, H, FF, batch_first=batch_first, norm_first=norm_first),
                _seq(T, batch_first), _seq(S, batch_first), device=device, train=False, call=call)


@pytest.mark.parametrize("masks", [
    dict(tgt_mask=_causal(T), tgt_is_causal=True),  # the hint alone: attention builds the causal mask
    dict(tgt_mask=_causal(T, bool), tgt_is_causal=True, tgt_key_padding_mask=_mask(N, T, seed=4)),
    dict(tgt_mask=rand(T, T), memory_mask=rand(T, S)),  # arbitrary float masks are added to the scores
    dict(memory_mask=_mask(T, S, seed=5), memory_key_padding_mask=_mask(N, S, seed=6).astype(np.float32) * -1e4),
    dict(memory_mask=np.triu(np.full((T, S), -np.inf, np.float32), 1), memory_is_causal=True),
])
def test_decoder_layer_mask_kinds(masks, device):
    check_layer(lambda m: m.nn.TransformerDecoderLayer(E, H, FF), _seq(T, False), _seq(S, False), device=device,
                train=False, call=_call(**masks))


def test_decoder_layer_callable_activation_dropout_zero_training(device):
    check_layer(lambda m: m.nn.TransformerDecoderLayer(E, H, FF, dropout=0.0, activation=m.nn.functional.silu),
                _seq(T, False), _seq(S, False), device=device, train=True, call=_call(tgt_mask=_causal(T)))


def test_decoder_layer_unbatched(device):
    check_layer(lambda m: m.nn.TransformerDecoderLayer(E, H, FF, batch_first=True), rand(T, E), rand(S, E),
                device=device, train=False, call=_call(tgt_mask=_causal(T), memory_key_padding_mask=_mask(S)))


# ---- TransformerDecoder ------------------------------------------------------------------------------------

_NORMS = {"none": lambda m: None, "layernorm": lambda m: m.nn.LayerNorm(E),
          "rmsnorm": lambda m: m.nn.RMSNorm(E, eps=1e-6)}


@pytest.mark.parametrize("norm", list(_NORMS))
@pytest.mark.parametrize("batch_first", [False, True])
def test_decoder_matches_torch(norm, batch_first, device):
    def make(m):
        layer = m.nn.TransformerDecoderLayer(E, H, FF, batch_first=batch_first, norm_first=norm != "none")
        return m.nn.TransformerDecoder(layer, 2, norm=_NORMS[norm](m))
    check_layer(make, _seq(T, batch_first), _seq(S, batch_first), device=device, train=False)
    # the causal float mask is detected (tgt_is_causal=None) and combined with key padding
    call = _call(tgt_mask=_causal(T), tgt_key_padding_mask=_mask(N, T, seed=7),
                 memory_key_padding_mask=_mask(N, S, seed=8))
    check_layer(make, _seq(T, batch_first), _seq(S, batch_first), device=device, train=False, call=call)


def test_decoder_causal_detection_and_hints(device):
    make = lambda m: m.nn.TransformerDecoder(m.nn.TransformerDecoderLayer(E, H, FF), 2)  # noqa: E731
    for masks in (dict(tgt_mask=_causal(T)), dict(tgt_mask=_causal(T, bool)),
                  dict(tgt_mask=_causal(T), tgt_is_causal=True), dict(tgt_mask=_causal(T), tgt_is_causal=False),
                  dict(tgt_mask=_mask(T, T, seed=9)), dict(tgt_mask=_causal(T)[None].repeat(N * H, 0))):
        check_layer(make, _seq(T, False), _seq(S, False), device=device, train=False, call=_call(**masks))


def test_decoder_layers_are_copies_and_training_mode(device):
    webtorch.manual_seed(0)
    layer = webtorch.nn.TransformerDecoderLayer(E, H, FF, dropout=0.5)
    dec = webtorch.nn.TransformerDecoder(layer, 2).to(device)
    assert dec.num_layers == 2 and dec.norm is None
    assert dec.layers[0] is not dec.layers[1] and dec.layers[0].multihead_attn is not layer.multihead_attn
    np.testing.assert_array_equal(dec.layers[1].linear2.weight.detach().cpu().numpy(),
                                  layer.linear2.weight.detach().numpy())
    tgt, mem = (webtorch.tensor(a, device=device) for a in (_seq(T, False), _seq(S, False)))
    a, b = dec(tgt, mem), dec(tgt, mem)
    assert not np.allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    dec.eval()
    np.testing.assert_array_equal(dec(tgt, mem).detach().cpu().numpy(), dec(tgt, mem).detach().cpu().numpy())
    theirs = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(E, H, FF), 2, norm=torch.nn.LayerNorm(E))
    ours = webtorch.nn.TransformerDecoder(layer, 2, norm=webtorch.nn.LayerNorm(E))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]


# ---- Transformer -------------------------------------------------------------------------------------------

def _transformer(**kwargs):
    return lambda m: m.nn.Transformer(E, H, 2, 2, FF, **kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"norm_first": True, "activation": "gelu"},
                                    {"batch_first": True, "norm_first": True, "bias": False}])
def test_transformer_matches_torch(kwargs, device):
    bf = kwargs.get("batch_first", False)
    check_layer(_transformer(**kwargs), _seq(S, bf), _seq(T, bf), device=device, train=False)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_masks(batch_first, device):
    kpm_src = _mask(N, S, seed=10)
    call = _call(src_mask=_causal(S), tgt_mask=_causal(T), memory_mask=_mask(T, S, seed=11),
                 src_key_padding_mask=kpm_src, tgt_key_padding_mask=_mask(N, T, seed=12),
                 memory_key_padding_mask=kpm_src)
    check_layer(_transformer(batch_first=batch_first), _seq(S, batch_first), _seq(T, batch_first), device=device,
                train=False, call=call)
    # the tutorial's call: the causal tgt mask from generate_square_subsequent_mask, hinted
    check_layer(_transformer(batch_first=batch_first, dropout=0.0), _seq(S, batch_first), _seq(T, batch_first),
                device=device, train=True, call=_call(tgt_mask=_causal(T), tgt_is_causal=True))


def test_transformer_unbatched(device):
    check_layer(_transformer(), rand(S, E), rand(T, E), device=device, train=False,
                call=_call(tgt_mask=_causal(T), src_key_padding_mask=_mask(S, seed=13)))


def test_transformer_custom_encoder_decoder(device):
    def make(m):
        enc = m.nn.TransformerEncoder(m.nn.TransformerEncoderLayer(E, H, FF), 1)
        dec = m.nn.TransformerDecoder(m.nn.TransformerDecoderLayer(E, H, FF, activation="gelu"), 3,
                                      norm=m.nn.RMSNorm(E))
        return m.nn.Transformer(E, H, custom_encoder=enc, custom_decoder=dec)
    check_layer(make, _seq(S, False), _seq(T, False), device=device, train=False, call=_call(tgt_mask=_causal(T)))


def test_transformer_default_layout_and_init():
    theirs = torch.nn.Transformer()
    ours = webtorch.nn.Transformer()
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    assert (ours.d_model, ours.nhead, ours.batch_first) == (512, 8, False)
    assert len(ours.encoder.layers) == 6 and len(ours.decoder.layers) == 6
    assert isinstance(ours.encoder.norm, webtorch.nn.LayerNorm) and isinstance(ours.decoder.norm, webtorch.nn.LayerNorm)
    # _reset_parameters: xavier_uniform_ on every matrix, so the linears' bound is sqrt(6 / (fan_in + fan_out))
    w = ours.decoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (512 + 2048))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    check_default_init(lambda m: m.nn.Transformer(64, 4, 1, 1, 128), tol=0.1)
    check_default_init(lambda m: m.nn.Transformer(64, 4, 1, 2, 128, norm_first=True, bias=False), tol=0.1)


def test_generate_square_subsequent_mask(device):
    names = [None, "float32"] + (["float64"] if device == "cpu" else [])  # WebGPU has no float64
    for name in names:
        ours = webtorch.nn.Transformer.generate_square_subsequent_mask(
            5, device=device, dtype=name and getattr(webtorch, name))
        theirs = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=name and getattr(torch, name))
        assert ours.device.type == webtorch.device(device).type
        assert_close(ours, theirs, 0, 0, f"mask {name}")
    assert webtorch.nn.Transformer().generate_square_subsequent_mask(2).shape == (2, 2)


def test_seq2seq_training_matches_torch(device):
    """The tutorial's shape of model (embeddings, nn.Transformer with a causal tgt mask, a vocabulary head)
    trained a few SGD steps: the losses and the final weights follow PyTorch's."""
    vocab = 11

    def build(m):
        class Seq2Seq(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.src_emb = m.nn.Embedding(vocab, E)
                self.tgt_emb = m.nn.Embedding(vocab, E)
                self.transformer = m.nn.Transformer(E, H, 2, 2, FF, dropout=0.0, batch_first=True)
                self.head = m.nn.Linear(E, vocab)

            def forward(self, src, tgt):
                mask = m.nn.Transformer.generate_square_subsequent_mask(tgt.shape[1], device=tgt.device)
                out = self.transformer(self.src_emb(src), self.tgt_emb(tgt), tgt_mask=mask, tgt_is_causal=True,
                                       src_key_padding_mask=src == 0, memory_key_padding_mask=src == 0)
                return self.head(out)
        return Seq2Seq()

    torch.manual_seed(0)
    theirs = build(torch)
    ours = build(webtorch)
    load_torch_state(ours, theirs)
    ours.to(device)
    src, tgt = randint(1, vocab, N, S), randint(1, vocab, N, T + 1)
    src[:, -1] = 0  # padding
    # SGD, not Adam: the key bias's gradient is zero up to rounding (softmax ignores a per-row constant), and
    # Adam's normalization would turn that rounding noise into full-size steps of either sign
    opts = [torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9),
            webtorch.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)]
    for step in range(3):
        losses = []
        for m, model, opt in ((torch, theirs, opts[0]), (webtorch, ours, opts[1])):
            t = (lambda a: torch.tensor(a)) if m is torch else (lambda a: webtorch.tensor(a, device=device))
            logits = model(t(src), t(tgt[:, :-1]))
            loss = m.nn.functional.cross_entropy(logits.reshape(-1, vocab), t(tgt[:, 1:]).reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss)
        assert_close(losses[1], losses[0], 1e-5, 1e-4, f"loss at step {step}")
    for (k, w), (_, t) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert_close(w, t, 1e-4, 1e-3, k)


# ---- errors ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call,args", [
    (lambda m, s, t: m.nn.Transformer(E, H, 1, 1, FF).to(s.device)(s, t), (rand(S, 2, E), rand(T, 3, E))),
    (lambda m, s, t: m.nn.Transformer(E, H, 1, 1, FF, batch_first=True).to(s.device)(s, t),
     (rand(2, S, E), rand(3, T, E))),
    (lambda m, s, t: m.nn.Transformer(E, H, 1, 1, FF).to(s.device)(s, t), (rand(S, 2, 6), rand(T, 2, 6))),
    (lambda m, s, t: m.nn.Transformer(E, H, 1, 1, FF).to(s.device)(s, t), (rand(S, 2, E), rand(T, 2, 6))),
    (lambda m, s, t: m.nn.Transformer(E, H, 1, 1, FF).to(s.device)(s, t), (rand(S, E), rand(T, 6))),
    (lambda m, t, s: m.nn.TransformerDecoderLayer(E, H, FF).to(t.device)(t, s, tgt_is_causal=True),
     (rand(T, 2, E), rand(S, 2, E))),
    (lambda m, t, s, a: m.nn.TransformerDecoderLayer(E, H, FF).to(t.device)(t, s, memory_mask=a),
     (rand(T, 2, E), rand(S, 2, E), _mask(T, T))),
    (lambda m, t, s: m.nn.TransformerDecoderLayer(E, H, FF).to(t.device)(t, s), (rand(T, 2, E), rand(S, 3, E))),
    (lambda m: m.nn.TransformerDecoderLayer(E, H, activation="tanh"), ()),
    (lambda m: m.nn.Transformer(E, 3), ()),
])
def test_transformer_errors(call, args, device):
    with pytest.raises(Exception) as theirs:
        call(torch, *[torch.tensor(a) for a in args])
    check_error(call, *args, device=device, match=str(theirs.value))
