"""Every layer against PyTorch: state_dict layout, outputs and all gradients after loading PyTorch's weights
(buffers after training steps too), default initialization statistics, reprs, attributes and argument errors;
the loss modules with every reduction."""
import re
import warnings

import numpy as np
import pytest
import torch

import webtorch
from layercheck import check_layer, check_default_init
from optest import check, rand, randint

F32 = dict(atol=1e-5, rtol=1e-4)


def _lib(x):
    """The library a tensor belongs to (layer ``call`` hooks get tensors, not the library)."""
    return torch if isinstance(x, torch.Tensor) else webtorch


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
    # padding, shuffles, resampling, fold/unfold, instance and local response norm, distances, 3d and LP pools
    # padding: F.pad order (last dim first), batched and unbatched ranks, negative constant pads crop
    ("zeropad1d", lambda m: m.nn.ZeroPad1d((1, 2)), (rand(2, 3, 4),)),
    ("zeropad1d-unbatched", lambda m: m.nn.ZeroPad1d(2), (rand(3, 4),)),
    ("zeropad2d", lambda m: m.nn.ZeroPad2d((1, 0, 2, 1)), (rand(2, 3, 4, 5),)),
    ("zeropad2d-negative", lambda m: m.nn.ZeroPad2d((-1, 2, 0, -2)), (rand(1, 2, 4, 5),)),
    ("zeropad3d", lambda m: m.nn.ZeroPad3d(1), (rand(1, 2, 3, 2, 3),)),
    ("constpad1d", lambda m: m.nn.ConstantPad1d(2, 3.5), (rand(2, 3, 4),)),
    ("constpad2d", lambda m: m.nn.ConstantPad2d((1, 2, 0, 1), -1.0), (rand(3, 4, 5),)),
    ("constpad3d", lambda m: m.nn.ConstantPad3d((1, 0, 0, 1, 2, 0), 0.5), (rand(1, 2, 2, 3, 2),)),
    ("reflpad1d", lambda m: m.nn.ReflectionPad1d((2, 1)), (rand(2, 3, 5),)),
    ("reflpad1d-unbatched", lambda m: m.nn.ReflectionPad1d(3), (rand(3, 5),)),
    ("reflpad2d", lambda m: m.nn.ReflectionPad2d((1, 2, 2, 0)), (rand(2, 2, 4, 5),)),
    ("reflpad3d", lambda m: m.nn.ReflectionPad3d(1), (rand(1, 2, 3, 3, 4),)),
    ("replpad1d", lambda m: m.nn.ReplicationPad1d((3, 1)), (rand(2, 3, 4),)),
    ("replpad2d", lambda m: m.nn.ReplicationPad2d((1, 2, 3, 0)), (rand(2, 2, 3, 4),)),
    ("replpad2d-unbatched", lambda m: m.nn.ReplicationPad2d(2), (rand(2, 3, 4),)),
    ("replpad3d", lambda m: m.nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)), (rand(1, 2, 2, 3, 3),)),
    ("circpad1d", lambda m: m.nn.CircularPad1d((1, 2)), (rand(2, 3, 4),)),
    ("circpad1d-unbatched", lambda m: m.nn.CircularPad1d(2), (rand(3, 4),)),
    ("circpad2d", lambda m: m.nn.CircularPad2d((1, 0, 2, 1)), (rand(2, 2, 3, 4),)),
    ("circpad3d", lambda m: m.nn.CircularPad3d(1), (rand(1, 2, 3, 2, 3),)),
    # shuffles
    ("pixelshuffle", lambda m: m.nn.PixelShuffle(2), (rand(2, 8, 3, 4),)),
    ("pixelshuffle-unbatched", lambda m: m.nn.PixelShuffle(3), (rand(9, 2, 2),)),
    ("pixelshuffle-5d", lambda m: m.nn.PixelShuffle(2), (rand(2, 1, 4, 2, 3),)),
    ("pixelunshuffle", lambda m: m.nn.PixelUnshuffle(2), (rand(2, 3, 4, 6),)),
    ("channelshuffle", lambda m: m.nn.ChannelShuffle(3), (rand(2, 6, 4, 3),)),
    ("channelshuffle-3d", lambda m: m.nn.ChannelShuffle(2), (rand(2, 8, 5),)),
    ("channelshuffle-5d", lambda m: m.nn.ChannelShuffle(2), (rand(1, 4, 2, 3, 2),)),
    # upsampling
    ("upsample-nearest1d", lambda m: m.nn.Upsample(scale_factor=2), (rand(2, 3, 4),)),
    ("upsample-nearest2d-size", lambda m: m.nn.Upsample(size=(5, 7)), (rand(2, 2, 3, 4),)),
    ("upsample-nearest-exact", lambda m: m.nn.Upsample(scale_factor=1.5, mode="nearest-exact"), (rand(1, 2, 4, 3),)),
    ("upsample-linear", lambda m: m.nn.Upsample(size=7, mode="linear"), (rand(2, 3, 4),)),
    ("upsample-bilinear-ac", lambda m: m.nn.Upsample(scale_factor=(2, 1.5), mode="bilinear", align_corners=True),
     (rand(1, 2, 3, 4),)),
    ("upsample-bicubic", lambda m: m.nn.Upsample(size=(5, 6), mode="bicubic"), (rand(1, 2, 3, 4),)),
    ("upsample-trilinear", lambda m: m.nn.Upsample(scale_factor=2, mode="trilinear"), (rand(1, 2, 2, 3, 2),)),
    ("upsample-recompute", lambda m: m.nn.Upsample(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
     (rand(1, 2, 3, 5),)),
    ("upsample-area", lambda m: m.nn.Upsample(size=(2, 3), mode="area"), (rand(1, 2, 5, 7),)),
    ("upsampling-nearest2d", lambda m: m.nn.UpsamplingNearest2d(scale_factor=2), (rand(2, 2, 3, 4),)),
    ("upsampling-bilinear2d", lambda m: m.nn.UpsamplingBilinear2d(size=(5, 6)), (rand(2, 2, 3, 4),)),
    # fold / unfold
    ("unfold", lambda m: m.nn.Unfold(kernel_size=(2, 3)), (rand(2, 3, 4, 5),)),
    ("unfold-args", lambda m: m.nn.Unfold(3, dilation=(1, 2), padding=1, stride=2), (rand(2, 2, 5, 6),)),
    ("unfold-unbatched", lambda m: m.nn.Unfold(2), (rand(2, 3, 4),)),
    ("fold", lambda m: m.nn.Fold(output_size=(4, 5), kernel_size=(2, 3)), (rand(2, 18, 9),)),
    ("fold-args", lambda m: m.nn.Fold((5, 6), 3, dilation=(1, 2), padding=1, stride=2), (rand(2, 18, 6),)),
    ("fold-unbatched", lambda m: m.nn.Fold((3, 4), 2), (rand(8, 6),)),
    # instance norm: statistics per sample and channel; affine and running stats optional
    ("instnorm1d", lambda m: m.nn.InstanceNorm1d(3), (rand(4, 3, 6),)),
    ("instnorm1d-unbatched", lambda m: m.nn.InstanceNorm1d(3, affine=True), (rand(3, 6),)),
    ("instnorm2d", lambda m: m.nn.InstanceNorm2d(3), (rand(2, 3, 4, 5),)),
    ("instnorm2d-affine", lambda m: m.nn.InstanceNorm2d(3, affine=True), (rand(2, 3, 4, 5),)),
    ("instnorm2d-nobias", lambda m: m.nn.InstanceNorm2d(3, affine=True, bias=False), (rand(2, 3, 4, 5),)),
    ("instnorm2d-stats", lambda m: m.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3),
     (rand(2, 3, 4, 5),)),
    ("instnorm2d-unbatched-stats", lambda m: m.nn.InstanceNorm2d(2, track_running_stats=True),
     (rand(2, 3, 4),)),
    ("instnorm3d", lambda m: m.nn.InstanceNorm3d(2, eps=1e-3), (rand(2, 2, 3, 2, 3),)),
    ("instnorm3d-stats", lambda m: m.nn.InstanceNorm3d(2, affine=True, track_running_stats=True),
     (rand(2, 2, 3, 2, 3),)),
    # local response norm, over 3d/4d/5d inputs and windows larger than the channel count
    ("lrn-3d", lambda m: m.nn.LocalResponseNorm(3), (rand(2, 5, 4),)),
    ("lrn-4d", lambda m: m.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), (rand(2, 4, 3, 3),)),
    ("lrn-5d", lambda m: m.nn.LocalResponseNorm(4, alpha=0.2), (rand(1, 5, 2, 3, 2),)),
    ("lrn-wide", lambda m: m.nn.LocalResponseNorm(7, alpha=0.5), (rand(2, 3, 4),)),
    # CrossMapLRN2d: PyTorch's legacy windows (channel 0 in every forward window, a shifted backward window)
    ("crossmaplrn-2", lambda m: m.nn.CrossMapLRN2d(2, alpha=0.5, k=1.5), (rand(2, 5, 3, 3, low=-2, high=2),)),
    ("crossmaplrn-3", lambda m: m.nn.CrossMapLRN2d(3, alpha=0.5, beta=0.6), (rand(2, 8, 2, 3, low=-2, high=2),)),
    ("crossmaplrn-4", lambda m: m.nn.CrossMapLRN2d(4, alpha=0.3, k=2), (rand(1, 6, 2, 2, low=-2, high=2),)),
    ("crossmaplrn-5", lambda m: m.nn.CrossMapLRN2d(5, alpha=0.5, k=1.5), (rand(2, 8, 2, 3, low=-2, high=2),)),
    ("crossmaplrn-wide", lambda m: m.nn.CrossMapLRN2d(9, alpha=0.5), (rand(2, 3, 2, 2, low=-2, high=2),)),
    # distances
    ("cosine", lambda m: m.nn.CosineSimilarity(), (rand(4, 5), rand(4, 5))),
    ("cosine-dim-broadcast", lambda m: m.nn.CosineSimilarity(dim=-1, eps=1e-6), (rand(3, 4, 5), rand(4, 5))),
    ("pairwise", lambda m: m.nn.PairwiseDistance(), (rand(4, 5), rand(4, 5))),
    ("pairwise-p1-keepdim", lambda m: m.nn.PairwiseDistance(p=1.0, keepdim=True), (rand(4, 5), rand(4, 5))),
    ("pairwise-p3-1d", lambda m: m.nn.PairwiseDistance(p=3.0, eps=1e-3), (rand(5), rand(5))),
    # 3d pools and LP pools
    ("maxpool3d", lambda m: m.nn.MaxPool3d(2), (rand(1, 2, 4, 4, 5),)),
    ("maxpool3d-args", lambda m: m.nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), padding=1, ceil_mode=True),
     (rand(1, 2, 3, 5, 4),)),
    ("maxpool3d-indices", lambda m: m.nn.MaxPool3d(2, return_indices=True), (rand(1, 2, 4, 2, 4),)),
    ("avgpool3d", lambda m: m.nn.AvgPool3d(2), (rand(1, 2, 4, 4, 5),)),
    ("avgpool3d-args", lambda m: m.nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False),
     (rand(1, 2, 5, 4, 5),)),
    ("avgpool3d-divisor", lambda m: m.nn.AvgPool3d(2, divisor_override=3), (rand(1, 2, 4, 4, 4),)),
    ("adaptive-avg3d", lambda m: m.nn.AdaptiveAvgPool3d((2, 3, 1)), (rand(1, 2, 5, 4, 3),)),
    ("adaptive-max3d", lambda m: m.nn.AdaptiveMaxPool3d(2, return_indices=True), (rand(1, 2, 5, 4, 3),)),
    ("lppool1d", lambda m: m.nn.LPPool1d(2, 3), (rand(2, 3, 8, low=0.1, high=1.0),)),
    ("lppool1d-stride-ceil", lambda m: m.nn.LPPool1d(1.5, 3, stride=2, ceil_mode=True),
     (rand(2, 3, 8, low=0.1, high=1.0),)),
    ("lppool2d", lambda m: m.nn.LPPool2d(2, 2), (rand(2, 3, 4, 6, low=0.1, high=1.0),)),
    ("lppool2d-args", lambda m: m.nn.LPPool2d(3, (2, 3), stride=(1, 2)), (rand(1, 2, 4, 7, low=0.1, high=1.0),)),
    ("lppool3d", lambda m: m.nn.LPPool3d(2, 2), (rand(1, 2, 4, 4, 4, low=0.1, high=1.0),)),
    ("convT3d", lambda m: m.nn.ConvTranspose3d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2),
     (rand(1, 2, 2, 3, 2),)),
    ("convT3d-nobias-dilation", lambda m: m.nn.ConvTranspose3d(2, 3, (1, 2, 2), dilation=(1, 2, 1), bias=False),
     (rand(2, 2, 2, 2, 3),)),
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
    lambda m: m.nn.ZeroPad1d(2), lambda m: m.nn.ZeroPad2d((1, 2, 3, 4)), lambda m: m.nn.ZeroPad3d(1),
    lambda m: m.nn.ConstantPad1d((1, 2), 3.5), lambda m: m.nn.ConstantPad2d(1, 0), lambda m: m.nn.ConstantPad3d(2, -1.),
    lambda m: m.nn.ReflectionPad1d(2), lambda m: m.nn.ReflectionPad2d((1, 0, 2, 1)), lambda m: m.nn.ReflectionPad3d(1),
    lambda m: m.nn.ReplicationPad1d((3, 1)), lambda m: m.nn.ReplicationPad2d(2), lambda m: m.nn.ReplicationPad3d(1),
    lambda m: m.nn.CircularPad1d(1), lambda m: m.nn.CircularPad2d((1, 2, 3, 4)), lambda m: m.nn.CircularPad3d(2),
    lambda m: m.nn.PixelShuffle(3), lambda m: m.nn.PixelUnshuffle(2), lambda m: m.nn.ChannelShuffle(4),
    lambda m: m.nn.Upsample(scale_factor=2), lambda m: m.nn.Upsample(size=(3, 4), mode="bilinear"),
    lambda m: m.nn.Upsample(scale_factor=(2, 1.5), mode="bicubic", align_corners=True),
    lambda m: m.nn.Upsample(size=5), lambda m: m.nn.UpsamplingNearest2d(scale_factor=3),
    lambda m: m.nn.UpsamplingBilinear2d(size=(4, 4)),
    lambda m: m.nn.Unfold(3), lambda m: m.nn.Unfold((2, 3), dilation=2, padding=(1, 0), stride=2),
    lambda m: m.nn.Fold((4, 5), 2), lambda m: m.nn.Fold(6, (2, 3), 1, 1, (2, 1)),
    lambda m: m.nn.InstanceNorm1d(3), lambda m: m.nn.InstanceNorm2d(4, affine=True, track_running_stats=True),
    lambda m: m.nn.InstanceNorm3d(5, eps=1e-3, momentum=None, bias=False),
    lambda m: m.nn.LocalResponseNorm(3), lambda m: m.nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2),
    lambda m: m.nn.CrossMapLRN2d(5), lambda m: m.nn.CrossMapLRN2d(3, alpha=0.1, beta=0.5, k=2.0),
    lambda m: m.nn.CosineSimilarity(), lambda m: m.nn.PairwiseDistance(p=1.0, keepdim=True),
    lambda m: m.nn.MaxPool3d(2), lambda m: m.nn.MaxPool3d((2, 3, 1), 1, 1, ceil_mode=True),
    lambda m: m.nn.AvgPool3d(2), lambda m: m.nn.AvgPool3d((1, 2, 3), 1, count_include_pad=False),
    lambda m: m.nn.AdaptiveAvgPool3d((2, None, 3)), lambda m: m.nn.AdaptiveMaxPool3d(2),
    lambda m: m.nn.MaxUnpool1d(2), lambda m: m.nn.MaxUnpool2d(3, stride=2, padding=1),
    lambda m: m.nn.MaxUnpool3d((1, 2, 3)),
    lambda m: m.nn.LPPool1d(2, 3), lambda m: m.nn.LPPool2d(1.5, (2, 3), stride=1, ceil_mode=True),
    lambda m: m.nn.LPPool3d(3, 2),
    lambda m: m.nn.PoissonNLLLoss(), lambda m: m.nn.GaussianNLLLoss(full=True),
    lambda m: m.nn.MultiLabelSoftMarginLoss(), lambda m: m.nn.MultiMarginLoss(p=2),
    lambda m: m.nn.MultiLabelMarginLoss(), lambda m: m.nn.TripletMarginWithDistanceLoss(),
    lambda m: m.nn.TripletMarginWithDistanceLoss(distance_function=m.nn.CosineSimilarity(), swap=True),
    lambda m: m.nn.ConvTranspose3d(2, 4, 3, stride=2, output_padding=1, bias=False),
    lambda m: m.nn.Sequential(m.nn.ReflectionPad2d(1), m.nn.InstanceNorm2d(3), m.nn.PixelShuffle(2),
                              m.nn.Upsample(scale_factor=2, mode="nearest")),
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
    lambda m: m.nn.ChannelShuffle(4)(m.zeros(2, 6, 3)),
    lambda m: m.nn.ChannelShuffle(0)(m.zeros(2, 6, 3)),
    lambda m: m.nn.ChannelShuffle(-2)(m.zeros(2, 6, 3)),
    lambda m: m.nn.ChannelShuffle(2)(m.zeros(2, 6)),
    lambda m: m.nn.PixelShuffle(3)(m.zeros(1, 8, 2, 2)),
    lambda m: m.nn.PixelShuffle(2)(m.zeros(8, 2)),
    lambda m: m.nn.PixelUnshuffle(2)(m.zeros(1, 2, 3, 4)),
    lambda m: m.nn.CircularPad1d(1)(m.zeros(2, 3, 4, 5)),
    lambda m: m.nn.CircularPad2d(1)(m.zeros(2, 3)),
    lambda m: m.nn.CircularPad3d(1)(m.zeros(2, 3, 4)),
    lambda m: m.nn.InstanceNorm1d(3)(m.zeros(2, 3, 4, 5)),
    lambda m: m.nn.InstanceNorm2d(3)(m.zeros(2, 3)),
    lambda m: m.nn.InstanceNorm3d(3)(m.zeros(2, 3, 4)),
    lambda m: m.nn.InstanceNorm2d(4, affine=True)(m.zeros(2, 3, 4, 4)),
    lambda m: m.nn.InstanceNorm1d(3)(m.zeros(2, 3, 1)),
    lambda m: m.nn.LocalResponseNorm(2)(m.zeros(2, 3)),
    lambda m: m.nn.CrossMapLRN2d(3)(m.zeros(2, 3, 4)),
    lambda m: m.nn.CrossMapLRN2d(1)(m.ones(1, 3, 2, 2, requires_grad=True)).sum().backward(),
    lambda m: m.nn.MultiMarginLoss(p=3),
    lambda m: m.nn.MultiMarginLoss(weight=m.ones(2, 2)),
    lambda m: m.nn.GaussianNLLLoss()(m.zeros(2, 3), m.zeros(2, 3), -m.ones(2, 3)),
    lambda m: m.nn.GaussianNLLLoss()(m.zeros(2, 3), m.zeros(2, 3), m.ones(2, 2)),
    lambda m: m.nn.GaussianNLLLoss(reduction="avg")(m.zeros(2, 3), m.zeros(2, 3), m.ones(2, 3)),
    lambda m: m.nn.Upsample(size=4, scale_factor=2)(m.zeros(1, 1, 2)),
    lambda m: m.nn.Upsample(scale_factor=2, mode="cubic")(m.zeros(1, 1, 2)),
    lambda m: m.nn.Unfold(2)(m.zeros(1, 2, 3, 4, 4)),
    lambda m: m.nn.Fold((4, 5), 2)(m.zeros(2, 7, 12)),
    lambda m: m.nn.MaxUnpool2d(2)(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 2, 3, dtype=m.long)),
    lambda m: m.nn.MaxUnpool2d(2)(m.zeros(1, 1, 2, 2), m.zeros(1, 1, 2, 2, dtype=m.long), output_size=(9, 9)),
    lambda m: m.nn.MaxPool3d(2)(m.zeros(2, 3)),
    lambda m: m.nn.AdaptiveAvgPool3d(2)(m.zeros(2, 3)),
    lambda m: m.nn.CosineSimilarity()(m.zeros(2, 3), m.zeros(2, 4)),
    lambda m: m.nn.PairwiseDistance()(m.zeros(2, 3), m.zeros(3, 3)),
    lambda m: m.nn.MultiLabelMarginLoss()(m.zeros(2, 4), m.tensor([[3, 0, -1, 5], [1, 2, 3, 0]])),
    lambda m: m.nn.MultiLabelMarginLoss()(m.zeros(2, 4), m.tensor([[3, 0, -2, 1], [1, 2, 3, 0]])),
    lambda m: m.nn.MultiLabelMarginLoss()(m.zeros(2, 4), m.tensor([[3, 0, 1], [1, 2, 3]])),
    lambda m: m.nn.MultiLabelMarginLoss()(m.zeros(2, 4, 3), m.zeros(2, 4, 3, dtype=m.long)),
    lambda m: m.nn.MultiLabelMarginLoss()(m.zeros(2, 0), m.zeros(2, 0, dtype=m.long)),
    lambda m: m.nn.MultiLabelMarginLoss()(m.zeros(2, 4), m.zeros(2, 4)),
    lambda m: m.nn.MultiLabelMarginLoss(reduction="x")(m.zeros(2, 4), m.zeros(2, 4, dtype=m.long)),
    lambda m: m.nn.TripletMarginWithDistanceLoss(margin=0),
    lambda m: m.nn.TripletMarginWithDistanceLoss()(m.zeros(2, 3), m.zeros(2, 3), m.zeros(3)),
    lambda m: m.nn.functional.triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(2, 3),
                                                                margin=-1.0),
    lambda m: m.nn.functional.triplet_margin_with_distance_loss(m.zeros(2, 3), m.zeros(2, 3), m.zeros(2, 3),
                                                                reduction="avg"),
    lambda m: m.nn.ConvTranspose3d(2, 4, 3, padding_mode="reflect"),
    lambda m: m.nn.ConvTranspose3d(2, 4, 3)(m.zeros(1, 3, 2, 2, 2)),
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


