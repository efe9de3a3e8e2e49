"""Lua's simple layers: Linear, Reshape, View, Dropout."""
import math

from ..._geometry import numel as _numel
from ...nn import functional as F
from ...ops.creation import empty
from .module import Module, typename


def _uniform_reset(module, fan_in, stdv):
    """Lua's reset(stdv): U(-stdv*sqrt(3), stdv*sqrt(3)) when given, else U(-1/sqrt(fan_in), 1/sqrt(fan_in))."""
    bound = stdv * math.sqrt(3) if stdv is not None else 1.0 / math.sqrt(fan_in)
    for name in ("weight", "bias"):
        t = getattr(module, name, None)
        if t is not None:
            t.uniform_(-bound, bound)
    return module


class _WeightBias(Module):
    """A layer with weight/gradWeight and optional bias/gradBias, reset as Lua does."""

    def _create(self, weight_shape, bias_size, bias=True):
        self.weight = empty(weight_shape)
        self.gradWeight = empty(weight_shape).zero_()
        if bias:
            self.bias = empty(bias_size)
            self.gradBias = empty(bias_size).zero_()
        self.reset()

    def noBias(self):
        self.bias = self.gradBias = None
        return self


class Linear(_WeightBias):
    """y = W x + b for a vector x (inputSize) or a batch (n, inputSize); weight (outputSize, inputSize)."""
    __typename__ = "nn.Linear"

    def __init__(self, inputSize, outputSize, bias=True):
        super().__init__()
        self._create((outputSize, inputSize), outputSize, bias)

    def reset(self, stdv=None):
        return _uniform_reset(self, self.weight.shape[1], stdv)

    def _compute(self, input, weight, bias=None):
        if input.dim() not in (1, 2):
            raise ValueError(f"nn.Linear: input must be a vector or a matrix, got {input.dim()} dimensions")
        if input.shape[-1] != weight.shape[1]:
            raise ValueError(f"nn.Linear: input has {input.shape[-1]} features but the layer expects "
                             f"{weight.shape[1]} (inputSize)")
        return F.linear(input, weight, bias)

    def __repr__(self):
        tail = "" if getattr(self, "bias", None) is not None else " without bias"
        return f"nn.Linear({self.weight.shape[1]} -> {self.weight.shape[0]}){tail}"


class Reshape(Module):
    """Reshape(d1, d2, ..., [batchMode]): the input viewed as d1 x d2 x ...; a leading batch dimension
    is kept when the input has more elements (or when batchMode is true)."""
    __typename__ = "nn.Reshape"
    _param_fields = ()

    def __init__(self, *sizes):
        super().__init__()
        self.batchMode = None
        if sizes and isinstance(sizes[-1], bool):
            self.batchMode, sizes = sizes[-1], sizes[:-1]
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        self.size = tuple(int(s) for s in sizes)
        self.nelement = _numel(self.size)

    def _compute(self, input):
        if self.batchMode is False or (self.batchMode is None and input.numel() == self.nelement
                                       and input.shape[0] != 1):
            shape = self.size
        else:
            shape = (input.shape[0],) + self.size
        if _numel(shape) != input.numel():
            raise ValueError(f"nn.Reshape: cannot view an input of size {tuple(input.shape)} "
                             f"({input.numel()} elements) as {shape}")
        return input.reshape(shape)

    def __repr__(self):
        return f"nn.Reshape({'x'.join(str(s) for s in self.size)})"


class View(Module):
    """View(sizes...): like Tensor.view; one size may be -1. Extra leading elements form a batch
    dimension; setNumInputDims(n) says how many trailing input dims one sample has."""
    __typename__ = "nn.View"
    _param_fields = ()

    def __init__(self, *sizes):
        super().__init__()
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        self.size = tuple(int(s) for s in sizes)
        if sum(1 for s in self.size if s == -1) > 1:
            raise ValueError("nn.View: at most one size may be -1")
        self.numElements = _numel(s for s in self.size if s != -1)
        self.numInputDims = None

    def setNumInputDims(self, numInputDims):
        self.numInputDims = numInputDims
        return self

    def _batchsize(self, input):
        shape, nd = tuple(input.shape), input.dim()
        maxdim = self.numInputDims if self.numInputDims is not None else nd
        sample = _numel(shape[nd - maxdim:])
        if sample % self.numElements:
            raise ValueError(f"nn.View: input view {shape} and desired view {self.size} do not match")
        bsz = 1 if -1 in self.size else sample // self.numElements
        bsz *= _numel(shape[:nd - maxdim])
        if bsz == 1 and (self.numInputDims is None or nd <= self.numInputDims):
            return None
        return bsz

    def _compute(self, input):
        bsz = self._batchsize(input)
        shape = self.size if bsz is None else (bsz,) + self.size
        return input.reshape(shape)

    def __repr__(self):
        return f"nn.View({', '.join(str(s) for s in self.size)})"


class Dropout(Module):
    """Dropout(p=0.5, v1=False, inplace=False, stochasticInference=False). Training: zero each element
    with probability p and scale the rest by 1/(1-p) (v1: no scaling when training, times (1-p) when
    evaluating). Evaluation: the identity unless stochasticInference."""
    __typename__ = "nn.Dropout"
    _param_fields = ()

    def __init__(self, p=0.5, v1=False, inplace=False, stochasticInference=False):
        super().__init__()
        self.setp(p)
        self.v2 = not v1
        self.inplace = inplace
        self.stochastic_inference = stochasticInference

    @property
    def _inplace_output(self):
        return self.inplace

    def setp(self, p):
        if not 0 <= p < 1:
            raise ValueError(f"nn.Dropout: p must be in [0, 1), got {p}")
        self.p = p
        return self

    def _compute(self, input):
        if self.p == 0 or not (self.train or self.stochastic_inference):
            return input * (1 - self.p) if not self.v2 else input * 1
        y = F.dropout(input, self.p, True)
        return y if self.v2 else y * (1 - self.p)

    def __repr__(self):
        return f"{typename(self)}({self.p:.6f})"
