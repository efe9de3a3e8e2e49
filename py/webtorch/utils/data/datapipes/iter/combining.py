"""Concater (``.concat``), Zipper (``.zip``) and Multiplexer (``.mux``)."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import no_length

__all__ = ["ConcaterIterDataPipe", "MultiplexerIterDataPipe", "ZipperIterDataPipe"]


def _all_sized(datapipes):
    return all(hasattr(dp, "__len__") for dp in datapipes)


@functional_datapipe("concat")
class ConcaterIterDataPipe(IterDataPipe):
    """The elements of each pipe, one pipe after the other."""

    def __init__(self, *datapipes):
        if len(datapipes) == 0:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `IterDataPipe`")
        self.datapipes = datapipes

    def __iter__(self):
        for dp in self.datapipes:
            yield from dp

    def __len__(self):
        if _all_sized(self.datapipes):
            return sum(len(dp) for dp in self.datapipes)
        raise no_length(self)


@functional_datapipe("zip")
class ZipperIterDataPipe(IterDataPipe):
    """Tuples of one element of each pipe, until the shortest ends."""

    def __init__(self, *datapipes):
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("All inputs are required to be `IterDataPipe` for `ZipIterDataPipe`.")
        super().__init__()
        self.datapipes = datapipes

    def __iter__(self):
        yield from zip(*[iter(dp) for dp in self.datapipes])

    def __len__(self):
        if _all_sized(self.datapipes):
            return min(len(dp) for dp in self.datapipes)
        raise no_length(self)


@functional_datapipe("mux")
class MultiplexerIterDataPipe(IterDataPipe):
    """One element of each pipe in turn, until the shortest ends (a round that cannot complete is dropped)."""

    def __init__(self, *datapipes):
        self.datapipes = datapipes
        self.buffer = []

    def __iter__(self):
        iterators = [iter(dp) for dp in self.datapipes]
        while iterators:
            for it in iterators:
                try:
                    self.buffer.append(next(it))
                except StopIteration:
                    self.buffer.clear()
                    return
            yield from self.buffer
            self.buffer.clear()

    def __len__(self):
        if _all_sized(self.datapipes):
            return min(len(dp) for dp in self.datapipes) * len(self.datapipes)
        raise no_length(self)

    def reset(self):
        self.buffer = []