@pytest.mark.parametrize("name,make,inputs", [c for c in LAYERS if c[0].startswith("instnorm") and "stats" in c[0]],
                         ids=[c[0] for c in LAYERS if c[0].startswith("instnorm") and "stats" in c[0]])
def test_instance_norm_running_stats(name, make, inputs, device):
    """Running statistics (buffers) follow PyTorch's over several steps, then drive the eval-mode output."""
    ours, theirs = check_layer(make, *inputs, device=device, steps=3, **F32)
    # instance norm never counts batches (its momentum is always used as given)
    assert int(ours.num_batches_tracked) == int(theirs.num_batches_tracked) == 0
    ours.eval()
    theirs.eval()
    check_layer(lambda m: ours if m is webtorch else theirs, *inputs, device=device, train=False, **F32)


def test_instance_norm_momentum_none_and_eval_without_stats(device):
    check_layer(lambda m: m.nn.InstanceNorm1d(3, track_running_stats=True, momentum=None), rand(2, 3, 5),
                device=device, steps=2, **F32)
    # without running stats eval mode still normalizes with the input's own statistics
    check_layer(lambda m: m.nn.InstanceNorm2d(3, affine=True), rand(2, 3, 4, 4), device=device, train=False, **F32)


def test_instance_norm_state_dict_keys():
    for kw in ({}, {"affine": True}, {"track_running_stats": True}, {"affine": True, "track_running_stats": True},
               {"affine": True, "bias": False}):
        for name in ("InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"):
            w = list(getattr(webtorch.nn, name)(4, **kw).state_dict())
            t = list(getattr(torch.nn, name)(4, **kw).state_dict())
            assert w == t, (name, kw, w, t)
    full = webtorch.nn.InstanceNorm2d(4, affine=True, track_running_stats=True).state_dict()
    assert list(full) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    assert str(full["num_batches_tracked"].dtype) == "torch.int64"


