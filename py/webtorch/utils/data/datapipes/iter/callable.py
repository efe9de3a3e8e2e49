"""Mapper (``.map``) and Collator (``.collate``): a function applied to each element, or to some of its columns."""
from ..._utils.collate import default_collate
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import check_unpickable_fn, no_length, validate_input_col

__all__ = ["CollatorIterDataPipe", "MapperIterDataPipe"]


def apply_to_columns(fn, data, input_col, output_col):
    """``fn`` of the element's ``input_col`` column(s), written to ``output_col`` (``-1`` appends; None replaces the
    input column, several input columns collapse into the first). Tuples stay tuples; others are copied first."""
    if input_col is None:
        res = fn(data)
        if output_col is None:
            return res
    elif isinstance(input_col, (list, tuple)):
        res = fn(*(data[col] for col in input_col))
    else:
        res = fn(data[input_col])
    is_tuple = isinstance(data, tuple)
    data = list(data) if is_tuple else data
    if output_col is None:
        if isinstance(input_col, (list, tuple)):
            data[input_col[0]] = res
            for idx in sorted(input_col[1:], reverse=True):
                del data[idx]
        else:
            data[input_col] = res
    elif output_col == -1:
        data.append(res)
    else:
        data[output_col] = res
    return tuple(data) if is_tuple else data


@functional_datapipe("map")
class MapperIterDataPipe(IterDataPipe):
    """Applies ``fn`` to each element (``input_col``/``output_col`` select columns of tuple/list/dict elements)."""

    def __init__(self, datapipe, fn, input_col=None, output_col=None):
        super().__init__()
        self.datapipe = datapipe
        check_unpickable_fn(fn)
        self.fn = fn
        self.input_col = input_col
        if input_col is None and output_col is not None:
            raise ValueError("`output_col` must be None when `input_col` is None.")
        if isinstance(output_col, (list, tuple)):
            if len(output_col) > 1:
                raise ValueError("`output_col` must be a single-element list or tuple")
            output_col = output_col[0]
        self.output_col = output_col
        validate_input_col(fn, input_col)

    def __iter__(self):
        for data in self.datapipe:
            yield apply_to_columns(self.fn, data, self.input_col, self.output_col)

    def __len__(self):
        if hasattr(self.datapipe, "__len__"):
            return len(self.datapipe)
        raise no_length(self)


@functional_datapipe("collate")
class CollatorIterDataPipe(MapperIterDataPipe):
    """Collates each element (a batch) by ``collate_fn`` or ``conversion`` (default: ``default_collate``)."""

    def __init__(self, datapipe, conversion=default_collate, collate_fn=None):
        if collate_fn is None and not callable(conversion):
            raise NotImplementedError("Collator: a dict `conversion` collates DataFrame columns (PyTorch's "
                                      "TorchArrow path), which webtorch does not have; pass a callable")
        super().__init__(datapipe, fn=collate_fn if collate_fn is not None else conversion)
