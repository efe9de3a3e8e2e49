"""dtypes and PyTorch's type-promotion rules (no NumPy here: backends map dtypes to their own types)."""


class dtype:
    """A tensor element type. Printed as PyTorch prints it (``torch.float32``) so tutorials' output matches."""

    __slots__ = ("name", "itemsize", "is_floating_point", "is_complex", "is_signed", "_rank", "category")

    def __init__(self, name, itemsize, kind, rank):
        self.name = name
        self.itemsize = itemsize
        self.is_floating_point = kind == "f"
        self.is_complex = False
        self.is_signed = kind in "fi"
        self._rank = rank  # order inside the category, used by promote_types
        # 0 bool, 1 integral, 2 floating (PyTorch's promotion categories)
        self.category = 2 if kind == "f" else (0 if name == "bool" else 1)

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_lookup, (self.name,))

    def to_real(self):
        return self

    def to_complex(self):
        raise TypeError("webtorch has no complex dtypes")


bool_ = dtype("bool", 1, "b", 0)
uint8 = dtype("uint8", 1, "u", 1)
int8 = dtype("int8", 1, "i", 1)
int16 = dtype("int16", 2, "i", 2)
int32 = dtype("int32", 4, "i", 3)
int64 = dtype("int64", 8, "i", 4)
uint32 = dtype("uint32", 4, "u", 3)
float16 = dtype("float16", 2, "f", 1)
bfloat16 = dtype("bfloat16", 2, "f", 1)
float32 = dtype("float32", 4, "f", 2)
float64 = dtype("float64", 8, "f", 3)
# float8 formats (PyTorch's; storage, conversion and data movement only on its CPU -- backends/float8_formats.py)
float8_e4m3fn = dtype("float8_e4m3fn", 1, "f", 0)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", 1, "f", 0)
float8_e5m2 = dtype("float8_e5m2", 1, "f", 0)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", 1, "f", 0)
float8_e8m0fnu = dtype("float8_e8m0fnu", 1, "f", 0)
float8_e8m0fnu.is_signed = False  # exponent only: no sign bit
FLOAT8 = (float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu)

# PyTorch's ScalarType names, used in its error messages
_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                 "uint32": "UInt32", "float16": "Half", "bfloat16": "BFloat16", "float32": "Float",
                 "float64": "Double"}
_SCALAR_NAMES.update({d.name: "Float8" + d.name[6:] for d in FLOAT8})  # "Float8_e4m3fn"

# the C++ type names PyTorch's kernel messages use ("float", "long int")
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "uint32": "unsigned int", "bool": "bool"}
_CPP_NAMES.update({d.name: "c10::Float8" + d.name[6:] for d in FLOAT8})


# the legacy tensor type of each dtype (torch.FloatTensor, t.type()), on the CPU
_TENSOR_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                      "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                      "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor",
                      "uint32": "UInt32Tensor"}
_TENSOR_TYPE_NAMES.update({d.name: "Float8" + d.name[6:] + "Tensor" for d in FLOAT8})
_BY_TENSOR_TYPE_NAME = {v: k for k, v in _TENSOR_TYPE_NAMES.items()}


def tensor_type_name(dt):
    """The legacy tensor type name of dt ("FloatTensor" for float32), as t.type() and torch.FloatTensor spell it."""
    return _TENSOR_TYPE_NAMES[dt.name]


def from_tensor_type_name(name):
    """The dtype of a legacy tensor type name ("LongTensor" -> int64), or None for a name that is none."""
    dt = _BY_TENSOR_TYPE_NAME.get(name)
    return None if dt is None else _lookup(dt)


def scalar_type_name(dt):
    """PyTorch's ScalarType name of dt ("Float", "Long"), as its error messages spell it."""
    return _SCALAR_NAMES[dt.name]


def float8_compute_error(dt):
    """The error for computing on a float8 tensor: PyTorch's CPU only stores, converts and moves float8 values."""
    return NotImplementedError(f"this op is not implemented for '{_SCALAR_NAMES[dt.name]}' (torch.{dt.name}): "
                               "float8 tensors support creation, conversion and data movement only; convert with "
                               ".to(torch.float32) before computing")


def cpp_type_name(dt):
    """The C++ type PyTorch's kernel messages name for dt ("float", "long int")."""
    return _CPP_NAMES[dt.name]


