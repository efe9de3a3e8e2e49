"""Separable resampling by taps: along each resampled spatial dim, out[.., o, ..] = sum_k w[o, k] * x[.., idx[o, k], ..]
over the taps PyTorch's CPU kernels read for output o, zero-weight taps included (so NaN/inf spread as there: an
inf beside a tap of weight 0 gives NaN, an inf no tap reads stays out). Adaptive average pooling (pooling.py) and
interpolate (resampling.py) are such maps.

One dim is one call of the backend's resample_taps primitive (the index primitive for nearest of integer
images); dims are resampled last dim first, as PyTorch's nested kernel adds them up. The backward is the transposed
map -- for each input position, the outputs that read it -- applied the same way (so double backward is one more
transpose). Taps are built once per (backend, dtype, key) and cached.
"""
import re

from .._dtype import int32
from ..autograd.graph import Node, apply_op
from ._core.dispatch import wrap

_TAPS = {}


class Taps:
    """One dim's map as constant handles for the backend's resample_taps: idx (O, K) int32 (-1 pads an output with
    fewer taps), w (O, K) or None (all ones), div (O,) or None (adaptive average pooling sums its window, then
    divides by its size, as PyTorch)."""

    __slots__ = ("be", "dtype", "rows", "divide", "back", "L", "O", "K", "idx", "w", "div", "_t")

    def __init__(self, be, dtype, rows, L, divide, back=None):
        self.be, self.dtype, self.rows, self.L, self.divide, self.back = be, dtype, rows, L, divide, back
        self.O, self.K = len(rows), max(1, max(map(len, rows), default=0))
        pad = [r + [(-1, 0.0)] * (self.K - len(r)) for r in rows]
        shape = (self.O, self.K)
        self.idx = be.from_flat([j for r in pad for j, _ in r], shape, int32)
        self.w = None if divide or all(w == 1.0 for r in rows for _, w in r) else \
            be.from_flat([w for r in pad for _, w in r], shape, dtype)
        self.div = be.from_flat([float(len(r)) for r in rows], (self.O,), dtype) if divide else None
        self._t = None

    def apply(self, h, d):
        """h (.., L, ..) with L at dim d -> (.., O, ..), a fresh contiguous handle."""
        be = self.be
        if self.O == 0:   # output_size 0 (adaptive pooling): an empty result
            shape = list(be.geometry(h)[0])
            shape[d] = self.O
            return be.empty(tuple(shape), self.dtype)
        if not self.dtype.is_floating_point:   # nearest of uint8 images: one tap of weight 1 each, a plain gather
            return be.index(h, (None,) * d + (be.reshape_view(self.idx, (self.O,)),))
        return be.resample_taps(h, d, self.idx, self.w, self.div)

    def transposed(self):
        """The backward's map: the adjoint of ``back`` (the rows PyTorch's backward kernel reads, where they differ
        from its forward's) or of this map -- each input's taps are the outputs that read it, in output order;
        None when that is the identity."""
        if self._t is None:
            cols = [[] for _ in range(self.L)]
            for o, r in enumerate(self.back or self.rows):
                for j, w in r:
                    cols[j].append((o, 1.0 / len(r) if self.divide else w))
            identity = self.L == self.O and all(c == [(j, 1.0)] for j, c in enumerate(cols))
            self._t = False if identity else Taps(self.be, self.dtype, cols, self.O, False)
        return self._t or None


def taps(like, key, build, divide=False, back=None):
    """Cached Taps on like's backend in like's dtype; key = (kind, L_in, L_out, ...), build() -> one list of
    (input index, weight) per output, in the order PyTorch adds them; back: the same for PyTorch's backward kernel
    when it reads other taps than its forward (None: the same taps)."""
    full = (id(like._be), like.dtype) + key
    t = _TAPS.get(full)
    if t is None:
        t = _TAPS[full] = Taps(like._be, like.dtype, [list(r) for r in build()], key[1], divide,
                               back and [list(r) for r in back()])
    return t


def _apply_all(be, h, maps, last_first):
    dims = [i for i, t in enumerate(maps) if t is not None]
    if not dims:
        return be.contiguous(h)
    for i in (reversed(dims) if last_first else dims):
        h = maps[i].apply(h, 2 + i)
    return h


class _Resample(Node):
    """x with a Taps map applied along each spatial dim (None: that dim unchanged)."""

    @staticmethod
    def forward(ctx, x, maps, last_first=True):
        ctx.maps, ctx.last_first = maps, last_first
        shape = tuple(x.shape[:2]) + tuple(s if t is None else t.O for s, t in zip(x.shape[2:], maps))
        return wrap(_apply_all(x._be, x._data, maps, last_first), x, shape)

    @staticmethod
    def backward(ctx, g):
        empty = [i for i, s in enumerate(g.shape) if i and not s]
        if empty:   # PyTorch's backward kernels refuse a gradient with an empty non-batch dim (output_size 0)
            kernel = re.sub(r"(?<!^)(?=[A-Z][a-z])", "_", type(ctx).__name__[:-len("Backward0")]).lower()
            raise RuntimeError(f"{kernel}_backward(): Expected grad_output to have non-zero size for non-batch "
                               f"dimensions, but grad_output has sizes {list(g.shape)} with dimension {empty[0]} "
                               "being empty")
        return apply_op(resample_node(_adjoint_name(type(ctx).__name__)),
                        g, tuple(None if t is None else t.transposed() for t in ctx.maps), not ctx.last_first)


def _adjoint_name(name):
    """PyTorch's grad_fn name of the adjoint: UpsampleLinear1DBackward0 <-> UpsampleLinear1DBackwardBackward0."""
    if name.endswith("BackwardBackward0"):
        return name[:-len("BackwardBackward0")] + "Backward0"
    return name[:-len("Backward0")] + "BackwardBackward0"


_RESAMPLE_NODES = {}


def resample_node(name):
    node = _RESAMPLE_NODES.get(name)
    if node is None:
        node = _RESAMPLE_NODES[name] = type(name, (_Resample,), {"__slots__": ()})
    return node
