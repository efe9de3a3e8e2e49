"""Argument normalization shared by layers: _single/_pair/_triple/_ntuple, as PyTorch's nn.modules.utils."""
from collections import abc


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple([x] * n)
    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")


def _reverse_repeat_tuple(t, n):
    """(a, b) -> (b, b, a, a) for n=2: per-dim padding in F.pad's last-dim-first order."""
    return tuple(x for x in reversed(t) for _ in range(n))
