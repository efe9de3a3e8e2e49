"""Batcher (``.batch``) and UnBatcher (``.unbatch``)."""
from .._decorator import functional_datapipe
from ..datapipe import DataChunk, IterDataPipe
from ..utils.common import no_length

__all__ = ["BatcherIterDataPipe", "UnBatcherIterDataPipe"]


def init_batcher(pipe, datapipe, batch_size, drop_last, wrapper_class):
    """The arguments both Batchers keep (and check)."""
    if batch_size <= 0:
        raise AssertionError("Batch size is required to be larger than 0!")
    pipe.datapipe, pipe.batch_size, pipe.drop_last, pipe.wrapper_class = datapipe, batch_size, drop_last, wrapper_class


def batch_count(n, batch_size, drop_last):
    """How many batches of ``batch_size`` a source of ``n`` elements gives."""
    return n // batch_size if drop_last else (n + batch_size - 1) // batch_size


@functional_datapipe("batch")
class BatcherIterDataPipe(IterDataPipe):
    """Groups consecutive elements into batches of ``batch_size`` (``wrapper_class``, DataChunk by default); the
    last, shorter batch is dropped when ``drop_last``."""

    def __init__(self, datapipe, batch_size, drop_last=False, wrapper_class=DataChunk):
        init_batcher(self, datapipe, batch_size, drop_last, wrapper_class)

    def __iter__(self):
        batch = []
        for x in self.datapipe:
            batch.append(x)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)

    def __len__(self):
        if hasattr(self.datapipe, "__len__"):
            return batch_count(len(self.datapipe), self.batch_size, self.drop_last)
        raise no_length(self)


@functional_datapipe("unbatch")
class UnBatcherIterDataPipe(IterDataPipe):
    """Yields the elements of each batch, ``unbatch_level`` levels deep (-1: all the way down)."""

    def __init__(self, datapipe, unbatch_level=1):
        self.datapipe = datapipe
        self.unbatch_level = unbatch_level

    def __iter__(self):
        for element in self.datapipe:
            yield from self._dive(element, self.unbatch_level)

    def _dive(self, element, level):
        if level < -1:
            raise ValueError("unbatch_level must be -1 or >= 0")
        if level == 0 or (level == -1 and not isinstance(element, list)):
            yield element
        elif isinstance(element, list):  # DataChunk is a list
            for item in element:
                yield from self._dive(item, level if level == -1 else level - 1)
        else:
            raise IndexError(f"unbatch_level {self.unbatch_level} exceeds the depth of the DataPipe")
