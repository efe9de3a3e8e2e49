"""IterDataPipe and MapDataPipe: datasets that chain by functional forms (``dp.map(f).filter(g).batch(4)``), and
DataChunk, the list a batching pipe yields."""
import functools
from typing import TypeVar

from ..dataset import Dataset, IterableDataset
from ._hook_iterator import hook_iterator

__all__ = ["DataChunk", "DFIterDataPipe", "IterDataPipe", "MapDataPipe"]

_T_co = TypeVar("_T_co", covariant=True)

# functional forms whose result is no DataFrame row stream (a DFIterDataPipe's result is traced otherwise)
UNTRACABLE_DATAFRAME_PIPES = ["batch", "groupby", "_dataframes_as_tuples", "trace_as_dataframe"]


class DataChunk(list):
    """A batch: a list that remembers its items and prints as ``[a, b, c]``."""

    def __init__(self, items):
        items = list(items)
        super().__init__(items)
        self.items = items

    def as_str(self, indent=""):
        return indent + "[" + ", ".join(str(i) for i in iter(self)) + "]"

    def __iter__(self):
        yield from super().__iter__()

    def raw_iterator(self):
        yield from self.items


def _functional_form(pipes, function_name, cls_to_register, enable_df_api_tracing):
    """``source.<function_name>(*args)``: ``cls_to_register(source, *args)``, its docstring the class's."""
    def build(source_dp, *args, **kwargs):
        result = cls_to_register(source_dp, *args, **kwargs)
        if isinstance(result, IterDataPipe) and (enable_df_api_tracing or isinstance(source_dp, DFIterDataPipe)) \
                and function_name not in UNTRACABLE_DATAFRAME_PIPES:
            raise NotImplementedError(f"{function_name}: tracing DataFrame pipes (PyTorch's datapipes.dataframe, "
                                      "built on pandas/TorchArrow) is not in webtorch; use an IterDataPipe of rows")
        return result
    build.__doc__ = cls_to_register.__doc__
    if function_name in pipes.functions:
        raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")
    pipes.functions[function_name] = build


class _FunctionalForms:
    """What IterDataPipe and MapDataPipe share, each for its own family (``_family``: the class whose registry of
    functional forms and serialization hooks its subclasses use)."""
    _family = None
    functions = {}
    reduce_ex_hook = None
    getstate_hook = None
    str_hook = None
    repr_hook = None

    def __getattr__(self, attribute_name):
        f = type(self)._family.functions.get(attribute_name)
        if f is None:
            raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{attribute_name}")
        function = functools.partial(f, self)
        function.__doc__ = f.__doc__
        return function

    @classmethod
    def register_function(cls, function_name, function):
        cls._family.functions[function_name] = function

    @classmethod
    def register_datapipe_as_function(cls, function_name, cls_to_register, enable_df_api_tracing=False):
        _functional_form(cls._family, function_name, cls_to_register, enable_df_api_tracing)

    def __dir__(self):
        return list(super().__dir__()) + list(type(self)._family.functions)

    def __repr__(self):
        return self.repr_hook(self) if self.repr_hook is not None else str(self.__class__.__qualname__)

    def __str__(self):
        return self.str_hook(self) if self.str_hook is not None else str(self.__class__.__qualname__)

    def __getstate__(self):
        hook = type(self)._family.getstate_hook
        return self.__dict__ if hook is None else hook(self.__dict__)

    def __reduce_ex__(self, *args, **kwargs):
        hook = type(self)._family.reduce_ex_hook
        if hook is not None:
            try:
                return hook(self)
            except NotImplementedError:
                pass
        return super().__reduce_ex__(*args, **kwargs)

    @classmethod
    def set_getstate_hook(cls, hook_fn):
        if cls._family.getstate_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing getstate_hook")
        cls._family.getstate_hook = hook_fn

    @classmethod
    def set_reduce_ex_hook(cls, hook_fn):
        if cls._family.reduce_ex_hook is not None and hook_fn is not None:
            raise RuntimeError("Attempt to override existing reduce_ex_hook")
        cls._family.reduce_ex_hook = hook_fn


class IterDataPipe(_FunctionalForms, IterableDataset[_T_co]):
    """An iterable-style DataPipe: ``__iter__`` yields samples lazily. Only one iterator of a pipe is valid at a
    time (a second ``iter()`` resets the pipe through ``reset()`` and invalidates the first). Built-in pipes are
    created by their class or, chained, by their functional form: ``IterableWrapper(range(10)).map(f)``."""
    functions = {}
    _valid_iterator_id = None
    _number_of_samples_yielded = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__iter__" in cls.__dict__:
            hook_iterator(cls)

    def __iter__(self):
        return self

    def reset(self):
        """Start over: called by every new ``iter()``; a pipe with buffers or positions overrides it."""


class DFIterDataPipe(IterDataPipe):
    """An IterDataPipe of DataFrames: its functional forms' results are traced as DataFrame pipes."""

    def _is_dfpipe(self):
        return True


class MapDataPipe(_FunctionalForms, Dataset[_T_co]):
    """A map-style DataPipe: ``__getitem__`` and ``__len__``; chains by functional forms (``dp.map(f).batch(2)``)."""
    functions = {}


IterDataPipe._family = IterDataPipe
MapDataPipe._family = MapDataPipe
