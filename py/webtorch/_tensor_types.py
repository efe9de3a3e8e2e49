"""Legacy CPU tensor types: ``torch.FloatTensor(2, 3)``, ``torch.LongTensor([1, 2])``, ``isinstance(t,
torch.FloatTensor)`` and ``t.type(torch.LongTensor)``, as PyTorch keeps them for old scripts."""
from . import _dtype as D


class _TensorType(type):
    """Metaclass: an instance check is a dtype and device check, as PyTorch's ``torch.tensortype``."""

    def __instancecheck__(cls, obj):
        from ._tensor import Tensor
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"


def _construct(cls, *args, device=None):
    from ._tensor import Tensor, Size
    from .ops.creation import empty, tensor
    from ._device import device as as_device
    if device is not None and as_device(device).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {as_device(device).type} "
                           "was passed")
    if not args:
        return empty(0, dtype=cls.dtype, device="cpu")
    if all(isinstance(a, int) and not isinstance(a, bool) for a in args) or \
            (len(args) == 1 and isinstance(args[0], Size)):
        return empty(*args, dtype=cls.dtype, device="cpu")
    if len(args) > 1:
        raise TypeError(f"new(): expected sizes (ints) or one sequence of data, got {len(args)} arguments")
    src = args[0]
    if isinstance(src, Tensor):
        if src.dtype is not cls.dtype or src.device.type != "cpu":
            raise TypeError(f"expected a cpu tensor of dtype {cls.dtype} (got {src.dtype} on {src.device}); convert "
                            f"it with .to(torch.{cls.dtype.name}) or .type(torch.{cls.__name__})")
        return src.detach()
    return tensor(src, dtype=cls.dtype, device="cpu")


def _tensor_type(dtype):
    return _TensorType(D.tensor_type_name(dtype), (), {"dtype": dtype, "__new__": _construct, "__module__": "torch"})


FloatTensor = _tensor_type(D.float32)
DoubleTensor = _tensor_type(D.float64)
HalfTensor = _tensor_type(D.float16)
BFloat16Tensor = _tensor_type(D.bfloat16)
ByteTensor = _tensor_type(D.uint8)
CharTensor = _tensor_type(D.int8)
ShortTensor = _tensor_type(D.int16)
IntTensor = _tensor_type(D.int32)
LongTensor = _tensor_type(D.int64)
BoolTensor = _tensor_type(D.bool_)
