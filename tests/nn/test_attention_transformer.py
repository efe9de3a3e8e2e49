"""MultiheadAttention, TransformerEncoderLayer and TransformerEncoder against PyTorch: state_dict layout,
outputs, attention weights and every gradient (eval mode, dropout off) with PyTorch's weights loaded."""
import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_layer, check_default_init
from optest import check_error, rand

E, H = 8, 2


def _mask(*shape, p=0.3, seed=0):
    m = np.random.default_rng(seed).uniform(size=shape) < p
    m[..., 0] = False  # every query keeps a key: no all-masked rows (NaN in PyTorch's explicit-weights path)
    return m


def _mha_call(need_weights=True, average=True, kpm=None, mask=None, is_causal=False, self_attention=False):
    def call(layer, q, k=None, v=None):
        if self_attention:
            k = v = q
        m = lambda a: None if a is None else (torch.tensor(a) if isinstance(layer, torch.nn.Module)  # noqa: E731
                                              else webtorch.tensor(a, device=q.device))
        out, weights = layer(q, k, v, key_padding_mask=m(kpm), need_weights=need_weights, attn_mask=m(mask),
                             average_attn_weights=average, is_causal=is_causal)
        return [t for t in (out, weights) if t is not None]  # a length mismatch fails the comparison
    return call


@pytest.mark.parametrize("kwargs", [{}, {"bias": False}, {"add_bias_kv": True}, {"add_zero_attn": True},
                                    {"kdim": 5, "vdim": 6}, {"batch_first": True},
                                    {"add_bias_kv": True, "add_zero_attn": True, "kdim": 3, "vdim": 4}])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_mha_matches_torch(kwargs, need_weights, average, device):
    L, S, N = 4, 5, 3
    kd, vd = kwargs.get("kdim", E), kwargs.get("vdim", E)
    bf = kwargs.get("batch_first", False)
    shp = lambda n, d: (N, n, d) if bf else (n, N, d)  # noqa: E731
    check_layer(lambda m: m.nn.MultiheadAttention(E, H, **kwargs), rand(*shp(L, E)), rand(*shp(S, kd)),
                rand(*shp(S, vd)), device=device, call=_mha_call(need_weights, average))


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", ["kpm", "bool2d", "float2d", "bool3d", "both"])
def test_mha_masks(masks, need_weights, device):
    L, S, N = 4, 5, 3
    kpm = _mask(N, S, seed=1) if masks in ("kpm", "both") else None
    mask = {"bool2d": _mask(L, S), "float2d": rand(L, S), "bool3d": _mask(N * H, L, S),
            "both": _mask(L, S, seed=2)}.get(masks)
    check_layer(lambda m: m.nn.MultiheadAttention(E, H), rand(L, N, E), rand(S, N, E), rand(S, N, E),
                device=device, call=_mha_call(need_weights, kpm=kpm, mask=mask), grad=True)


def test_mha_self_attention_causal_and_unbatched(device):
    causal = np.triu(np.ones((4, 4), bool), 1)
    check_layer(lambda m: m.nn.MultiheadAttention(E, H), rand(4, 2, E), device=device,
                call=_mha_call(False, mask=causal, is_causal=True, self_attention=True))
    check_layer(lambda m: m.nn.MultiheadAttention(E, H), rand(4, E), rand(6, E), rand(6, E), device=device,
                call=_mha_call(True, kpm=_mask(6)))
    check_layer(lambda m: m.nn.MultiheadAttention(E, H, batch_first=True), rand(2, 4, E), device=device,
                call=_mha_call(False, self_attention=True))


def test_mha_dropout_eval_matches_torch(device):
    check_layer(lambda m: m.nn.MultiheadAttention(E, H, dropout=0.5), rand(4, 2, E), rand(4, 2, E), rand(4, 2, E),
                device=device, train=False, call=_mha_call(True))


def test_mha_functional_matches_torch(device):
    from optest import check
    w_in, b_in, w_out, b_out = rand(3 * E, E), rand(3 * E), rand(E, E), rand(E)
    check(lambda m, q, k, v, wi, bi, wo, bo: m.nn.functional.multi_head_attention_forward(
        q, k, v, E, H, wi, bi, None, None, False, 0.0, wo, bo, training=False), rand(3, 2, E), rand(5, 2, E),
        rand(5, 2, E), w_in, b_in, w_out, b_out, device=device)


@pytest.mark.parametrize("make", [lambda m: m.nn.MultiheadAttention(16, 4),
                                  lambda m: m.nn.MultiheadAttention(16, 2, kdim=8, vdim=12, bias=False)])
def test_mha_default_init(make):
    check_default_init(make, tol=0.1)


def test_mha_bias_kv_init_is_xavier_normal():
    webtorch.manual_seed(0)
    mha = webtorch.nn.MultiheadAttention(1024, 4, add_bias_kv=True)
    for t in (mha.bias_k, mha.bias_v):
        std = float(t.detach().std())
        assert abs(std - 1 / np.sqrt(1024)) < 0.1 / np.sqrt(1024), std
    assert not np.any(mha.in_proj_bias.detach().numpy()) and not np.any(mha.out_proj.bias.detach().numpy())


