"""AdaptiveLogSoftmaxWithLoss (Grave et al., "Efficient softmax approximation for GPUs"): a head softmax over the
frequent classes plus one entry per cluster of rarer classes, each cluster a small two-layer projection of its own;
a class's log-probability is its head entry, or its cluster's head entry plus its log-probability inside the
cluster."""
import itertools
from collections import namedtuple

from ...ops.extrema import argmax
from ...ops.shape import cat
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """forward(input (N, in_features), target (N,)) -> (output: each target's log-probability (N,), loss: the mean
    negative log-likelihood; unbatched: input (in_features,), target ()); ``log_prob(input)`` gives every class's,
    ``predict(input)`` the most likely class."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                             "where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for to_hidden, to_classes in self.tail:
            to_hidden.reset_parameters()
            to_classes.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.shape[0]
        output = input.new_zeros(n)
        head_index = target.new_empty(n)  # each row's entry in the head: its class, or its cluster
        covered = 0
        for i, (low, high) in enumerate(itertools.pairwise([0] + self.cutoffs)):
            rows = ((target >= low) & (target < high)).nonzero().flatten()
            if rows.numel() == 0:
                continue
            covered += rows.numel()
            if i == 0:
                head_index.index_copy_(0, rows, target.index_select(0, rows))
                continue
            head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
            inside = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            local = (target.index_select(0, rows) - low).unsqueeze(1)
            output.index_copy_(0, rows, inside.gather(1, local).squeeze(1))
        if covered != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        output = output + F.log_softmax(self.head(input), dim=1).gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head = F.log_softmax(head_output, dim=1)
        parts = [head[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            parts.append(F.log_softmax(cluster(input), dim=1) + head[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input):
        """Log-probabilities of every class: (N, in_features) -> (N, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each example: log_prob(input).argmax(1), computing the clusters only for the
        examples whose head choice is a cluster."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        in_tail = output >= self.shortlist_size
        if bool(in_tail.all()):
            return argmax(self._full_log_prob(input, head_output), dim=1)
        if bool(in_tail.any()):
            output[in_tail] = argmax(self._full_log_prob(input[in_tail], head_output[in_tail]), dim=1)
        return output
