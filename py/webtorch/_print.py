"""repr/str of tensors in PyTorch's format."""
from . import _dtype as D


class _Options:
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


options = _Options()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    if profile == "default":
        options.precision, options.threshold, options.edgeitems, options.linewidth = 4, 1000, 3, 80
    elif profile == "short":
        options.precision, options.threshold, options.edgeitems, options.linewidth = 2, 1000, 2, 80
    elif profile == "full":
        options.precision, options.threshold, options.edgeitems, options.linewidth = 4, float("inf"), 3, 80
    if precision is not None:
        options.precision = precision
    if threshold is not None:
        options.threshold = threshold
    if edgeitems is not None:
        options.edgeitems = edgeitems
    if linewidth is not None:
        options.linewidth = linewidth
    options.sci_mode = sci_mode


def tensor_repr(t):
    vals = t.detach().cpu().tolist() if t._device.type != "cpu" else t._be.tolist(t._data)
    body = repr(vals)
    suffix = []
    if t._device.type != "cpu":
        suffix.append(f"device='{t._device}'")
    if t.dtype not in (D.get_default_dtype(), D.int64, D.bool_):
        suffix.append(f"dtype={t.dtype}")
    if t.grad_fn is not None:
        suffix.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