# the C type c10's overflow check names ("value cannot be converted to type int64_t without overflow")
_OVERFLOW_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
                   "uint32": "uint32_t"}


def _float8_overflows(value, dt):
    """c10's ``overflows`` for a float8 dtype: past its finite range (inf fits only float8_e5m2; NaN fits all)."""
    if value != value or (dt is float8_e5m2 and abs(value) == float("inf")):
        return False
    hi, lo = _FLOAT_FACTS[dt.name][2], _FLOAT_FACTS[dt.name][3]
    return not ((lo if dt is float8_e8m0fnu else -hi) <= value <= hi)


def fit_scalar(value, dt, numel=None):
    """A Python number to store into dtype dt, as PyTorch stores it: into an integer dtype it must fit (c10's
    ``overflows``: NaN and inf never fit; an unsigned type takes integers down to -max, which wrap, so -1 is 255
    for uint8, and no negative float), else PyTorch's overflow error. Into a float8 dtype a fill of more than one
    element (``numel``) must fit its range (PyTorch's one-element fill converts unchecked)."""
    if dt in FLOAT8 and (numel is None or numel > 1) and isinstance(value, (int, float)) \
            and _float8_overflows(value, dt):
        raise RuntimeError(f"value cannot be converted to type {_CPP_NAMES[dt.name]} without overflow")
    if dt.is_floating_point or dt.name == "bool" or not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    bits = dt.itemsize * 8
    hi = (1 << bits) - 1 if dt.name.startswith("u") else (1 << (bits - 1)) - 1
    lo = (0 if isinstance(value, float) else -hi) if dt.name.startswith("u") else -hi - 1
    if value != value or not lo <= value <= hi:
        raise RuntimeError(f"value cannot be converted to type {_OVERFLOW_NAMES[dt.name]} without overflow")
    return int(value) & hi if value < 0 and dt.name.startswith("u") else value


ALL = (bool_, uint8, int8, int16, int32, int64, uint32, float16, bfloat16, float32, float64) + FLOAT8
_BY_NAME = {d.name: d for d in ALL}
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32,
    "short": int16, "bool": bool_, "uint8": uint8, "float32": float32, "float64": float64,
    "float16": float16, "bfloat16": bfloat16, "int64": int64, "int32": int32, "int16": int16,
    "int8": int8, "uint32": uint32, **{d.name: d for d in FLOAT8},
}


def _lookup(name):
    return _BY_NAME[name]


class _Default:
    dtype = float32


_default = _Default()


def get_default_dtype():
    return _default.dtype


def set_default_dtype(d):
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _default.dtype = d


def promote_types(a, b):
    """PyTorch's torch.promote_types for the dtypes webtorch knows."""
    if a is b:
        return a
    if a in FLOAT8 or b in FLOAT8:
        raise RuntimeError("Promotion for Float8 Types is not supported, attempted to promote "
                           f"{_SCALAR_NAMES[a.name]} and {_SCALAR_NAMES[b.name]}")
    ca, cb = a.category, b.category
    if (a is uint32 or b is uint32) and ca != 2 and cb != 2:
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{_SCALAR_NAMES[a.name]} and {_SCALAR_NAMES[b.name]}")
    if ca != cb:
        return a if ca > cb else b
    if ca == 2:
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return float32
        return a if a._rank > b._rank else b
    # integral: unsigned mixes with signed by widening
    if a.is_signed != b.is_signed:
        u, s = (a, b) if not a.is_signed else (b, a)
        if s.itemsize > u.itemsize:
            return s
        return {1: int16, 2: int32, 4: int64, 8: int64}[u.itemsize]
    return a if a.itemsize > b.itemsize else b


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool_ or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(x):
    """dtype of a Python number as a 'wrapped number' (float -> the default dtype)."""
    if isinstance(x, bool):
        return bool_
    if isinstance(x, int):
        return int64
    if isinstance(x, float):
        return _default.dtype
    raise TypeError(f"expected a Tensor or a Python number, got {type(x).__name__}")


_PY_CATEGORY = {bool: 0, int: 1, float: 2}


