"""Filter (``.filter``): the elements for which a function is True."""
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import check_unpickable_fn, validate_input_col

__all__ = ["FilterIterDataPipe"]


@functional_datapipe("filter")
class FilterIterDataPipe(IterDataPipe):
    """Keeps the elements for which ``filter_fn`` (of the element, or of its ``input_col`` columns) returns True."""

    def __init__(self, datapipe, filter_fn, input_col=None):
        super().__init__()
        self.datapipe = datapipe
        check_unpickable_fn(filter_fn)
        self.filter_fn = filter_fn
        self.input_col = input_col
        validate_input_col(filter_fn, input_col)

    def _keep(self, data):
        if self.input_col is None:
            keep = self.filter_fn(data)
        elif isinstance(self.input_col, (list, tuple)):
            keep = self.filter_fn(*(data[col] for col in self.input_col))
        else:
            keep = self.filter_fn(data[self.input_col])
        if not isinstance(keep, bool):
            raise ValueError("Boolean output is required for `filter_fn` of FilterIterDataPipe, got", type(keep))
        return keep

    def __iter__(self):
        for data in self.datapipe:
            if self._keep(data):
                yield data
