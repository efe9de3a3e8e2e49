"""The DataPipe decorators: ``functional_datapipe`` (registers a pipe's functional form), determinism guards and
argument / runtime type validation."""
import inspect
import typing
from functools import wraps

from .datapipe import IterDataPipe, MapDataPipe


class functional_datapipe:
    """``@functional_datapipe("map")`` on a DataPipe class makes ``source.map(*args)`` build ``cls(source, *args)``."""

    def __init__(self, name, enable_df_api_tracing=False):
        self.name = name
        self.enable_df_api_tracing = enable_df_api_tracing

    def __call__(self, cls):
        if issubclass(cls, IterDataPipe):
            if not isinstance(cls, type) and not isinstance(cls, non_deterministic) \
                    and not isinstance(getattr(cls, "__self__", None), non_deterministic):
                raise TypeError("`functional_datapipe` can only decorate IterDataPipe")
            IterDataPipe.register_datapipe_as_function(self.name, cls,
                                                       enable_df_api_tracing=self.enable_df_api_tracing)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        return cls


_determinism = False


class _GlobalSwitch:
    """Sets the module-level flag ``flag`` to ``value`` from its creation to the end of its ``with`` block."""
    flag = value = None

    def __init__(self):
        self.prev = globals()[self.flag]
        globals()[self.flag] = self.value

    def __enter__(self):
        pass

    def __exit__(self, exc_type, exc_value, traceback):
        globals()[self.flag] = self.prev


class guaranteed_datapipes_determinism(_GlobalSwitch):
    """While alive (a ``with`` block), building a ``non_deterministic`` pipe raises TypeError."""
    flag, value = "_determinism", True


_NON_DETERMINISTIC = ("You can turn off determinism for this DataPipe if that is acceptable for your application")


class non_deterministic:
    """Marks an IterDataPipe class as non-deterministic (``@non_deterministic``), or, given a function of the
    constructor's arguments, as non-deterministic when that function returns True
    (``@non_deterministic(lambda *args: ...)``)."""
    cls = None

    def __init__(self, arg):
        if isinstance(arg, type):
            if not issubclass(arg, IterDataPipe):
                raise TypeError(f"Only `IterDataPipe` can be decorated with `non_deterministic`, but {arg.__name__} "
                                "is found")
            self.cls = arg
        elif callable(arg):
            self.deterministic_fn = arg
        else:
            raise TypeError(f"{arg} can not be decorated by non_deterministic")

    def __call__(self, *args, **kwargs):
        if self.cls is not None:
            if _determinism:
                raise TypeError(f"{self.cls.__name__} is non-deterministic, but you set "
                                f"'guaranteed_datapipes_determinism'. {_NON_DETERMINISTIC}")
            return self.cls(*args, **kwargs)
        if not (isinstance(args[0], type) and issubclass(args[0], IterDataPipe)):
            raise TypeError(f"Only `IterDataPipe` can be decorated, but {args[0].__name__} is found")
        self.cls = args[0]
        return self.deterministic_wrapper_fn

    def deterministic_wrapper_fn(self, *args, **kwargs):
        res = self.deterministic_fn(*args, **kwargs)
        if not isinstance(res, bool):
            raise TypeError("deterministic_fn of `non_deterministic` decorator is required to return a boolean "
                            f"value, but {type(res)} is found")
        if _determinism and res:
            raise TypeError(f"{self.cls.__name__} is non-deterministic with the inputs, but you set "
                            f"'guaranteed_datapipes_determinism'. {_NON_DETERMINISTIC}")
        return self.cls(*args, **kwargs)


def argument_validation(f):
    """Check, at each call of ``f``, that an argument annotated with a DataPipe class is an IterDataPipe."""
    signature = inspect.signature(f)
    hints = typing.get_type_hints(f)

    @wraps(f)
    def wrapper(*args, **kwargs):
        for name, value in signature.bind(*args, **kwargs).arguments.items():
            hint = hints.get(name)
            if isinstance(hint, type) and issubclass(hint, (IterDataPipe, MapDataPipe)) \
                    and not isinstance(value, IterDataPipe):
                raise TypeError(f"Expected argument '{name}' as a IterDataPipe, but found {type(value)}")
        return f(*args, **kwargs)
    return wrapper


_runtime_validation_enabled = True


class runtime_validation_disabled(_GlobalSwitch):
    """While alive (a ``with`` block), ``runtime_validation`` lets every element through unchecked."""
    flag, value = "_runtime_validation_enabled", False


def element_type(cls):
    """The element type a DataPipe class declares by its base (``class P(IterDataPipe[int])`` -> int), else Any."""
    for klass in cls.__mro__:
        for base in getattr(klass, "__orig_bases__", ()):
            origin, args = typing.get_origin(base), typing.get_args(base)
            if isinstance(origin, type) and issubclass(origin, (IterDataPipe, MapDataPipe)) and args:
                return args[0]
    return typing.Any


def is_instance_of(data, t):
    """Whether ``data`` is a value of the type hint ``t`` (Any, TypeVars, Unions, containers of element types)."""
    if t is typing.Any or isinstance(t, typing.TypeVar):
        return True
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Union or (origin is not None and type(t).__name__ == "UnionType"):
        return any(is_instance_of(data, a) for a in args)
    if origin is None:
        return isinstance(data, t)
    if not isinstance(data, origin):
        return False
    if not args:
        return True
    if issubclass(origin, tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return all(is_instance_of(d, args[0]) for d in data)
        return len(data) == len(args) and all(is_instance_of(d, a) for d, a in zip(data, args))
    if issubclass(origin, dict):
        return all(is_instance_of(k, args[0]) and is_instance_of(v, args[1]) for k, v in data.items())
    if issubclass(origin, (list, set, frozenset)):
        return all(is_instance_of(d, args[0]) for d in data)
    return True


def runtime_validation(f):
    """Decorates a DataPipe's ``__iter__``: each yielded element must be of the pipe's declared element type
    (RuntimeError otherwise), unless inside ``runtime_validation_disabled``."""
    if f.__name__ != "__iter__":
        raise TypeError(f"Can not decorate function {f.__name__} with 'runtime_validation'")

    @wraps(f)
    def wrapper(self):
        if not _runtime_validation_enabled:
            yield from f(self)
            return
        want = element_type(type(self))
        for d in f(self):
            if not is_instance_of(d, want):
                raise RuntimeError(f"Expected an instance as subtype of {typing._type_repr(want)}, but found "
                                   f"{d}({type(d)})")
            yield d
    return wrapper
