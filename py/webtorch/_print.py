"""repr/str of tensors, character for character as PyTorch 2.13 prints them.

Only the printed elements are read from the backend: the whole tensor when it has at most
``threshold`` elements, else the ``edgeitems`` corners of each long dim. Formatting then works on Python
numbers (no NumPy), so it is the same for every device.

PyTorch's rules, as implemented below:
- ints and bools: ``str`` of each value, right-aligned to the widest;
- floats, looking at the nonzero finite printed values: if all are integers they print as ``3.``;
  scientific (``1.0000e+08``) when max/min > 1000, max > 1e8, or (non-integer mode) min < 1e-4;
  else fixed with ``precision`` decimals; ``sci_mode`` in set_printoptions overrides the choice;
- a vector wraps at ``linewidth`` (continuation lines aligned under the first element); N-d tensors
  nest brackets with dim-1 newlines between slices; a summarized dim shows ``...``;
- suffixes: device (when not the default device), size (empty tensors, edgeitems=0), dtype (unless
  the default float dtype, int64 or bool), grad_fn or requires_grad; each wraps to a new line when it
  would pass ``linewidth``.
"""
import math

from . import _dtype as D


class _Options:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


options = _Options()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """torch.set_printoptions: options not given keep their value, except sci_mode (reset to None)."""
    if profile in _PROFILES:
        for k, v in _PROFILES[profile].items():
            setattr(options, k, v)
    if precision is not None:
        options.precision = precision
    if threshold is not None:
        options.threshold = threshold
    if edgeitems is not None:
        options.edgeitems = edgeitems
    if linewidth is not None:
        options.linewidth = linewidth
    options.sci_mode = sci_mode


def get_printoptions():
    return {k: getattr(options, k) for k in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")}


# ---- reading the printed elements ----------------------------------------------------------------

def _concat(a, b, depth):
    """Join two nested lists along the list level ``depth``."""
    if depth == 0:
        return a + b
    return [_concat(x, y, depth - 1) for x, y in zip(a, b)]


def _corners(be, h, shape, d, edge):
    """Nested lists of the elements kept by summarization (the first/last ``edge`` of each long dim)."""
    while d < len(shape) and shape[d] <= 2 * edge:
        d += 1
    if d == len(shape):
        return be.tolist(h)
    full = (slice(None),) * d
    rest = (slice(None),) * (len(shape) - d - 1)
    lo = _corners(be, be.slice(h, full + (slice(0, edge),) + rest), shape, d + 1, edge)
    hi = _corners(be, be.slice(h, full + (slice(shape[d] - edge, shape[d]),) + rest), shape, d + 1, edge)
    return _concat(lo, hi, d)


def _flat(vals, ndim):
    if ndim == 0:
        return [vals]
    out = vals
    for _ in range(ndim - 1):
        out = [x for row in out for x in row]
    return out


# ---- the element formatter -----------------------------------------------------------------------

class _Formatter:
    def __init__(self, values, floating, zero=0):
        """zero: the value PyTorch's printing compares with 0 in the tensor's own dtype (float8_e8m0fnu has no 0:
        it converts 0 to 2**-127, so that value is left out of the choice of format, as a zero)."""
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = options.precision
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        finite = [v for v in values if v != zero and not math.isinf(v) and not math.isnan(v)]
        if not finite:
            return  # as PyTorch: no valid number, keep the defaults (sci_mode option not applied)
        absvals = [abs(v) for v in finite]
        lo, hi = min(absvals), max(absvals)
        self.int_mode = all(v == math.ceil(v) for v in finite)
        if options.sci_mode is None:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci_mode = options.sci_mode
        if self.sci_mode:
            self.max_width = max(self.max_width, max(len(f"{v:.{p}e}") for v in finite))
        elif self.int_mode:
            self.max_width = max(self.max_width, max(len(f"{v:.0f}") for v in finite) + 1)
        else:
            self.max_width = max(self.max_width, max(len(f"{v:.{p}f}") for v in finite))

    def format(self, v):
        if self.floating:
            if self.sci_mode:
                s = f"{v:{self.max_width}.{options.precision}e}"
            elif self.int_mode:
                s = f"{v:.0f}"
                if not (math.isinf(v) or math.isnan(v)):
                    s += "."
            else:
                s = f"{v:.{options.precision}f}"
        else:
            s = str(v)
        return s.rjust(self.max_width)


# ---- layout --------------------------------------------------------------------------------------

def _vector_str(vals, cut, indent, fmt):
    per_line = max(1, math.floor((options.linewidth - indent) / (fmt.max_width + 2)))
    edge = options.edgeitems
    if cut:
        data = [fmt.format(v) for v in vals[:edge]] + [" ..."] + [fmt.format(v) for v in vals[edge:]]
    else:
        data = [fmt.format(v) for v in vals]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(vals, cuts, indent, fmt):
    ndim = len(cuts)
    if ndim == 0:
        return fmt.format(vals)
    if ndim == 1:
        return _vector_str(vals, cuts[0], indent, fmt)
    inner = [_nested_str(v, cuts[1:], indent + 1, fmt) for v in vals]
    if cuts[0]:
        edge = options.edgeitems
        inner = inner[:edge] + ["..."] + inner[edge:]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(inner) + "]"


def _tensor_str(t, indent):
    be, h = t._be, t._data
    shape = tuple(t.shape)
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        return "[]"
    summarize = numel > options.threshold
    edge = options.edgeitems
    floating = t.dtype.is_floating_point
    if summarize and not edge and shape:
        return "[...]"
    if summarize:
        vals = _corners(be, h, shape, 0, edge)
        cuts = tuple(s > 2 * edge for s in shape)
    else:
        vals = be.tolist(h)
        cuts = (False,) * len(shape)
    fmt = _Formatter(_flat(vals, len(shape)), floating, 2.0 ** -127 if t.dtype is D.float8_e8m0fnu else 0)
    return _nested_str(vals, cuts, indent, fmt)


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if last_line_len + len(s) + 2 > options.linewidth:
            parts.append(",\n" + " " * indent + s)
            last_line_len = indent + len(s)
        else:
            parts.append(", " + s)
            last_line_len += len(s) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, tensor_contents=None, plain=True):
    """PyTorch's ``_str_intern``: prefix, element block, suffixes. ``plain``: printed as ``tensor(...)`` (a Tensor
    or Parameter), else under its class's name (a subclass)."""
    from ._device import get_default_device
    prefix = "tensor(" if plain else f"{type(t).__name__}("
    indent = len(prefix)
    suffixes = []
    dev = t._device
    if dev.type != get_default_device().type:
        suffixes.append(f"device='{dev.type}:{dev.index or 0}'" if dev.type != "cpu" else "device='cpu'")
    shape = tuple(t.shape)
    has_default_dtype = t.dtype in (D.get_default_dtype(), D.int64, D.bool_)
    numel = 1
    for s in shape:
        numel *= s
    if numel == 0:
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        if t.dtype is not D.get_default_dtype():
            suffixes.append(f"dtype={t.dtype}")
        body = "[]" if tensor_contents is None else tensor_contents
    else:
        if not options.edgeitems:
            suffixes.append(f"size={shape}")
        if not has_default_dtype:
            suffixes.append(f"dtype={t.dtype}")
        body = _tensor_str(t, indent) if tensor_contents is None else tensor_contents
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
