"""Dropout family: elementwise, channel-wise (1d/2d/3d, feature) and alpha dropout.

The mask comes from the backend's bernoulli primitive on the default Generator of the input's device;
the result is ``input * noise`` (+ a shift for alpha dropout), so the backward (MulBackward0) reuses the
exact zero pattern of the forward. As PyTorch: p == 0, eval mode or an empty input return the input.
"""
import math
import warnings

from .creation import rng_for
from ._core.dispatch import wrap

_SELU_ALPHA = 1.7580993408473766  # -selu's negative saturation value: scale * alpha


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _bernoulli(input, keep, shape):
    h = input._be.bernoulli(keep, tuple(shape), input.dtype, rng_for(None, input._device))
    return wrap(h, input, shape)


def _feature_shape(input, batched):
    """Noise shape dropping whole channels: (N, C, 1, ...) batched, (C, 1, ...) without a batch dim."""
    s = tuple(input.shape)
    if len(s) + (not batched) < 2:   # PyTorch gives an unbatched input its batch dim before this check
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if batched:
        return s[:2] + (1,) * (len(s) - 2)
    return s[:1] + (1,) * (len(s) - 1)


def _dropout(input, p, train, inplace, feature=False, alpha=False, batched=True):
    """ATen's _dropout_impl."""
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = input.new_zeros(())
        return input.mul_(zero) if inplace else input * zero
    shape = _feature_shape(input, batched) if feature else tuple(input.shape)
    noise = _bernoulli(input, 1.0 - p, shape)   # of the input's dtype: scaling it in place refuses integers, as ATen
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
        b = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
        noise.mul_(a)
        return input.mul_(noise).add_(b) if inplace else input * noise + b
    noise.div_(1.0 - p)
    return input.mul_(noise) if inplace else input * noise


def dropout(input, p=0.5, training=True, inplace=False):
    """F.dropout: zero each element with probability p, scale the rest by 1/(1-p)."""
    _check_p(p)
    return _dropout(input, p, training, inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """F.alpha_dropout: dropout that keeps SELU's self-normalizing mean and variance."""
    _check_p(p)
    return _dropout(input, p, training, inplace, alpha=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _dropout(input, p, training, inplace, feature=True, alpha=True)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """F.dropout1d: drops whole channels of (N, C, L) or (C, L) input."""
    _check_p(p)
    d = input.dim()
    if d not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {d}D input. Note that dropout1d "
                           "exists to provide channel-wise dropout on inputs with 1 spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _dropout(input, p, training, inplace, feature=True, batched=d == 3)


def _warn_rank(name, d, spatial):
    warnings.warn(f"{name}: Received a {d}-D input to {name}, which is deprecated and will result in an error in a "
                  "future release. To retain the behavior and silence this warning, please use dropout instead. Note "
                  f"that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial dimensions, a "
                  f"channel dimension, and an optional batch dimension (i.e. {spatial + 1}D or {spatial + 2}D inputs).",
                  stacklevel=3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """F.dropout2d: drops whole channels of (N, C, H, W) input (3-D input: channel-wise 1-D, as PyTorch)."""
    _check_p(p)
    d = input.dim()
    if d not in (3, 4):
        _warn_rank("dropout2d", d, 2)
    if d == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _dropout(input, p, training, inplace, feature=True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """F.dropout3d: drops whole channels of (N, C, D, H, W) or (C, D, H, W) input."""
    _check_p(p)
    d = input.dim()
    if d not in (4, 5):
        _warn_rank("dropout3d", d, 3)
    return _dropout(input, p, training, inplace, feature=True, batched=d == 5)


# torch.<name>(input, p, train): ATen's signatures (train is required)
def _aten(feature, alpha, inplace):
    def fn(input, p, train):
        return _dropout(input, p, train, inplace, feature=feature, alpha=alpha)
    return fn


aten_dropout, aten_dropout_ = _aten(False, False, False), _aten(False, False, True)
aten_feature_dropout, aten_feature_dropout_ = _aten(True, False, False), _aten(True, False, True)
aten_alpha_dropout, aten_alpha_dropout_ = _aten(False, True, False), _aten(False, True, True)
aten_feature_alpha_dropout, aten_feature_alpha_dropout_ = _aten(True, True, False), _aten(True, True, True)

FUNCTIONS = {
    "dropout": aten_dropout, "dropout_": aten_dropout_, "feature_dropout": aten_feature_dropout,
    "feature_dropout_": aten_feature_dropout_, "alpha_dropout": aten_alpha_dropout,
    "alpha_dropout_": aten_alpha_dropout_, "feature_alpha_dropout": aten_feature_alpha_dropout,
    "feature_alpha_dropout_": aten_feature_alpha_dropout_,
}
FUNCTIONAL = {"dropout": dropout, "alpha_dropout": alpha_dropout, "feature_alpha_dropout": feature_alpha_dropout,
              "dropout1d": dropout1d, "dropout2d": dropout2d, "dropout3d": dropout3d}