@pytest.mark.parametrize("call,args", [
    (lambda m, q: m.nn.MultiheadAttention(E, H).to(q.device)(q, q[0], q[0]), (rand(3, 2, E),)),
    (lambda m, q: m.nn.MultiheadAttention(E, H).to(q.device)(q[:, :, :5], q, q), (rand(3, 2, E),)),
    (lambda m, q: m.nn.MultiheadAttention(E, H).to(q.device)(q[None], q, q), (rand(3, 2, E),)),
    (lambda m, q: m.nn.MultiheadAttention(E, H).to(q.device)(q, q, q, is_causal=True), (rand(3, 2, E),)),
    (lambda m, q, a: m.nn.MultiheadAttention(E, H).to(q.device)(q, q, q, attn_mask=a), (rand(3, 2, E), _mask(2, 4))),
    (lambda m, q, a: m.nn.MultiheadAttention(E, H).to(q.device)(q, q, q, attn_mask=a), (rand(3, 2, E), _mask(3, 3, 3))),
    (lambda m, q, a: m.nn.MultiheadAttention(E, H).to(q.device)(q, q, q, attn_mask=a), (rand(3, 2, E), _mask(1, 1, 3, 3))),
    (lambda m, q, a: m.nn.MultiheadAttention(E, H).to(q.device)(q, q, q, key_padding_mask=a),
     (rand(3, 2, E), np.zeros((2, 3), np.int64))),
    (lambda m: m.nn.MultiheadAttention(8, 3), ()),
    (lambda m: m.nn.TransformerEncoderLayer(8, 2, activation="tanh"), ()),
])
def test_attention_errors(call, args, device):
    with pytest.raises(Exception) as theirs:
        call(torch, *[torch.tensor(a) for a in args])
    check_error(call, *args, device=device, match=str(theirs.value))


def test_mha_key_padding_shape_error(device):
    check_error(lambda m, q, a: m.nn.MultiheadAttention(E, H).to(q.device)(q, q, q, key_padding_mask=a), rand(3, 2, E),
                _mask(2, 4), device=device)


# ---- transformer encoder ---------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"activation": "gelu"}, {"norm_first": True}, {"batch_first": True},
                                    {"bias": False, "layer_norm_eps": 1e-3}, {"dropout": 0.0}])
def test_encoder_layer_matches_torch(kwargs, device):
    shape = (2, 5, E) if kwargs.get("batch_first") else (5, 2, E)
    check_layer(lambda m: m.nn.TransformerEncoderLayer(E, H, dim_feedforward=16, **kwargs), rand(*shape),
                device=device, train=False)


def test_encoder_layer_callable_activation_and_masks(device):
    kpm = _mask(2, 5, seed=3)
    causal = np.triu(np.ones((5, 5), bool), 1)

    def call(layer, x):
        lib = torch if isinstance(layer, torch.nn.Module) else webtorch
        t = (lambda a: torch.tensor(a)) if lib is torch else (lambda a: webtorch.tensor(a, device=x.device))
        return layer(x, src_mask=t(causal), src_key_padding_mask=t(kpm))
    check_layer(lambda m: m.nn.TransformerEncoderLayer(E, H, 16, activation=m.nn.functional.silu),
                rand(5, 2, E), device=device, train=False, call=call)


@pytest.mark.parametrize("with_norm", [False, True])
def test_encoder_matches_torch(with_norm, device):
    def make(m):
        layer = m.nn.TransformerEncoderLayer(E, H, 16, batch_first=True)
        return m.nn.TransformerEncoder(layer, 2, norm=m.nn.LayerNorm(E) if with_norm else None,
                                       enable_nested_tensor=False)
    mask = np.triu(np.full((4, 4), -np.inf, np.float32), 1)

    def call(layer, x):
        lib = torch if isinstance(layer, torch.nn.Module) else webtorch
        t = (lambda a: torch.tensor(a)) if lib is torch else (lambda a: webtorch.tensor(a, device=x.device))
        return layer(x, mask=t(mask), src_key_padding_mask=t(_mask(3, 4, seed=4)))
    check_layer(make, rand(3, 4, E), device=device, train=False)
    check_layer(make, rand(3, 4, E), device=device, train=False, call=call)


def test_encoder_training_mode_and_layers_are_copies(device):
    webtorch.manual_seed(0)
    layer = webtorch.nn.TransformerEncoderLayer(E, H, 16, dropout=0.5)
    enc = webtorch.nn.TransformerEncoder(layer, 2).to(device)
    assert enc.layers[0] is not enc.layers[1] and enc.layers[0].linear1.weight is not layer.linear1.weight
    np.testing.assert_array_equal(enc.layers[1].linear1.weight.detach().cpu().numpy(),
                                  layer.linear1.weight.detach().numpy())
    x = webtorch.tensor(rand(5, 2, E), device=device)
    a, b = enc(x), enc(x)
    assert not np.allclose(a.detach().cpu().numpy(), b.detach().cpu().numpy())
    enc.eval()
    np.testing.assert_array_equal(enc(x).detach().cpu().numpy(), enc(x).detach().cpu().numpy())
    assert list(webtorch.nn.TransformerEncoder(layer, 2).state_dict()) == \
        list(torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, H, 16), 2,
                                         enable_nested_tensor=False).state_dict())
