"""Separable resampling by taps: along each resampled spatial dim, out[.., o, ..] = sum_k w[o, k] * x[.., idx[o, k], ..]
over the taps PyTorch's CPU kernels read for output o, zero-weight taps included (so NaN/inf spread as there: an
inf beside a tap of weight 0 gives NaN, an inf no tap reads stays out). Adaptive average pooling (pooling.py) and
interpolate (resampling.py) are such maps.

One dim costs one gather of the taps (index primitive, (.., O, K, ..)) and one weighted sum over K; dims are
resampled last dim first, as PyTorch's nested kernel adds them up. The backward is the transposed map -- for each
input position, the outputs that read it -- applied the same way (so double backward is one more transpose). Taps
are built once per (backend, dtype, key) and cached.
"""
from .._dtype import bool_, int32
from ..autograd.graph import Node, apply_op
from ._core.dispatch import wrap

_TAPS = {}


class Taps:
    """One dim's map as constant handles: idx (O, K) int32, w (O, K) or None (all ones), mask (O, K) bool or None
    (every tap real: outputs with fewer taps are padded with masked ones), div (O,) or None (a divisor per output:
    adaptive average pooling sums its window, then divides, as PyTorch)."""

    __slots__ = ("be", "dtype", "rows", "divide", "back", "L", "O", "K", "idx", "w", "mask", "div", "_views", "_t")

    def __init__(self, be, dtype, rows, L, divide, back=None):
        self.be, self.dtype, self.rows, self.L, self.divide, self.back = be, dtype, rows, L, divide, back
        self.O, self.K = len(rows), max(1, max(map(len, rows)))
        pad = [r + [(r[-1][0] if r else 0, 0.0)] * (self.K - len(r)) for r in rows]
        shape = (self.O, self.K)
        self.idx = be.from_flat([j for r in pad for j, _ in r], shape, int32)
        self.w = None if divide or all(w == 1.0 for r in rows for _, w in r) else \
            be.from_flat([w for r in pad for _, w in r], shape, dtype)
        self.mask = None if all(len(r) == self.K for r in rows) else \
            be.from_flat([k < len(r) for r in rows for k in range(self.K)], shape, bool_)
        self.div = be.from_flat([float(len(r)) for r in rows], (self.O,), dtype) if divide else None
        self._views, self._t = {}, None

    def _view(self, h, trailing):
        """h (O, K) or (O,) viewed with ``trailing`` size-1 dims appended (to broadcast against the gather)."""
        key = (id(h), trailing)
        v = self._views.get(key)
        if v is None:
            shape = tuple(self.be.geometry(h)[0]) + (1,) * trailing
            v = self._views[key] = self.be.reshape_view(h, shape)
        return v

    def apply(self, h, d, nd):
        """h (.., L, ..) with L at dim d of nd -> (.., O, ..), a fresh contiguous handle."""
        be, dt, rest = self.be, self.dtype, nd - d - 1
        if self.K == 1 and self.w is None and self.mask is None and self.div is None:
            return be.index(h, (None,) * d + (be.reshape_view(self.idx, (self.O,)),))
        g = be.index(h, (None,) * d + (self.idx,))
        if self.mask is not None:
            g = be.elementwise("where", [self._view(self.mask, rest), g, 0.0], dt)
        if self.w is not None:
            g = be.elementwise("mul", [g, self._view(self.w, rest)], dt)
        g = be.reduce("sum", g, (d + 1,), False, dt)
        if self.div is not None:
            g = be.elementwise("div", [g, self._view(self.div, rest)], dt)
        return g

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


def _apply_all(be, h, nd, maps, last_first):
    dims = [i for i, t in enumerate(maps) if t is not None]
    if not dims:
        return be.contiguous(h)
    for i in (reversed(dims) if last_first else dims):
        h = maps[i].apply(h, 2 + i, nd)
    return h


class _Resample(Node):
    """x with a Taps map applied along each spatial dim (None: that dim unchanged)."""

    @staticmethod
    def forward(ctx, x, maps, last_first=True):
        ctx.maps, ctx.last_first = maps, last_first
        shape = tuple(x.shape[:2]) + tuple(s if t is None else t.O for s, t in zip(x.shape[2:], maps))
        return wrap(_apply_all(x._be, x._data, x.dim(), maps, last_first), x, shape)

    @staticmethod
    def backward(ctx, g):
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
