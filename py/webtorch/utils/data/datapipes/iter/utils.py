"""IterableWrapper: an iterable as an IterDataPipe."""
import copy
import warnings

from ..datapipe import IterDataPipe
from ..utils.common import no_length

__all__ = ["IterableWrapperIterDataPipe"]


def deep_copy_or_warn(source, what):
    """A deep copy of ``source``, or ``source`` itself with PyTorch's warning when it cannot be copied."""
    try:
        return copy.deepcopy(source)
    except TypeError:
        warnings.warn(f"The input {what} can not be deepcopied, please be aware of in-place modification would affect "
                      "source data.", stacklevel=3)
        return source


class IterableWrapperIterDataPipe(IterDataPipe):
    """Yields the elements of ``iterable``; each iteration works on a deep copy unless ``deepcopy=False``."""

    def __init__(self, iterable, deepcopy=True):
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self):
        yield from deep_copy_or_warn(self.iterable, "iterable") if self.deepcopy else self.iterable

    def __len__(self):
        if hasattr(self.iterable, "__len__"):
            return len(self.iterable)
        raise no_length(self)
