"""cov and corrcoef of the rows of a matrix (variables) over its columns (observations), with PyTorch's
frequency and analytic observation weights and correction."""
from .. import _dtype as D
from .._dtype import scalar_type_name
from .where_clamp import clamp
from . import publish


def _check_weights(w, kind, n, integral):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with "
                           f"{w.dim()} dimensions")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are observations in the input "
                           f"but got {w.numel()} != {n}")
    name = scalar_type_name(w.dtype)
    if integral and (w.dtype.is_floating_point or w.dtype is D.bool_):
        raise RuntimeError(f"cov(): expected {kind} to have integral dtype but got {kind} with {name} dtype")
    if not integral and not w.dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected {kind} to have floating point dtype but got {kind} with {name} dtype")


def cov(input, *, correction=1, fweights=None, aweights=None):
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype is D.bool_:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if not x.dtype.is_floating_point:
        x = x.to(D.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights(fweights, "fweights", n, True)
        w = fweights
    if aweights is not None:
        _check_weights(aweights, "aweights", n, False)
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(1)
        norm = float(n - correction)
    else:
        w = w.to(x.dtype) if not w.dtype.is_floating_point else w
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if aweights is None or correction == 0:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if isinstance(norm, float):
        norm = max(norm, 0.0)
    else:
        norm = clamp(norm, min=0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = xm.mm(xw.t()) / norm
    return c.squeeze()


def corrcoef(input):
    c = cov(input)
    if c.dim() == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1)
    c = c / std.unsqueeze(0)
    return clamp(c, -1, 1)


FUNCTIONS = {"cov": cov, "corrcoef": corrcoef}
METHODS = dict(FUNCTIONS)

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its methods and tables now
