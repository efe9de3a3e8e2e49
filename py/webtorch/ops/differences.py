"""Finite differences and integration along a dim: diff, gradient (second-order accurate central differences,
first- or second-order edges, uniform or coordinate spacing), trapezoid/trapz and cumulative_trapezoid."""
from .. import _dtype as D
from .._tensor import Tensor
from ._core.dispatch import norm_dim
from .arithmetic import check_sub
from .shape import cat
from . import publish


def _slice(x, dim, start, stop):
    n = x.shape[dim]
    start, stop = start % (n + 1) if start < 0 else start, stop % (n + 1) if stop < 0 else stop
    return x.narrow(dim, start, max(0, stop - start))


def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = norm_dim(dim, input.dim())
    x = input
    if prepend is not None or append is not None:
        parts = [t if t.dim() else t.expand(tuple(1 if i == d else s for i, s in enumerate(x.shape)))
                 for t in (prepend, x, append) if t is not None]
        x = cat(parts, dim=d)
    for _ in range(n):
        if x.shape[d] == 0:
            break
        a, b = _slice(x, d, 1, x.shape[d]), _slice(x, d, 0, x.shape[d] - 1)
        x = a.logical_xor(b) if x.dtype is D.bool_ else a - b
    return x


def _along(t, dim, ndim):
    """A 1-D tensor shaped to broadcast along dim of an ndim-dim tensor."""
    return t.reshape(tuple(-1 if i == dim else 1 for i in range(ndim)))


def _gradient_dim(f, d, spacing, edge_order):
    n = f.shape[d]
    nd = f.dim()
    if isinstance(spacing, Tensor):
        dx = _along(spacing[1:] - spacing[:-1], d, nd).to(f.dtype)
        dx1, dx2 = _slice(dx, d, 0, n - 2), _slice(dx, d, 1, n - 1)
    else:
        dx = dx1 = dx2 = spacing
    f0, f1, f2 = _slice(f, d, 0, n - 2), _slice(f, d, 1, n - 1), _slice(f, d, 2, n)
    if isinstance(spacing, Tensor):
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        interior = a * f0 + b * f1 + c * f2
    else:
        interior = (f2 - f0) / (2 * spacing)
    g0, g1 = _slice(f, d, 0, 1), _slice(f, d, 1, 2)
    l0, l1 = _slice(f, d, n - 1, n), _slice(f, d, n - 2, n - 1)
    if edge_order == 2:   # (a dim of 2 elements has no third for edge_order=1)
        g2, l2 = _slice(f, d, 2, 3), _slice(f, d, n - 3, n - 2)
    if isinstance(spacing, Tensor):
        h0, hl0 = _slice(dx, d, 0, 1), _slice(dx, d, n - 2, n - 1)
        if edge_order == 2:
            h1, hl1 = _slice(dx, d, 1, 2), _slice(dx, d, n - 3, n - 2)
    else:
        h0 = h1 = hl0 = hl1 = spacing
    if edge_order == 1:
        first = (g1 - g0) / h0
        last = (l0 - l1) / hl0
    elif isinstance(spacing, Tensor):
        first = (-(2 * h0 + h1) / (h0 * (h0 + h1)) * g0 + (h0 + h1) / (h0 * h1) * g1
                 - h0 / (h1 * (h0 + h1)) * g2)
        last = (hl0 / (hl1 * (hl1 + hl0)) * l2 - (hl1 + hl0) / (hl1 * hl0) * l1
                + (2 * hl0 + hl1) / (hl0 * (hl1 + hl0)) * l0)
    else:
        first = (-1.5 * g0 + 2 * g1 - 0.5 * g2) / spacing
        last = (0.5 * l2 - 2 * l1 + 1.5 * l0) / spacing
    return cat([first, interior, last], dim=d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.dim())) if dim is None else (
        [norm_dim(dim, input.dim())] if isinstance(dim, int) else [norm_dim(d, input.dim()) for d in dim])
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a list of length "
                               f"equal to 'self.dim() = {input.dim()}', since dim argument was not given, but got "
                               f"a list of length {len(spacing)}" if dim is None else
                               f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                               f"arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        spacings = list(spacing)
    else:
        spacings = [spacing] * len(dims)
    if input.dtype is D.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    check_sub(input, input)   # PyTorch differences the input in its own dtype, which refuses bool
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.dtype.is_floating_point else input.to(D.get_default_dtype())
    out = []
    for d, s in zip(dims, spacings):
        if isinstance(s, Tensor) and s.dim() == 0:
            s = s.item()
        out.append(_gradient_dim(f, d, s, edge_order))
    return tuple(out)


def _refuse_bool(name, y, x):
    if isinstance(x, Tensor) and D.bool_ in (x.dtype, y.dtype):
        raise RuntimeError(f"{name}: received a bool input for `x` or `y`, but bool is not supported")
    if y.dtype is D.bool_:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def trapezoid(y, x=None, *, dx=None, dim=-1):
    d = norm_dim(dim, y.dim())
    _refuse_bool("trapezoid", y, x)
    n = y.shape[d]
    if isinstance(x, Tensor):
        if x.dim() == 1:
            if x.shape[0] != n:
                raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
            steps = _along(x[1:] - x[:-1], d, y.dim())
        else:
            steps = diff(x, dim=d)
        if n == 0:
            return (y * 0).sum(d)
        return (steps * (_slice(y, d, 1, n) + _slice(y, d, 0, n - 1))).sum(d) / 2
    h = 1 if dx is None else dx
    h = x if x is not None and dx is None else h
    if n == 0:
        return (y * 0).sum(d)
    return (y.sum(d) - (_slice(y, d, 0, 1) + _slice(y, d, n - 1, n)).squeeze(d) * 0.5) * h


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d = norm_dim(dim, y.dim())
    _refuse_bool("cumulative_trapezoid", y, x)
    n = y.shape[d]
    pair = _slice(y, d, min(n, 1), n) + _slice(y, d, 0, max(n - 1, 0))
    if isinstance(x, Tensor):
        if x.dim() == 1 and x.shape[0] != n:
            raise RuntimeError("cumulative_trapezoid: There must be one `x` value for each sample point")
        steps = _along(x[1:] - x[:-1], d, y.dim()) if x.dim() == 1 else diff(x, dim=d)
        return (pair * steps / 2).cumsum(d)
    h = 1 if dx is None else dx
    h = x if x is not None and dx is None else h
    return (pair * (h / 2)).cumsum(d)


FUNCTIONS = {"diff": diff, "gradient": gradient, "trapezoid": trapezoid, "trapz": trapz,
             "cumulative_trapezoid": cumulative_trapezoid}
METHODS = {"diff": diff}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its methods and tables now
