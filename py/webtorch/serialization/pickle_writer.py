"""A small pickle (protocol 2) writer for checkpoint objects, emitting exactly the globals PyTorch's
``torch.load(weights_only=True)`` accepts -- without importing torch (it must run in Pyodide).

Supported values: dict/OrderedDict, list, tuple, str, bytes, int, float, bool, None, Tensor (through a
persistent id naming a storage record).
"""
import struct
from collections import OrderedDict

PROTO, STOP, MARK = b"\x80\x02", b".", b"("
EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE = b"}", b"]", b")"
SETITEMS, APPENDS, TUPLE, REDUCE, BINPERSID = b"u", b"e", b"t", b"R", b"Q"
NONE, NEWTRUE, NEWFALSE = b"N", b"\x88", b"\x89"
BININT, BININT1, BININT2, LONG1, BINFLOAT, BINUNICODE, GLOBAL = b"J", b"K", b"M", b"\x8a", b"G", b"X", b"c"
BINPUT, LONG_BINPUT, BINGET, LONG_BINGET = b"q", b"r", b"h", b"j"


class PickleWriter:
    """Writes one object; ``tensor_ref(t)`` must return the persistent-id tuple and rebuild args."""

    def __init__(self, tensor_ref):
        self.out = bytearray(PROTO)
        self.memo = {}
        self.tensor_ref = tensor_ref

    def dump(self, obj):
        self.save(obj)
        self.out += STOP
        return bytes(self.out)

    # memo keeps globals and repeated strings short, as pickle does
    def _put(self, key):
        idx = len(self.memo)
        self.memo[key] = idx
        self.out += BINPUT + bytes([idx]) if idx < 256 else LONG_BINPUT + struct.pack("<I", idx)

    def _get(self, key):
        idx = self.memo.get(key)
        if idx is None:
            return False
        self.out += BINGET + bytes([idx]) if idx < 256 else LONG_BINGET + struct.pack("<I", idx)
        return True

    def save_global(self, module, name):
        key = ("global", module, name)
        if not self._get(key):
            self.out += GLOBAL + module.encode() + b"\n" + name.encode() + b"\n"
            self._put(key)

    def save(self, obj):
        from .._tensor import Tensor
        from .._device import device as _device_cls
        out = self.out
        if obj is None:
            out += NONE
        elif obj is True:
            out += NEWTRUE
        elif obj is False:
            out += NEWFALSE
        elif isinstance(obj, int):
            self._int(obj)
        elif isinstance(obj, float):
            out += BINFLOAT + struct.pack(">d", obj)
        elif isinstance(obj, str):
            key = ("str", obj)
            if not self._get(key):
                b = obj.encode("utf-8", "surrogatepass")
                out += BINUNICODE + struct.pack("<I", len(b)) + b
                self._put(key)
        elif isinstance(obj, (bytes, bytearray)):
            self.save_global("_codecs", "encode")
            self.save_tuple((bytes(obj).decode("latin1"), "latin1"))
            out += REDUCE
        elif isinstance(obj, Tensor):
            self.save_tensor(obj)
        elif isinstance(obj, OrderedDict):
            self.save_global("collections", "OrderedDict")
            out += EMPTY_TUPLE + REDUCE
            self._items(obj)
        elif isinstance(obj, dict):
            out += EMPTY_DICT
            self._items(obj)
        elif isinstance(obj, list):
            out += EMPTY_LIST
            if obj:
                out += MARK
                for v in obj:
                    self.save(v)
                out += APPENDS
        elif isinstance(obj, tuple):
            self.save_tuple(obj)
        elif isinstance(obj, _device_cls):
            self.save_global("torch", "device")
            self.save_tuple((str(obj),))
            out += REDUCE
        else:
            raise TypeError(f"webtorch.save: cannot save an object of type {type(obj).__name__}; checkpoints hold "
                            "tensors and dict/list/tuple/str/int/float/bool/None containers of them")

    def _int(self, v):
        out = self.out
        if 0 <= v < 256:
            out += BININT1 + bytes([v])
        elif 0 <= v < 65536:
            out += BININT2 + struct.pack("<H", v)
        elif -(1 << 31) <= v < (1 << 31):
            out += BININT + struct.pack("<i", v)
        else:
            n = (v.bit_length() + 8) // 8
            out += LONG1 + bytes([n]) + v.to_bytes(n, "little", signed=True)

    def _items(self, d):
        if not d:
            return
        self.out += MARK
        for k, v in d.items():
            self.save(k)
            self.save(v)
        self.out += SETITEMS

    def save_tuple(self, t):
        if not t:
            self.out += EMPTY_TUPLE
            return
        self.out += MARK
        for v in t:
            self.save(v)
        self.out += TUPLE

    def save_tensor(self, t):
        storage_type, key, location, numel, offset, size, stride, requires_grad = self.tensor_ref(t)
        self.save_global("torch._utils", "_rebuild_tensor_v2")
        self.out += MARK
        # persistent id: ('storage', torch.<Type>Storage, key, location, numel)
        self.out += MARK
        self.save("storage")
        self.save_global("torch", storage_type)
        self.save(key)
        self.save(location)
        self.save(numel)
        self.out += TUPLE + BINPERSID
        self.save(offset)
        self.save_tuple(tuple(size))
        self.save_tuple(tuple(stride))
        self.save(bool(requires_grad))
        self.save_global("collections", "OrderedDict")
        self.out += EMPTY_TUPLE + REDUCE
        self.out += TUPLE + REDUCE