def test_instance_norm_loads_old_checkpoint_without_running_stats():
    """Pre-0.4 checkpoints carry running stats for track_running_stats=False layers: PyTorch reports them."""
    sd = {"running_mean": webtorch.zeros(3), "running_var": webtorch.ones(3)}
    with pytest.raises(RuntimeError) as ours:
        webtorch.nn.InstanceNorm1d(3).load_state_dict(sd)
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.InstanceNorm1d(3).load_state_dict({k: torch.tensor(v.numpy()) for k, v in sd.items()})
    assert str(ours.value) == str(theirs.value)


def test_instance_norm_channel_mismatch_warns_without_affine(device):
    x = rand(2, 4, 5)
    with pytest.warns(UserWarning, match="does not match num_features") as rec:
        ours = webtorch.nn.InstanceNorm1d(3)(webtorch.tensor(x, device=device))
    with warnings.catch_warnings(record=True) as trec:
        warnings.simplefilter("always")
        theirs = torch.nn.InstanceNorm1d(3)(torch.tensor(x))
    assert str(rec[0].message) == str(trec[0].message)
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), atol=1e-5, rtol=1e-4)


# ---- max unpooling: pool with indices, then unpool ----------------------------------------------------------------

UNPOOLS = [
    ("unpool1d", 1, lambda m: m.nn.MaxUnpool1d(2), {}, (rand(2, 3, 8),)),
    ("unpool1d-stride-pad", 1, lambda m: m.nn.MaxUnpool1d(3, stride=2, padding=1), {"padding": 1},
     (rand(2, 3, 9),)),
    ("unpool2d", 2, lambda m: m.nn.MaxUnpool2d(2), {}, (rand(2, 3, 4, 6),)),
    ("unpool2d-args", 2, lambda m: m.nn.MaxUnpool2d((2, 3), stride=(2, 1), padding=(1, 0)), {"padding": (1, 0)},
     (rand(1, 2, 4, 6),)),
    ("unpool2d-unbatched", 2, lambda m: m.nn.MaxUnpool2d(2), {}, (rand(3, 4, 4),)),
    ("unpool3d", 3, lambda m: m.nn.MaxUnpool3d(2), {}, (rand(1, 2, 4, 4, 2),)),
]


