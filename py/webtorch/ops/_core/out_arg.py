"""``out=``: writing an op's result into a given tensor with PyTorch's semantics, for every op that takes it.

``write_out(r, out, ...)`` is the one write: autograd refusal, the op's dtype rule, device, memory overlap,
resize (with PyTorch's deprecation warning when out had elements), cast-copy, version bump; it returns out.
``takes_out(...)`` decorates an op written without ``out``: it adds the keyword, refuses autograd before
computing (as PyTorch's autograd layer does), lets out supply the dtype/device of a factory or the dtype of a
sum, computes without recording a graph, and writes each result through write_out. Tuple results
(sort, max(dim), topk, ...) take a tuple (or list) of tensors and return the same named tuple of them.
"""
import functools
import warnings

from ...autograd.grad_mode import state as _grad_state
from ..._device import device as _device
from ..._tensor import Tensor
from ..._dtype import cpp_type_name, scalar_type_name, tensor_type_name
from .inplace import check_overlap, resize_storage

# How an op refuses autograd (the ``grad`` of takes_out / write_out besides an op name):
COPIED = "copied"  # composite ops: out.copy_(result), recorded by autograd (out requiring grad: a leaf written)
RESIZED = "resized"  # empty/randn: out is resized through autograd, which refuses it in every grad mode

class Rule:
    """Which out dtypes an op accepts for a result of dtype r: ``ok(r, o)``; else ``error(message)``, the
    message formatted with r/o (PyTorch's scalar names: Float), rc/oc (C++ names: float) and rt/ot (legacy
    tensor type names), or computed by a callable message(r, o)."""
    __slots__ = ("ok", "message", "error")

    def __init__(self, ok, message, error=RuntimeError):
        self.ok, self.message, self.error = ok, message, error

    def check(self, r, o):
        if self.ok(r, o):
            return
        if callable(self.message):
            raise self.error(self.message(r, o))
        raise self.error(self.message.format(r=scalar_type_name(r), o=scalar_type_name(o), rc=cpp_type_name(r),
                                             oc=cpp_type_name(o), rt="torch." + tensor_type_name(r),
                                             ot="torch." + tensor_type_name(o)))


def castable(r, o):
    """PyTorch's canCast: no float into an integer out, nothing but bool into a bool out."""
    return r.category <= o.category


def same(r, o):
    return r is o


def floating(r, o):
    return o.is_floating_point


def anything(r, o):
    return True


# TensorIterator ops: the result casts into out
CAST = Rule(castable, "result type {r} can't be cast to the desired output type {o}")
# structured kernels: out has the result's dtype
SAME = Rule(same, "Expected out tensor to have dtype {rc}, but got {oc} instead")
# out's dtype is taken as is (factories, sum: the op computed in it; bernoulli samples in it)
ANY = Rule(anything, "")

_RESIZE_WARNING = ("An output with one or more elements was resized since it had shape {}, which does not match the "
                   "required output shape {}. This behavior is deprecated, and in a future PyTorch release outputs "
                   "will not be resized unless they have zero elements. You can explicitly reuse an out tensor t by "
                   "resizing it, inplace, to zero elements with t.resize_(0).")


def check_grad(grad, out, inputs=()):
    """PyTorch's refusal to differentiate through ``out=``: grad is the op name its message uses (or COPIED,
    RESIZED; None: the op is not differentiable and refuses nothing). inputs: tensors whose requires_grad
    counts (the op's differentiable inputs, or its result when computed with a graph)."""
    if grad is None:
        return
    if grad is RESIZED:
        if out.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        return
    if not _grad_state.enabled:
        return
    if grad is COPIED:
        if out.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        return
    if out.requires_grad or any(t.requires_grad for t in inputs):
        raise RuntimeError(f"{grad}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")


