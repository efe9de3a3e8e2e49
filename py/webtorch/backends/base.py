"""THE primitive interface every backend implements.

A backend owns the bytes. It hands out opaque *handles*: a handle is one strided view (shape, strides,
storage offset, dtype) of one storage. Public ops (webtorch.ops) are written against these primitives
only; autograd, nn and optim are written against public ops. Adding a primitive means: document it
here, implement it in every backend, and cover it through the shared op tests.

Conventions
- shapes and strides are tuples of Python ints, strides in elements;
- ``dtype`` arguments are webtorch dtypes (webtorch._dtype);
- an ``args`` entry of ``elementwise`` is a handle or a Python scalar;
- every primitive returns a *new* handle with a fresh contiguous storage, unless it is a view primitive
  (documented as such) or takes ``out``, a handle it writes into;
- dims passed to primitives are already normalized (non-negative, validated by the op layer).

Elementwise op names (``elementwise``): see ELEMENTWISE_OPS below. The op layer computes the result
dtype (PyTorch promotion) and passes it; inputs may differ in dtype and broadcast against each other.
"""

# name -> number of operands
ELEMENTWISE_OPS = {
    # binary arithmetic
    "add": 2, "sub": 2, "mul": 2, "div": 2, "floor_divide": 2, "remainder": 2, "fmod": 2, "pow": 2,
    "maximum": 2, "minimum": 2, "atan2": 2, "copysign": 2, "hypot": 2, "logaddexp": 2,
    # comparisons / logic (result dtype bool)
    "eq": 2, "ne": 2, "lt": 2, "le": 2, "gt": 2, "ge": 2,
    "logical_and": 2, "logical_or": 2, "logical_xor": 2, "logical_not": 1,
    "bitwise_and": 2, "bitwise_or": 2, "bitwise_xor": 2, "bitwise_not": 1,
    "isnan": 1, "isinf": 1, "isfinite": 1, "signbit": 1,
    # unary math
    "neg": 1, "abs": 1, "sign": 1, "reciprocal": 1, "square": 1,
    "exp": 1, "exp2": 1, "expm1": 1, "log": 1, "log2": 1, "log10": 1, "log1p": 1,
    "sqrt": 1, "rsqrt": 1, "sin": 1, "cos": 1, "tan": 1, "asin": 1, "acos": 1, "atan": 1,
    "sinh": 1, "cosh": 1, "tanh": 1, "asinh": 1, "acosh": 1, "atanh": 1,
    "sigmoid": 1, "relu": 1, "erf": 1, "erfc": 1, "erfinv": 1,
    "floor": 1, "ceil": 1, "round": 1, "trunc": 1, "frac": 1,
    # ternary
    "where": 3,  # where(cond, a, b)
    "clamp": 3,  # clamp(x, lo, hi); lo/hi may be None (no bound)
}

REDUCE_OPS = ("sum", "prod", "amax", "amin", "all", "any", "mean")


class Backend:
    """Abstract base: each method documents a primitive. Backends subclass and implement all of them."""

    device_type = None

    # ---- handle metadata ------------------------------------------------------------------------
    def shape(self, h):
        """tuple of ints."""
        raise NotImplementedError

    def stride(self, h):
        """tuple of ints (elements)."""
        raise NotImplementedError

    def storage_offset(self, h):
        raise NotImplementedError

    def dtype(self, h):
        """webtorch dtype of the handle."""
        raise NotImplementedError

    def data_ptr(self, h):
        """An integer identifying the first element (equal for handles viewing the same place)."""
        raise NotImplementedError

    def storage_ptr(self, h):
        """An integer identifying the storage (equal for all views of one storage)."""
        raise NotImplementedError

    def storage_nbytes(self, h):
        raise NotImplementedError

    # ---- creation and host transfer ---------------------------------------------------------------
    def empty(self, shape, dtype):
        raise NotImplementedError

    def full(self, shape, value, dtype):
        raise NotImplementedError

    def arange(self, start, end, step, dtype):
        raise NotImplementedError

    def linspace(self, start, end, steps, dtype):
        raise NotImplementedError

    def eye(self, n, m, dtype):
        raise NotImplementedError

    def from_flat(self, values, shape, dtype):
        """New handle from a flat Python list of numbers in C order."""
        raise NotImplementedError

    def from_buffer(self, buf, shape, dtype):
        """New handle copying a bytes-like object holding little-endian elements in C order."""
        raise NotImplementedError

    def from_numpy(self, array, copy):
        """Handle sharing (copy=False, cpu only) or copying a NumPy array."""
        raise NotImplementedError

    def to_numpy(self, h):
        """NumPy array of the view (shares memory on cpu)."""
        raise NotImplementedError

    def to_bytes(self, h):
        """The elements as little-endian bytes in C order."""
        raise NotImplementedError

    def tolist(self, h):
        raise NotImplementedError

    def item(self, h):
        raise NotImplementedError

    # ---- views (return handles aliasing the same storage) -----------------------------------------
    def as_strided(self, h, shape, stride, offset):
        """View of h's storage with the given geometry (offset absolute, in elements)."""
        raise NotImplementedError

    def reshape_view(self, h, shape):
        """A view with the new shape if the strides allow it, else None."""
        raise NotImplementedError

    def permute(self, h, dims):
        raise NotImplementedError

    def expand(self, h, shape):
        """Broadcast view (stride 0 on expanded dims); shape has the same rank as h."""
        raise NotImplementedError

    def slice(self, h, key):
        """Basic indexing view: key is a tuple of ints, slices (step > 0) and None, already complete."""
        raise NotImplementedError

    def diagonal(self, h, offset, dim1, dim2):
        raise NotImplementedError

    # ---- copies and casts -------------------------------------------------------------------------
    def copy_(self, dst, src):
        """Write src (a handle of any dtype or a Python scalar, broadcast to dst) into dst in place."""
        raise NotImplementedError

    def contiguous(self, h):
        """A fresh C-contiguous copy."""
        raise NotImplementedError

    def cast(self, h, dtype):
        """A fresh copy converted to dtype (float->int truncates toward zero, as PyTorch)."""
        raise NotImplementedError

    def to_other(self, h, target):
        """Copy to another backend ``target``; returns target's handle."""
        raise NotImplementedError

    # ---- compute ------------------------------------------------------------------------------------
    def elementwise(self, op, args, dtype, out=None):
        """Broadcasting elementwise op (ELEMENTWISE_OPS); computes in ``dtype`` (bool ops: inputs' dtype,
        result bool). With ``out`` writes into that handle (same shape as the broadcast result)."""
        raise NotImplementedError

    def reduce(self, op, h, dims, keepdim, dtype):
        """REDUCE_OPS over ``dims`` (a tuple; empty = all dims) accumulating in/returning ``dtype``."""
        raise NotImplementedError

    def arg_reduce(self, op, h, dim, keepdim):
        """'argmax' / 'argmin' along dim (None: flattened), int64 result, first occurrence on ties."""
        raise NotImplementedError

    def matmul(self, a, b):
        """Batched matrix product of (..., n, k) and (..., k, m) with broadcast batch dims."""
        raise NotImplementedError