@pytest.mark.parametrize("name,n,make,pool_kw,inputs", UNPOOLS, ids=[c[0] for c in UNPOOLS])
def test_max_unpool(name, n, make, pool_kw, inputs, device):
    def call(layer, x):
        pooled, idx = getattr(_lib(x).nn.functional, f"max_pool{n}d")(
            x, layer.kernel_size, layer.stride, return_indices=True, **pool_kw)
        return layer(pooled, idx)
    check_layer(make, *inputs, device=device, call=call, **F32)


def test_max_unpool_output_size(device):
    def call(layer, x):
        pooled, idx = _lib(x).nn.functional.max_pool2d(x, 2, return_indices=True)
        return layer(pooled, idx, output_size=(5, 7))
    check_layer(lambda m: m.nn.MaxUnpool2d(2), rand(2, 3, 5, 7), device=device, call=call, **F32)


# ---- losses, every reduction ----------------------------------------------------------------------------------------

REDUCTIONS = ["none", "mean", "sum"]

REDUCTION_LOSSES = [
    ("poisson", lambda m, r: m.nn.PoissonNLLLoss(reduction=r), lambda: (rand(4, 3), rand(4, 3, low=0, high=4))),
    ("poisson-full", lambda m, r: m.nn.PoissonNLLLoss(full=True, reduction=r),
     lambda: (rand(4, 3), rand(4, 3, low=0, high=4))),
    ("poisson-rate", lambda m, r: m.nn.PoissonNLLLoss(log_input=False, eps=1e-3, reduction=r),
     lambda: (rand(4, 3, low=0.1, high=3), rand(4, 3, low=0, high=4))),
    ("gaussian", lambda m, r: m.nn.GaussianNLLLoss(reduction=r),
     lambda: (rand(4, 3), rand(4, 3), rand(4, 3, low=0.1, high=2))),
    ("gaussian-full-bcast", lambda m, r: m.nn.GaussianNLLLoss(full=True, eps=1e-3, reduction=r),
     lambda: (rand(4, 3), rand(4, 3), rand(4, 1, low=0.1, high=2))),
    ("gaussian-homoscedastic", lambda m, r: m.nn.GaussianNLLLoss(reduction=r),
     lambda: (rand(4, 3), rand(4, 3), rand(4, low=0.1, high=2))),
    ("multilabel-soft", lambda m, r: m.nn.MultiLabelSoftMarginLoss(reduction=r),
     lambda: (rand(4, 5), randint(0, 2, 4, 5).astype(np.float32))),
    ("multilabel-soft-weight", lambda m, r: m.nn.MultiLabelSoftMarginLoss(
        weight=m.tensor(np.linspace(0.5, 2, 5, dtype=np.float32)), reduction=r),
     lambda: (rand(4, 5), randint(0, 2, 4, 5).astype(np.float32))),
    ("multi-margin", lambda m, r: m.nn.MultiMarginLoss(reduction=r), lambda: (rand(5, 4), randint(0, 4, 5))),
    ("multi-margin-p2", lambda m, r: m.nn.MultiMarginLoss(p=2, margin=0.7, reduction=r),
     lambda: (rand(5, 4), randint(0, 4, 5))),
    ("multi-margin-weight", lambda m, r: m.nn.MultiMarginLoss(
        weight=m.tensor(np.array([0.5, 1.0, 2.0, 1.5], dtype=np.float32)), reduction=r),
     lambda: (rand(5, 4), randint(0, 4, 5))),
    ("multi-margin-1d", lambda m, r: m.nn.MultiMarginLoss(reduction=r), lambda: (rand(4), np.array(2))),
    # class lists end at the first -1; entries after it are ignored, repeated classes count once per slot
    ("multilabel-margin", lambda m, r: m.nn.MultiLabelMarginLoss(reduction=r),
     lambda: (rand(4, 5), np.array([[3, 0, -1, 1, 2], [1, 2, 3, 0, 4], [-1, 2, 2, 2, 2], [4, 4, 1, -1, -1]]))),
    ("multilabel-margin-1d", lambda m, r: m.nn.MultiLabelMarginLoss(reduction=r),
     lambda: (rand(5), np.array([2, 4, -1, 0, 0]))),
    ("triplet-distance", lambda m, r: m.nn.TripletMarginWithDistanceLoss(reduction=r),
     lambda: (rand(5, 4), rand(5, 4), rand(5, 4))),
    ("triplet-distance-custom-swap", lambda m, r: m.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda a, b: 1 - m.nn.functional.cosine_similarity(a, b), margin=0.4, swap=True,
        reduction=r), lambda: (rand(5, 4), rand(5, 4), rand(5, 4))),
    ("triplet-distance-module", lambda m, r: m.nn.TripletMarginWithDistanceLoss(
        distance_function=m.nn.PairwiseDistance(p=1), margin=2.0, reduction=r),
     lambda: (rand(3, 6), rand(3, 6), rand(3, 6))),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,make,inputs", REDUCTION_LOSSES, ids=[c[0] for c in REDUCTION_LOSSES])
