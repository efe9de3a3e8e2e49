"""Separable linear resampling: x with a constant (L_in, L_out) matrix applied along each spatial dim with
matmul, so forward, backward (the transposed matrices) and double backward are GEMMs on every backend. The
matrices are built once per (backend, dtype, shape, mode) and cached. Adaptive average pooling (pooling.py) and
interpolate (resampling.py) are such maps.
"""
from ..autograd.graph import Node
from ._core.dispatch import wrap, wrap_view

_MATRICES = {}


def constant_matrix(like, key, build):
    """(cached constant (L_in, L_out) handle on like's backend in like's dtype, L_out); key = (kind, L_in, L_out,
    ...)."""
    full = (id(like._be), like.dtype) + key
    h = _MATRICES.get(full)
    if h is None:
        L, O = key[1], key[2]
        vals = [0.0] * (L * O)
        for j, o, w in build():
            vals[j * O + o] += w
        h = _MATRICES[full] = like._be.from_flat(vals, (L, O), like.dtype)
    return h, key[2]


def _apply_mats(be, h, nd, mats):
    for i, m in enumerate(mats):
        if m is None:
            continue
        d = 2 + i
        perm = tuple(k for k in range(nd) if k != d) + (d,)
        inv = [0] * nd
        for pos, k in enumerate(perm):
            inv[k] = pos
        h = be.permute(be.matmul(be.permute(h, perm), m[0]), tuple(inv))
    return be.contiguous(h)


class _Resample(Node):
    """x with a constant matrix applied along each spatial dim (None: that dim unchanged)."""

    @staticmethod
    def forward(ctx, x, mats):
        ctx.mats = mats
        shape = tuple(x.shape[:2]) + tuple(s if m is None else m[1] for s, m in zip(x.shape[2:], mats))
        return wrap(_apply_mats(x._be, x._data, x.dim(), mats), x, shape)

    @staticmethod
    def backward(ctx, g):
        be = g._be
        for i, m in enumerate(ctx.mats):
            if m is not None:
                g = g.movedim(2 + i, -1).matmul(wrap_view(be.permute(m[0], (1, 0)), g)).movedim(-1, 2 + i)
        return g


_RESAMPLE_NODES = {}


def resample_node(name):
    node = _RESAMPLE_NODES.get(name)
    if node is None:
        node = _RESAMPLE_NODES[name] = type(name, (_Resample,), {"__slots__": ()})
    return node
