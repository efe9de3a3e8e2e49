"""Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout: active in training mode only."""
from .. import functional as F
from .module import Module


class _DropoutNd(Module):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return getattr(F, self._fn)(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability p, scale the rest by 1/(1-p)."""
    _fn = "dropout"


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) inputs."""
    _fn = "dropout1d"


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) inputs."""
    _fn = "dropout2d"


class AlphaDropout(_DropoutNd):
    _fn = "alpha_dropout"


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) inputs."""
    _fn = "dropout3d"


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels (SELU networks)."""
    _fn = "feature_alpha_dropout"