def test_loss_module_every_reduction(name, make, inputs, reduction, device):
    check_layer(lambda m: make(m, reduction), *inputs(), device=device, **F32)


def test_multilabel_margin_functional(device):
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [0, -1, -1, -1]])
    out = check(lambda m, x, t: m.nn.functional.multilabel_margin_loss(x, t), rand(3, 4), target, device=device)
    assert type(out.grad_fn).__name__ == "MultilabelMarginLossBackward0"
    check(lambda m, x, t: m.nn.functional.multilabel_margin_loss(x, t, reduction="none"), rand(3, 4), target,
          device=device)
    check(lambda m, x, t: m.nn.functional.multilabel_margin_loss(x, t), rand(), np.array(0), device=device)


def test_cross_map_lrn_grad_fn():
    y = webtorch.nn.CrossMapLRN2d(3)(webtorch.ones(1, 3, 2, 2, requires_grad=True))
    assert type(y.grad_fn).__name__ == type(torch.nn.CrossMapLRN2d(3)(torch.ones(1, 3, 2, 2,
                                                                              requires_grad=True)).grad_fn).__name__


def test_gaussian_nll_float_var(device):
    check(lambda m, x, t: m.nn.GaussianNLLLoss()(x, t, 0.5), rand(4, 3), rand(4, 3), device=device, **F32)