def result_type(*args):
    """torch.result_type over Tensors and Python scalars: dim>0 tensors > 0-dim tensors > scalars."""
    if len(args) == 2:  # the per-op hot path: tensor (op) tensor of one dtype, tensor (op) Python number
        a, b = args
        ka, kb = _PY_CATEGORY.get(type(a)), _PY_CATEGORY.get(type(b))
        if ka is None and kb is None:
            d = getattr(a, "dtype", None)
            if d is getattr(b, "dtype", None) and type(d) is dtype:
                return d
        elif ka is None or kb is None:
            d, k = (getattr(a, "dtype", None), kb) if ka is None else (getattr(b, "dtype", None), ka)
            if type(d) is dtype:
                if d.category >= k:
                    return d
                return _default.dtype if k == 2 else int64  # float scalar on ints; int scalar on bool
    dim_r = zero_r = wrap_r = None
    for a in args:
        d = getattr(a, "dtype", None)
        if d is None or not isinstance(d, dtype):
            d = scalar_dtype(a)
            wrap_r = d if wrap_r is None else promote_types(wrap_r, d)
        elif a.dim() == 0:
            zero_r = d if zero_r is None else promote_types(zero_r, d)
        else:
            dim_r = d if dim_r is None else promote_types(dim_r, d)
    return _combine(dim_r, _combine(zero_r, wrap_r))


def to_dtype(x):
    """A user's ``dtype=`` argument: a webtorch dtype, a Python type, or a dtype of PyTorch (its ``name``).

    A string is refused as PyTorch refuses it (``dtype='float32'`` is a TypeError there); file readers that
    hold a dtype's name use ``from_name``.
    """
    if isinstance(x, dtype):
        return x
    if x is float:
        return float64
    if x is int:
        return int64
    if x is bool:
        return bool_
    if isinstance(x, str):
        raise TypeError(f"argument 'dtype' must be torch.dtype, not str (write torch.{ALIASES.get(x, float32).name}"
                        f" instead of {x!r})")
    name = getattr(x, "name", None) or str(x)
    return from_name(name)


def from_name(name):
    """The dtype named ``name`` ('float32', 'torch.long', ...), as checkpoint files spell it."""
    name = name.replace("torch.", "")
    if name in ALIASES:
        return ALIASES[name]
    raise TypeError(f"unknown dtype {name!r}")


# (bits, eps, max, tiny, resolution) of each floating dtype, as torch.finfo reports them
_FLOAT_FACTS = {
    "float16": (16, 0.0009765625, 65504.0, 6.103515625e-05, 0.001),
    "bfloat16": (16, 0.0078125, 3.3895313892515355e+38, 1.1754943508222875e-38, 0.01),
    "float32": (32, 1.1920928955078125e-07, 3.4028234663852886e+38, 1.1754943508222875e-38, 1e-06),
    "float64": (64, 2.220446049250313e-16, 1.7976931348623157e+308, 2.2250738585072014e-308, 1e-15),
    "float8_e4m3fn": (8, 0.125, 448.0, 0.015625, 1.0),
    "float8_e4m3fnuz": (8, 0.125, 240.0, 0.0078125, 1.0),
    "float8_e5m2": (8, 0.25, 57344.0, 6.103515625e-05, 1.0),
    "float8_e5m2fnuz": (8, 0.125, 57344.0, 3.0517578125e-05, 1.0),
    "float8_e8m0fnu": (8, 1.0, 1.7014118346046923e+38, 5.877471754111438e-39, 1.0),
}


class finfo:
    """torch.finfo: the limits of a floating-point dtype (the default dtype when none is given)."""

    def __init__(self, type=None):
        d = _default.dtype if type is None else to_dtype(type)
        if d.name not in _FLOAT_FACTS:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        self.dtype = d.name
        self.bits, self.eps, self.max, self.tiny, self.resolution = _FLOAT_FACTS[d.name]
        # float8_e8m0fnu has no sign: its smallest value is its tiny
        self.min = self.tiny if d is float8_e8m0fnu else -self.max
        self.smallest_normal = self.tiny

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """torch.iinfo: the limits of an integer dtype."""

    def __init__(self, type):
        d = to_dtype(type)
        if d is bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        self.dtype = d.name
        self.bits = 8 * d.itemsize
        self.min = -(1 << (self.bits - 1)) if d.is_signed else 0
        self.max = (1 << (self.bits - 1)) - 1 if d.is_signed else (1 << self.bits) - 1

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
