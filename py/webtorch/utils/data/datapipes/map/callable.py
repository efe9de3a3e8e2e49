"""Mapper (``.map``) of a MapDataPipe: ``fn`` of each item, applied when the item is read."""
from .._decorator import functional_datapipe
from ..datapipe import MapDataPipe
from ..utils.common import check_unpickable_fn

__all__ = ["MapperMapDataPipe", "default_fn"]


def default_fn(data):
    return data


@functional_datapipe("map")
class MapperMapDataPipe(MapDataPipe):
    """Item ``i`` is ``fn(datapipe[i])``."""

    def __init__(self, datapipe, fn=default_fn):
        super().__init__()
        self.datapipe = datapipe
        check_unpickable_fn(fn)
        self.fn = fn

    def __len__(self):
        return len(self.datapipe)

    def __getitem__(self, index):
        return self.fn(self.datapipe[index])
