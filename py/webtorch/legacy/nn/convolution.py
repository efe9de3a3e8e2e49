"""Lua's spatial layers: SpatialConvolution, SpatialMaxPooling (inputs nPlane x H x W, or batched)."""
from ...nn import functional as F
from .module import Module
from .simple import _WeightBias, _uniform_reset


def _check_planes(name, input, planes):
    if input.dim() not in (3, 4):
        raise ValueError(f"{name}: 3D (nInputPlane x height x width) or 4D (batch mode) input expected, "
                         f"got {input.dim()}D")
    if planes is not None and input.shape[-3] != planes:
        raise ValueError(f"{name}: input has {input.shape[-3]} planes but the layer expects {planes} "
                         "(nInputPlane)")


class SpatialConvolution(_WeightBias):
    """SpatialConvolution(nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=padW);
    weight nOutputPlane x nInputPlane x kH x kW."""
    __typename__ = "nn.SpatialConvolution"

    def __init__(self, nInputPlane, nOutputPlane, kW, kH, dW=1, dH=1, padW=0, padH=None):
        super().__init__()
        self.nInputPlane, self.nOutputPlane = nInputPlane, nOutputPlane
        self.kW, self.kH, self.dW, self.dH = kW, kH, dW, dH
        self.padW, self.padH = padW, padW if padH is None else padH
        self._create((nOutputPlane, nInputPlane, kH, kW), nOutputPlane)

    def reset(self, stdv=None):
        return _uniform_reset(self, self.kW * self.kH * self.nInputPlane, stdv)

    def _compute(self, input, weight, bias=None):
        _check_planes("nn.SpatialConvolution", input, self.nInputPlane)
        return F.conv2d(input, weight, bias, (self.dH, self.dW), (self.padH, self.padW))

    def __repr__(self):
        s = f"nn.SpatialConvolution({self.nInputPlane} -> {self.nOutputPlane}, {self.kW}x{self.kH}"
        if self.dW != 1 or self.dH != 1 or self.padW or self.padH:
            s += f", {self.dW},{self.dH}"
        if self.padW or self.padH:
            s += f", {self.padW},{self.padH}"
        return s + ")" + ("" if self.bias is not None else " without bias")


class SpatialMaxPooling(Module):
    """SpatialMaxPooling(kW, kH, dW=kW, dH=kH, padW=0, padH=0); :ceil() / :floor() pick the rounding."""
    __typename__ = "nn.SpatialMaxPooling"
    _param_fields = ()

    def __init__(self, kW, kH, dW=None, dH=None, padW=0, padH=0):
        super().__init__()
        self.kW, self.kH = kW, kH
        self.dW, self.dH = dW or kW, dH or kH
        self.padW, self.padH = padW, padH
        if padW > kW // 2 or padH > kH // 2:
            raise ValueError("nn.SpatialMaxPooling: pad should be smaller than half of the kernel size")
        self.ceil_mode = False

    def ceil(self):
        self.ceil_mode = True
        return self

    def floor(self):
        self.ceil_mode = False
        return self

    def _compute(self, input):
        _check_planes("nn.SpatialMaxPooling", input, None)
        return F.max_pool2d(input, (self.kH, self.kW), (self.dH, self.dW), (self.padH, self.padW),
                            ceil_mode=self.ceil_mode)

    def __repr__(self):
        s = f"nn.SpatialMaxPooling({self.kW}x{self.kH}, {self.dW},{self.dH}"
        if self.padW or self.padH:
            s += f", {self.padW},{self.padH}"
        return s + ")"