def test_weighted_losses_hold_weight_buffer():
    w = webtorch.ones(4)
    assert [k for k, _ in webtorch.nn.MultiMarginLoss(weight=w).named_buffers()] == ["weight"]
    assert [k for k, _ in webtorch.nn.MultiLabelSoftMarginLoss(weight=w).named_buffers()] == ["weight"]
    assert list(webtorch.nn.MultiMarginLoss(weight=w).state_dict()) == \
        list(torch.nn.MultiMarginLoss(weight=torch.ones(4)).state_dict())


def test_legacy_size_average_reduce():
    for cls in ("PoissonNLLLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss"):
        with pytest.warns(UserWarning):
            ours = getattr(webtorch.nn, cls)(size_average=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = getattr(torch.nn, cls)(size_average=False)
        assert ours.reduction == theirs.reduction == "sum"


# ---- functional forms ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape,groups", [((2, 6, 3), 2), ((2, 6, 3), 3), ((1, 4, 2, 3), 4), ((3, 6, 1, 2, 2), 1)])
def test_channel_shuffle_functional(shape, groups, device):
    out = check(lambda m, x: m.nn.functional.channel_shuffle(x, groups), rand(*shape), device=device)
    assert type(out.grad_fn).__name__ == "ChannelShuffleBackward0"
    check(lambda m, x: m.channel_shuffle(x, groups), rand(*shape), device=device)


def test_channel_shuffle_integer_input(device):
    check(lambda m, x: m.nn.functional.channel_shuffle(x, 2), randint(0, 9, 2, 4, 3), device=device)


def test_channel_shuffle_double_backward():
    x = webtorch.tensor(rand(2, 6, 2), requires_grad=True)
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    g = rand(2, 6, 2)
    ours = webtorch.autograd.grad((webtorch.channel_shuffle(x, 3) ** 2 * webtorch.tensor(g)).sum(), x,
                                  create_graph=True)[0]
    theirs = torch.autograd.grad((torch.channel_shuffle(tx, 3) ** 2 * torch.tensor(g)).sum(), tx,
                                 create_graph=True)[0]
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5)







def test_attributes_match_torch():
    pairs = [
        (lambda m: m.nn.Upsample(scale_factor=2), ("name", "size", "scale_factor", "mode", "align_corners",
                                                    "recompute_scale_factor")),
        (lambda m: m.nn.UpsamplingBilinear2d(scale_factor=(2, 3)), ("scale_factor", "mode", "align_corners")),
        (lambda m: m.nn.PairwiseDistance(p=3), ("norm", "eps", "keepdim")),
        (lambda m: m.nn.MaxUnpool2d(3), ("kernel_size", "stride", "padding")),
        (lambda m: m.nn.ZeroPad2d(1), ("padding", "value")),
        (lambda m: m.nn.CircularPad3d((1, 2, 3, 4, 5, 6)), ("padding",)),
        (lambda m: m.nn.InstanceNorm2d(3), ("num_features", "eps", "momentum", "affine", "track_running_stats",
                                            "running_mean", "weight")),
    ]
    for make, names in pairs:
        ours, theirs = make(webtorch), make(torch)
        for n in names:
            assert getattr(ours, n) == getattr(theirs, n), (type(theirs).__name__, n)