def write_out(r, out, inputs=(), grad=None, rule=CAST, warn=True):
    """Copy the result r into ``out=`` and return out (r itself when out is None). inputs: the op's operands,
    checked for memory overlap with out; grad: the op name of PyTorch's autograd refusal (check_grad; r's
    requires_grad stands for the inputs'); rule: the op's out-dtype Rule; warn: PyTorch's deprecation warning
    when an out with elements is resized (False: its factories resize silently; or warn(out, shape) -> the op's
    own text)."""
    if out is None:
        return r
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    check_grad(grad, out, (r,))
    rule.check(r.dtype, out.dtype)
    if out.device != r.device:
        raise RuntimeError(f"Expected out tensor to have device {r.device}, but got {out.device} instead")
    check_overlap(out, inputs)
    shape = tuple(r.shape)
    if tuple(out.shape) != shape:
        if warn and out.numel():
            text = warn(out, shape) if callable(warn) else _RESIZE_WARNING.format(list(out.shape), list(shape))
            warnings.warn(text, UserWarning, stacklevel=3)
        resize_storage(out, shape)
    if grad is COPIED:
        return out.copy_(r)
    out._be.copy_(out._data, r._data)
    out._version[0] += 1
    return out


def _tensor_args(args, kwargs):
    found = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(t for t in a if isinstance(t, Tensor))
    return found


def _as_outs(out, n, name):
    if n == 1:
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        return (out,)
    if isinstance(out, Tensor) or not isinstance(out, (tuple, list)):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {n} Tensors, not {type(out).__name__}")
    if len(out) != n:
        raise TypeError(f"expected tuple of {n} elements but got {len(out)}")
    return tuple(out)


def _from_out(kwargs, out, factory):
    """The keywords that let out decide the dtype (and, for a factory, the device) of the computation."""
    kwargs = dict(kwargs)
    dt = kwargs.get("dtype")
    if dt is None:
        kwargs["dtype"] = out.dtype
    elif factory and dt is not out.dtype:
        raise RuntimeError(f"dtype {scalar_type_name(dt)} does not match dtype of out parameter "
                           f"({scalar_type_name(out.dtype)})")
    if factory:
        dev = kwargs.get("device")
        if dev is not None and _device(dev) != out.device:
            raise RuntimeError(f"device {dev} does not match device of out parameter ({out.device})")
        kwargs["device"] = out.device
    return kwargs


def takes_out(grad, rule=CAST, rules=None, *, check_inputs=True, warn=True, factory=False, dtype_from_out=False):
    """Decorator adding ``out=`` to an op fn written without it (see write_out for grad, rule, warn).

    rules: the Rule of each tensor of a tuple result (out is then a tuple of tensors; None: the op has no tuple
    result); rule=None: a single-tensor result takes no out (PyTorch has no such overload: TypeError).
    check_inputs: whether the op's tensor arguments requiring grad make PyTorch refuse (False for ops whose
    inputs are not differentiable there). factory: out supplies dtype and device (a different dtype= is an
    error); dtype_from_out: out supplies the dtype= the op computes in (sum, prod) when none is given."""
    def decorate(fn):
        name = fn.__name__

        @functools.wraps(fn)
        def with_out(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            first = out if isinstance(out, Tensor) else (out[0] if isinstance(out, (tuple, list)) and out else None)
            tensors = _tensor_args(args, kwargs)
            if isinstance(first, Tensor):
                check_grad(grad, first, tensors if check_inputs else ())
                if factory or dtype_from_out:
                    kwargs = _from_out(kwargs, first, factory)
            prev = _grad_state.enabled
            # the result is not differentiable (but through a composite op's copy_): record no graph
            _grad_state.enabled = prev and grad is COPIED
            try:
                r = fn(*args, **kwargs)
            finally:
                _grad_state.enabled = prev
            if factory and isinstance(first, Tensor) and first.grad_fn is None:
                first.requires_grad = False  # PyTorch's factories leave out a plain tensor (only under no_grad)
            if isinstance(r, tuple):
                if rules is None:
                    raise TypeError(f"{name}() received an invalid combination of arguments: this overload takes "
                                    "no out=")
                outs = _as_outs(out, len(r), name)
                for ri, oi, rl in zip(r, outs, rules):
                    write_out(ri, oi, tensors, grad if grad is COPIED else None, rl, warn)
                return type(r)(*outs) if hasattr(r, "_fields") else outs
            if rule is None:
                raise TypeError(f"{name}() received an invalid combination of arguments: this overload takes no "
                                "out=")
            return write_out(r, _as_outs(out, 1, name)[0], tensors, grad if grad is COPIED else None, rule, warn)
        return with_out
    return decorate
