"""The ``__torch_function__`` protocol: a Tensor subclass, or any object, whose type defines ``__torch_function__``
takes over the public functions it is passed to, and a TorchFunctionMode takes over every call inside its ``with``.

Cost where nobody overrides: none for plain Tensor methods and operators (dispatching wrappers are installed on a
subclass that needs them, and on Tensor only while a mode is active); one wrapper frame and a scan of the
argument types for ``torch.*`` and ``torch.nn.functional.*`` (``public``).
"""
import functools
import warnings

_PLAIN = frozenset({int, float, bool, type(None), str})  # argument types that never override


class _State:
    """``subclass_off``: depth of DisableTorchFunctionSubclass (+ DisableTorchFunction); ``all_off``: of
    DisableTorchFunction; ``modes``: the TorchFunctionMode stack; ``tensor_patched``: Tensor's methods dispatch."""
    subclass_off = 0
    all_off = 0
    modes = []
    tensor_patched = False


state = _State()
_overrides = {}  # type -> whether it takes part in dispatch (its __torch_function__ is not the disabled one)


def _disabled_torch_function_impl(func, types, args=(), kwargs=None):
    """A type whose ``__torch_function__`` is this (Parameter's) takes no part in dispatch: ops on it give plain
    Tensors."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def takes_part(t):
    r = _overrides.get(t)
    if r is None:
        impl = getattr(t, "__torch_function__", _disabled_torch_function_impl)
        r = _overrides[t] = t is not _tensor_cls and impl is not _disabled_torch_function_impl
    return r


def overloaded_args(relevant):
    """The arguments whose types implement ``__torch_function__`` (one per type), a subclass before its base
    (PyTorch's order of dispatch); Tensor itself counts here, as in PyTorch's ``handle_torch_function``."""
    if state.subclass_off:
        return []
    types, found = set(), []
    for arg in relevant:
        t = type(arg)
        if t in types or t in _PLAIN or \
                getattr(t, "__torch_function__", _disabled_torch_function_impl) is _disabled_torch_function_impl:
            continue
        types.add(t)
        index = len(found)
        for i, old in enumerate(found):
            if issubclass(t, type(old)):
                index = i
                break
        found.insert(index, arg)
    return found


def relevant_args(args, kwargs):
    """The arguments PyTorch checks for overrides: each positional and keyword argument, and the items of a list or
    tuple argument (``torch.cat([a, b])``)."""
    out = []
    for a in (*args, *kwargs.values()) if kwargs else args:
        if type(a) is list or type(a) is tuple:
            out.extend(a)
        else:
            out.append(a)
    return out


def needs_dispatch(relevant):
    if state.modes and not state.all_off:
        return True
    return not state.subclass_off and any(takes_part(type(a)) for a in relevant)


def _func_name(func):
    return f"{getattr(func, '__module__', '?')}.{getattr(func, '__name__', repr(func))}"


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the ``__torch_function__`` of the innermost mode, then of each overriding argument (subclasses first)
    until one returns something other than NotImplemented; TypeError when none does."""
    return dispatch(public_api, relevant_args, args, kwargs, None)


def dispatch(func, relevant, args, kwargs, native_name, declined=TypeError):
    """handle_torch_function; ``native_name`` (``torch.add``, ``torch.Tensor.add``) words the failure as PyTorch's
    C++ functions do, None as its Python ones (torch.nn.functional, user functions). When every handler declines:
    TypeError, or ``declined`` when that is not TypeError (an operator's NotImplemented)."""
    overloaded = overloaded_args(relevant)
    types = tuple(type(a) for a in overloaded)
    mode = current_mode()
    if mode is not None:
        state.modes.pop()
        try:
            result = mode.__torch_function__(func, types, args, kwargs)
        finally:
            state.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        method = arg.__torch_function__
        if getattr(method, "__self__", None) is arg:
            warnings.warn("Defining your `__torch_function__ as a plain method is deprecated and will be an error in "
                          "future, please define it as a classmethod.", DeprecationWarning, stacklevel=2)
        result = method(func, types, args, kwargs)
        if result is not NotImplemented:
            return result
    if declined is not TypeError:
        return declined
    if native_name is None:
        msg = (f"no implementation found for '{_func_name(func)}' on types that implement __torch_function__: "
               f"{[type(a) for a in overloaded]}")
        raise TypeError(msg + (f" nor in mode {mode}" if mode is not None else ""))
    handlers = ([f"  - mode object {mode}\n"] if mode is not None else []) + \
        [f"  - tensor subclass {type(a)}\n" for a in overloaded]
    raise TypeError(f"Multiple dispatch failed for '{native_name}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n\n{''.join(handlers)}\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


def current_mode():
    return state.modes[-1] if state.modes and not state.all_off else None


def public(fn, name=None, native=False):
    """``fn`` as the public function ``name`` (``torch.add``; ``torch.<fn's name>`` by default) that honours
    ``__torch_function__``; the wrapper is what handlers receive as ``func``. ``native``: a failure is worded as
    for PyTorch's C++ functions. Arguments all of plain types (Tensor, numbers, None) call ``fn`` straight."""
    native_name = (name or f"torch.{fn.__name__}") if native else None

    @functools.wraps(fn)
    def dispatching(*args, **kwargs):
        if not state.modes:
            for a in args:
                t = type(a)
                if t is not _tensor_cls and t not in _PLAIN:
                    break
            else:
                if not kwargs:
                    return fn(*args)
        relevant = relevant_args(args, kwargs)
        if needs_dispatch(relevant):
            return dispatch(dispatching, relevant, args, kwargs, native_name)
        return fn(*args, **kwargs)
    if name is not None:
        dispatching.__module__, dispatching.__name__ = name.rsplit(".", 1)
        dispatching.__qualname__ = dispatching.__name__
    dispatching._torch_function_impl = fn
    return dispatching


_tensor_cls = None  # Tensor, set when _tensor.py is loaded (it imports this module)


def set_tensor_class(cls):
    global _tensor_cls
    _tensor_cls = cls


# ---- Tensor methods ----------------------------------------------------------------------------------------------
# Methods that are the object model's, not ops: never dispatched.
_NOT_DISPATCHED = frozenset({
    "__new__", "__init__", "__init_subclass__", "__torch_function__", "__getattribute__", "__getattr__",
    "__setattr__", "__delattr__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__deepcopy__",
    "__hash__", "__sizeof__", "__dir__", "__class_getitem__", "__subclasshook__", "__array__", "__array_wrap__",
    "__array_priority__", "as_subclass", "__repr__", "__str__", "__format__", "__dlpack__", "__dlpack_device__",
})
_originals = {}  # name -> Tensor's own method (filled at the first install)


def _tensor_methods():
    if not _originals:
        for name, value in vars(_tensor_cls).items():
            if callable(value) and not isinstance(value, (type, staticmethod, classmethod)) and name not in \
                    _NOT_DISPATCHED and (not name.startswith("_") or (name.startswith("__") and name.endswith("__"))):
                _originals[name] = value
    return _originals


# Operators PyTorch dispatches as the named method (``x + 1`` reaches handlers as Tensor.add)
_OPERATOR_AS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div",
    "__mod__": "remainder", "__pow__": "pow", "__matmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__pos__": "positive", "__rand__": "bitwise_and", "__ror__": "bitwise_or", "__rxor__": "bitwise_xor",
    "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__iadd__": "add_",
    "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_", "__ifloordiv__": "floor_divide_",
    "__imod__": "remainder_", "__ipow__": "pow_",
}
# binary operators: when every handler declines, the operator returns NotImplemented (Python then tries the other
# operand and raises its "unsupported operand type(s)")
_BINARY = frozenset(n for n in (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__",
    "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__and__", "__rand__",
    "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__eq__",
    "__ne__", "__lt__", "__le__", "__gt__", "__ge__"))


def _method(name, original):
    """Tensor.<name> that dispatches; it is also the ``func`` handlers receive (named ``name``, as PyTorch's
    Tensor.<name>; calling it inside a handler dispatches again, as there)."""
    as_name = _OPERATOR_AS.get(name)
    binary = name in _BINARY

    @functools.wraps(original)
    def method(self, *args, **kwargs):
        relevant = relevant_args((self, *args), kwargs)
        if not needs_dispatch(relevant):
            return original(self, *args, **kwargs)
        func = method if as_name is None or as_name not in _tensor_methods() else _wrapper(as_name)
        return dispatch(func, relevant, (self, *args), kwargs, f"torch.Tensor.{func.__name__}",
                        NotImplemented if binary else TypeError)
    method.__name__, method.__qualname__, method.__module__ = name, f"Tensor.{name}", "torch._tensor"
    return method


_method_wrappers = {}


def _wrapper(name):
    w = _method_wrappers.get(name)
    if w is None:
        w = _method_wrappers[name] = _method(name, _tensor_methods()[name])
    return w


def install_on_subclass(cls):
    """Called for each new Tensor subclass: one that takes part in dispatch gets dispatching methods for every
    Tensor method it inherits unchanged."""
    if not takes_part(cls):
        return
    for name, original in _tensor_methods().items():
        inherited = getattr(cls, name, None)
        if inherited is original or inherited is _method_wrappers.get(name):
            setattr(cls, name, _wrapper(name))


def tensor_methods_added(names):
    """Tensor methods attached after start (an op family loaded at first use: ops/__init__.py) dispatch as the
    others: on the subclasses that take part, and on Tensor while a mode is active."""
    if not _originals:
        return  # the first install takes them with the rest
    for name in names:
        _originals[name] = vars(_tensor_cls)[name]
    subclasses = list(_tensor_cls.__subclasses__())
    while subclasses:
        cls = subclasses.pop()
        subclasses += cls.__subclasses__()
        install_on_subclass(cls)
    if state.tensor_patched:
        for name in names:
            setattr(_tensor_cls, name, _wrapper(name))


def _patch_tensor(on):
    """While a mode is active, Tensor's own methods dispatch too (so plain tensors' methods reach the mode)."""
    if state.tensor_patched == on:
        return
    for name, original in _tensor_methods().items():
        setattr(_tensor_cls, name, _wrapper(name) if on else original)
    state.tensor_patched = on


def push_mode(mode):
    state.modes.append(mode)
    _patch_tensor(True)


def pop_mode():
    mode = state.modes.pop()
    if not state.modes:
        _patch_tensor(False)
    return mode


class DisableTorchFunctionSubclass:
    """Inside, ``__torch_function__`` of subclasses and other objects is skipped (modes still apply)."""

    def __enter__(self):
        state.subclass_off += 1
        return self

    def __exit__(self, *exc):
        state.subclass_off -= 1


class DisableTorchFunction:
    """Inside, no ``__torch_function__`` applies: neither subclasses' nor modes'."""

    def __enter__(self):
        state.subclass_off += 1
        state.all_off += 1
        return self

    def __exit__(self, *exc):
        state.subclass_off -= 1
        state.all_off -= 1


def convert(ret, cls):
    """Tensors in ``ret`` (also inside lists and tuples) as instances of ``cls`` (the default handler's result)."""
    if isinstance(ret, _tensor_cls) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)(convert(r, cls) for r in ret) if type(ret) in (tuple, list) else \
            type(ret)(*(convert(r, cls) for r in ret))
    return ret


def default_torch_function(cls, func, types, args=(), kwargs=None):
    """Tensor.__torch_function__: run ``func`` with subclass dispatch off and give the results type ``cls``
    (NotImplemented when another argument's type is not a base of ``cls``)."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        return convert(func(*args, **(kwargs or {})), cls)
