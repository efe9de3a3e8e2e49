"""Lua's transfer functions: Tanh, Sigmoid, Threshold, ReLU, SoftMax, LogSoftMax."""
from ...nn import functional as F
from .module import Module


class _Transfer(Module):
    _param_fields = ()


class Tanh(_Transfer):
    __typename__ = "nn.Tanh"

    def _compute(self, input):
        return input.tanh()


class Sigmoid(_Transfer):
    __typename__ = "nn.Sigmoid"

    def _compute(self, input):
        return input.sigmoid()


class Threshold(_Transfer):
    """y = x where x > th, else v; ip=True writes the result into the input."""
    __typename__ = "nn.Threshold"

    def __init__(self, th=1e-6, v=0, ip=False):
        super().__init__()
        self.threshold, self.val, self.inplace = th, v, ip
        if ip and v > th:
            raise ValueError("nn.Threshold: in-place processing requires value (v) not to exceed threshold (th)")

    @property
    def _inplace_output(self):
        return self.inplace

    def _compute(self, input):
        return F.threshold(input, self.threshold, self.val)

    def __repr__(self):
        return f"nn.Threshold({self.threshold}, {self.val})" if type(self) is Threshold else type(self).__typename__


class ReLU(Threshold):
    __typename__ = "nn.ReLU"

    def __init__(self, ip=False):
        super().__init__(0, 0, ip)


def _feature_dim(name, input):
    """Lua's softmax dimension: the features of a vector, of a batch of vectors (n x f), of a feature
    map (f x h x w) or of a batch of feature maps (n x f x h x w)."""
    nd = input.dim()
    if nd not in (1, 2, 3, 4):
        raise ValueError(f"{name}: 1D, 2D, 3D or 4D tensor expected, got {nd}D")
    return {1: 0, 2: 1, 3: 0, 4: 1}[nd]


class SoftMax(_Transfer):
    __typename__ = "nn.SoftMax"

    def _compute(self, input):
        return F.softmax(input, _feature_dim("nn.SoftMax", input))


class LogSoftMax(_Transfer):
    __typename__ = "nn.LogSoftMax"

    def _compute(self, input):
        return F.log_softmax(input, _feature_dim("nn.LogSoftMax", input))
