"""default_collate / default_convert: how a DataLoader turns samples into batches."""
import collections.abc
from ...._dtype import float64
from ...._tensor import Tensor
from ....ops.creation import as_tensor, tensor
from ....ops.shape import stack


def _is_numpy(x):
    return type(x).__module__ == "numpy"


def default_convert(data):
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data) and hasattr(data, "dtype") and data.dtype.kind not in "SUO":
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({k: default_convert(v) for k, v in data.items()}) if not isinstance(data, dict) \
            else {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return [default_convert(d) for d in data] if isinstance(data, list) else tuple(default_convert(d) for d in data)
    return data


def default_collate(batch):
    """Stack tensors/arrays, turn numbers into tensors, recurse into dicts and sequences."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if _is_numpy(elem) and hasattr(elem, "dtype"):
        if elem.dtype.kind in "SUO":
            raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                            f"found {elem.dtype}")
        if elem.shape == ():
            return as_tensor([e.item() for e in batch]).to(as_tensor(elem).dtype)
        return stack([as_tensor(b) for b in batch], 0)
    if isinstance(elem, bool):
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(s)) for s in zip(*batch)]  # a list also for tuples, as PyTorch
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
                    f"{type(elem)}")
