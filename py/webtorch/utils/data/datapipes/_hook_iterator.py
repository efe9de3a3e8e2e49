"""The hook every IterDataPipe's ``__iter__`` runs through: one valid iterator per DataPipe (a new ``iter()``
resets the pipe and invalidates the one before), a count of yielded samples, and exceptions raised inside a
pipe's ``__iter__`` naming the pipe and its arguments, as PyTorch's hook does."""
import functools
import inspect

_FEEDBACK = ("\nFor feedback regarding this single iterator per IterDataPipe constraint, feel free to comment on this "
             "issue: https://github.com/pytorch/data/issues/45.")


def _simple_name(obj):
    return obj.__name__ if inspect.isfunction(obj) else repr(obj)


def _input_args(datapipe):
    """``name=value, ...`` for the constructor arguments the pipe keeps as attributes (alphabetical)."""
    params = set(inspect.signature(type(datapipe)).parameters)
    return ", ".join(f"{name}={_simple_name(value)}" for name, value in inspect.getmembers(datapipe)
                     if name in params)


def describe(datapipe):
    """``MapperIterDataPipe(datapipe=..., fn=...)``: how messages name a pipe."""
    return f"{type(datapipe).__name__}({_input_args(datapipe)})"


def _invalidated(datapipe):
    return ("This iterator has been invalidated because another iterator has been created from the same "
            f"IterDataPipe: {describe(datapipe)}\nThis may be caused by multiple references to the same IterDataPipe."
            " We recommend using `.fork()` if that is necessary.")


def _check_valid(datapipe, iterator_id):
    if datapipe._valid_iterator_id != iterator_id:
        raise RuntimeError(_invalidated(datapipe) + _FEEDBACK)


def _new_iterator_id(datapipe):
    """A fresh iterator: the one before is invalid from now on, and the pipe starts over (``reset``)."""
    datapipe._valid_iterator_id = 0 if datapipe._valid_iterator_id is None else datapipe._valid_iterator_id + 1
    datapipe._number_of_samples_yielded = 0
    datapipe.reset()
    return datapipe._valid_iterator_id


def _add_context(err, datapipe):
    where = "thrown by __iter__ of"
    if not hasattr(err.args, "__len__"):
        return
    context = f"\nThis exception is {where} {describe(datapipe)}"
    if not err.args or not isinstance(err.args[0], str):
        err.args = (context,)
    elif where not in err.args[0] and "single iterator per IterDataPipe constraint" not in err.args[0]:
        err.args = (err.args[0] + context,) + err.args[1:]


class _CheckedIterator:
    """The iterator of a pipe whose ``__iter__`` is not a generator (it returns ``self`` or another iterator)."""

    def __init__(self, iterator, datapipe, iterator_id, counts_itself):
        self.iterator, self.datapipe, self.iterator_id = iterator, datapipe, iterator_id
        self.counts_itself = counts_itself  # the pipe's own hooked __next__ counts its samples

    def __iter__(self):
        return self

    def __next__(self):
        _check_valid(self.datapipe, self.iterator_id)
        result = next(self.iterator)
        if not self.counts_itself:
            self.datapipe._number_of_samples_yielded += 1
        return result

    def __getattr__(self, name):
        return getattr(self.iterator, name)


def hook_iterator(cls):
    """Wrap the ``__iter__`` (and ``__next__``) that ``cls`` defines itself."""
    func = cls.__dict__["__iter__"]
    if inspect.isgeneratorfunction(func):
        @functools.wraps(func)
        def iter_generator(datapipe, *args, **kwargs):
            gen = func(datapipe, *args, **kwargs)
            iterator_id = _new_iterator_id(datapipe)
            try:
                response = gen.send(None)
                while True:
                    datapipe._number_of_samples_yielded += 1
                    request = yield response
                    _check_valid(datapipe, iterator_id)
                    response = gen.send(request)
            except StopIteration:
                return
            except Exception as err:
                _add_context(err, datapipe)
                raise
        cls.__iter__ = iter_generator
        return
    has_next = "__next__" in cls.__dict__
    if has_next:
        next_func = cls.__dict__["__next__"]

        @functools.wraps(next_func)
        def counted_next(datapipe, *args, **kwargs):
            result = next_func(datapipe, *args, **kwargs)
            datapipe._number_of_samples_yielded += 1
            return result
        cls.__next__ = counted_next

    @functools.wraps(func)
    def checked_iter(datapipe, *args, **kwargs):
        iterator = func(datapipe, *args, **kwargs)
        iterator_id = _new_iterator_id(datapipe)
        return _CheckedIterator(iterator, datapipe, iterator_id, iterator is datapipe and has_next)
    cls.__iter__ = checked_iter
