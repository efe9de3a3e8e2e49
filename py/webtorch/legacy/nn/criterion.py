"""Lua's criteria: forward(input, target) -> a number, backward(input, target) -> gradInput.
MSECriterion, ClassNLLCriterion and CrossEntropyCriterion (class labels are 1-based, as in Lua)."""
import copy

from ... import autograd
from ..._tensor import Tensor
from ...nn import functional as F
from ...ops.creation import empty, tensor
from .module import _grad_leaves, _leaf, _rebuild, convert_fields, typename
from .transfer import _feature_dim


class Criterion:
    __typename__ = "nn.Criterion"

    def __init__(self):
        self.gradInput = empty(0)
        self.output = 0.0
        self._graph = None

    def _loss(self, input, target):
        raise NotImplementedError(f"{typename(self)} does not implement updateOutput")

    def forward(self, input, target):
        return self.updateOutput(input, target)

    def backward(self, input, target):
        return self.updateGradInput(input, target)

    def updateOutput(self, input, target):
        with autograd.enable_grad():
            leaves = _leaf(input)
            loss = self._loss(leaves, target)
        self._graph = (input, target, leaves, loss)
        self.output = loss.item()
        return self.output

    def updateGradInput(self, input, target):
        if self._graph is None or self._graph[0] is not input or self._graph[1] is not target:
            self.updateOutput(input, target)
        _, _, leaves, loss = self._graph
        targets = _grad_leaves(leaves)
        grads = autograd.grad(loss, targets, retain_graph=True, allow_unused=True, materialize_grads=True) \
            if targets and loss.requires_grad else ()
        self.gradInput = _rebuild(leaves, iter(grads))
        return self.gradInput

    def __call__(self, input, target):
        self.forward(input, target)
        self.backward(input, target)
        return self.output, self.gradInput

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_graph"] = None
        return state

    def clone(self):
        return copy.deepcopy(self)

    def type(self, type=None, tensorCache=None):
        if type is None:
            return typename(self.gradInput) if isinstance(self.gradInput, Tensor) else "torch.FloatTensor"
        convert_fields(self, type, tensorCache)
        return self

    def float(self):
        return self.type("torch.FloatTensor")

    def double(self):
        return self.type("torch.DoubleTensor")

    def __repr__(self):
        return typename(self)


class MSECriterion(Criterion):
    """mean (sizeAverage=True) or sum of the squared differences; target has input's number of elements."""
    __typename__ = "nn.MSECriterion"

    def __init__(self, sizeAverage=True):
        super().__init__()
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        if not isinstance(target, Tensor):
            target = tensor(target, dtype=input.dtype, device=input.device)
        if target.numel() != input.numel():
            raise ValueError(f"nn.MSECriterion: input and target should have the same number of elements, got "
                             f"{tuple(input.shape)} and {tuple(target.shape)}")
        return F.mse_loss(input, target.reshape(input.shape).detach(),
                          reduction="mean" if self.sizeAverage else "sum")


def _zero_based(name, target, input, ignore_index):
    """Lua's 1-based class labels (a number or a tensor) as a 0-based int64 tensor, range-checked."""
    t = tensor(target, device=input.device) if not isinstance(target, Tensor) else target
    t = t.long() - 1
    if input.dim() == 1 and t.dim() == 1 and t.numel() == 1:
        t = t.reshape(())
    n_classes = input.shape[0] if input.dim() == 1 else input.shape[1]
    bad = ((t < 0) | (t >= n_classes)) & (t != ignore_index - 1)
    if t.numel() and bool(bad.any()):
        raise IndexError(f"{name}: target out of range: class labels are 1-based, between 1 and {n_classes} "
                         f"(got {(t[bad] + 1).tolist()})")
    return t


class ClassNLLCriterion(Criterion):
    """-input[target] for log-probabilities (n x nClasses, or a vector), averaged over the (weighted)
    targets when sizeAverage; targets equal to ignoreIndex contribute nothing."""
    __typename__ = "nn.ClassNLLCriterion"

    def __init__(self, weights=None, sizeAverage=True, ignoreIndex=-100):
        super().__init__()
        self.weights = weights
        self.sizeAverage = sizeAverage
        self.ignoreIndex = ignoreIndex

    def _loss(self, input, target):
        t = _zero_based(typename(self), target, input, self.ignoreIndex)
        return F.nll_loss(input, t, self.weights, ignore_index=self.ignoreIndex - 1,
                          reduction="mean" if self.sizeAverage else "sum")


class CrossEntropyCriterion(Criterion):
    """LogSoftMax followed by ClassNLLCriterion, in one criterion."""
    __typename__ = "nn.CrossEntropyCriterion"

    def __init__(self, weights=None, sizeAverage=True):
        super().__init__()
        self.weights = weights
        self.sizeAverage = sizeAverage

    def _loss(self, input, target):
        if input.dim() > 2:
            raise ValueError(f"nn.CrossEntropyCriterion: a vector or a batch of vectors (n x nClasses) expected, "
                             f"got {input.dim()}D")
        t = _zero_based(typename(self), target, input, -100)
        logp = F.log_softmax(input, _feature_dim(typename(self), input))
        return F.nll_loss(logp, t, self.weights, reduction="mean" if self.sizeAverage else "sum")
