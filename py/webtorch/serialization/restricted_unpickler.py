"""An unpickler that can never run code from a file: only the globals a checkpoint needs resolve."""
import pickle
from collections import OrderedDict

STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
}


class _StorageType:
    """Stands for torch.<Type>Storage inside a persistent id."""

    def __init__(self, name):
        self.name = name
        self.dtype_name = STORAGE_DTYPES[name]


def _codecs_encode(text, encoding="utf-8"):
    if encoding not in ("latin1", "latin-1", "utf-8", "utf8"):
        raise pickle.UnpicklingError(f"unsupported encoding {encoding!r} in checkpoint")
    return text.encode(encoding)


class RestrictedUnpickler(pickle.Unpickler):
    """Resolves only collections.OrderedDict, torch tensor/parameter rebuilders, storage types, torch.device
    and _codecs.encode; anything else raises UnpicklingError naming the global."""

    def __init__(self, file, rebuild_tensor, rebuild_parameter, load_storage, make_device):
        super().__init__(file)
        self._rebuild_tensor = rebuild_tensor
        self._rebuild_parameter = rebuild_parameter
        self._load_storage = load_storage
        self._make_device = make_device

    def find_class(self, module, name):
        if module == "collections" and name == "OrderedDict":
            return OrderedDict
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return self._rebuild_tensor
        if module == "torch._utils" and name == "_rebuild_parameter":
            return self._rebuild_parameter
        if module == "torch" and name in STORAGE_DTYPES:
            return _StorageType(name)
        if module == "torch" and name == "device":
            return self._make_device
        if module == "_codecs" and name == "encode":
            return _codecs_encode
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. webtorch.load only "
            "reads tensors and dict/list/tuple/number/str containers (it never runs code from a file).")

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"
                and isinstance(pid[1], _StorageType) and isinstance(pid[2], str) and isinstance(pid[4], int)):
            raise pickle.UnpicklingError(f"malformed storage reference in checkpoint: {pid!r}"[:200])
        return self._load_storage(pid[1].dtype_name, pid[2], pid[3], pid[4])
