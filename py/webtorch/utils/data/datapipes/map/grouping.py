"""Batcher (``.batch``) of a MapDataPipe: item ``i`` is the i-th batch."""
from .._decorator import functional_datapipe
from ..datapipe import DataChunk, MapDataPipe
from ..iter.grouping import batch_count, init_batcher
from ..utils.common import no_length

__all__ = ["BatcherMapDataPipe"]


@functional_datapipe("batch")
class BatcherMapDataPipe(MapDataPipe):
    """Item ``i`` holds items ``i*batch_size`` to ``(i+1)*batch_size - 1`` (fewer at the end unless
    ``drop_last``)."""

    def __init__(self, datapipe, batch_size, drop_last=False, wrapper_class=DataChunk):
        init_batcher(self, datapipe, batch_size, drop_last, wrapper_class)

    def __getitem__(self, index):
        batch = []
        try:
            batch.extend(self.datapipe[i] for i in range(index * self.batch_size, (index + 1) * self.batch_size))
            return self.wrapper_class(batch)
        except IndexError as e:
            if not self.drop_last and batch:
                return self.wrapper_class(batch)
            raise IndexError(f"Index {index} is out of bound.") from e

    def __len__(self):
        if hasattr(self.datapipe, "__len__"):
            return batch_count(len(self.datapipe), self.batch_size, self.drop_last)
        raise no_length(self)
