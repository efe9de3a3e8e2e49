"""quantile and nanquantile: sort along the reduced dim, then interpolate between the two order statistics
around rank q * (n - 1) (PyTorch's algorithm; gradients flow through sort, gather and lerp)."""
from .. import _dtype as D
from .._tensor import Tensor
from .creation import tensor
from ._core.dispatch import norm_dim
from . import publish

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    if not input.dtype.is_floating_point or input.dtype is D.float16:
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        qt = tensor([float(q)], dtype=input.dtype, device=input.device)
    else:
        if q.dim() > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        # PyTorch checks the values of q: one read of a boolean (a device sync on webgpu)
        if not bool(((q >= 0).logical_and(q <= 1)).all().item()):
            raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
        scalar_q = q.dim() == 0
        qt = q.reshape(-1)
    if dim is None:
        x, out_shape = input.reshape(-1), ((1,) * input.dim() if keepdim else ())
    else:
        d = norm_dim(dim, input.dim())
        x = input.movedim(d, -1) if input.dim() > 0 else input.reshape(1)
        shape = list(input.shape)
        if keepdim and shape:
            shape[d] = 1
        elif shape:
            del shape[d]
        out_shape = tuple(shape)
    n = x.shape[-1]
    srt = x.sort(dim=-1).values
    batch = srt.shape[:-1]
    if ignore_nan:
        count = srt.isnan().logical_not().sum(-1, keepdim=True)
        rank = qt * (count - 1).to(x.dtype)
        # an all-NaN row: the last element (NaN) is the answer
        rank = rank.where(count > 0, float(n - 1))
    else:
        rank = (qt * (n - 1)).expand(batch + (qt.shape[0],))
        rank = rank.where(srt[..., -1:].isnan().logical_not(), float(n - 1))
    if interpolation == "lower":
        rank = rank.floor()
    elif interpolation == "higher":
        rank = rank.ceil()
    elif interpolation == "nearest":
        rank = rank.round()
    lo_i = rank.floor().long()
    hi_i = rank.ceil().long()
    lo = srt.gather(-1, lo_i)
    if interpolation in ("lower", "higher", "nearest"):
        r = lo
    else:
        hi = srt.gather(-1, hi_i)
        weight = (rank - lo_i.to(x.dtype)) if interpolation == "linear" else rank.new_full((), 0.5)
        r = lo.lerp(hi, weight)
    # (..., Q) -> (Q, ...) then the requested output shape
    r = r.movedim(-1, 0) if r.dim() > 1 else r
    if scalar_q:
        return r.reshape(out_shape)
    return r.reshape((qt.shape[0],) + out_shape)


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    r = _quantile("quantile", input, q, dim, keepdim, interpolation, False)
    return r if out is None else out.copy_(r)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    r = _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)
    return r if out is None else out.copy_(r)


FUNCTIONS = {"quantile": quantile, "nanquantile": nanquantile}
METHODS = dict(FUNCTIONS)

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its methods and tables now
