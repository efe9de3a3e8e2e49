"""Facts about the elementwise and reduction ops every backend implements, defined once for all of them.

``ELEMENTWISE_OPS`` names the ops of the ``elementwise`` primitive (backends/contract.py) with their number of
operands; the sets below classify them by what a backend must do differently: a bool result, an integer
division whose zero divisor PyTorch reports. ``reduce_identity``: where a scatter reduction starts.
"""

ELEMENTWISE_OPS = {
    # binary arithmetic
    "add": 2, "sub": 2, "mul": 2, "div": 2, "floor_divide": 2, "remainder": 2, "fmod": 2, "pow": 2,
    "maximum": 2, "minimum": 2, "atan2": 2, "copysign": 2, "hypot": 2, "logaddexp": 2,
    # comparisons / logic (result dtype bool)
    "eq": 2, "ne": 2, "lt": 2, "le": 2, "gt": 2, "ge": 2,
    "logical_and": 2, "logical_or": 2, "logical_xor": 2, "logical_not": 1,
    "bitwise_and": 2, "bitwise_or": 2, "bitwise_xor": 2, "bitwise_not": 1,
    "bitwise_left_shift": 2, "bitwise_right_shift": 2,  # integers; a shift by < 0 or >= the width: 0 / sign fill
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

UNARY = frozenset(op for op, n in ELEMENTWISE_OPS.items() if n == 1)
BINARY = frozenset(op for op, n in ELEMENTWISE_OPS.items() if n == 2)
TERNARY = frozenset(op for op, n in ELEMENTWISE_OPS.items() if n == 3)

# the result is bool whatever the compute dtype (the inputs are compared in it)
BOOL_RESULT = frozenset(("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                         "logical_not", "isnan", "isinf", "isfinite", "signbit"))

# the elementwise ops PyTorch's CPU runs on float8 operands (measured on torch 2.13), computed in float32 and the
# result rounded back to the format (comparisons and isnan: bool); abs not on the unsigned float8_e8m0fnu. Every
# other op on a float8 is refused (_dtype.float8_compute_error).
FLOAT8_OPS = frozenset(("mul", "abs", "eq", "ne", "isnan", "where"))


def float8_computes(op, dtype):
    """Whether the elementwise op runs on operands of the float8 dtype (FLOAT8_OPS)."""
    return op in FLOAT8_OPS and not (op == "abs" and not dtype.is_signed)


# on integers, a zero divisor raises PyTorch's ZeroDivisionError (a float divisor gives inf/nan)
INT_DIVISIONS = frozenset(("floor_divide", "remainder", "fmod"))

# the ops a fused elementwise chain may hold (the wasm backend's ew_chain_<ct> kernels take them as opcodes, in this
# order): one or two operands and a result of the compute type (no comparisons, no where/clamp)
CHAIN_OPS = tuple(op for op, n in ELEMENTWISE_OPS.items() if n <= 2 and op not in BOOL_RESULT)

REDUCE_OPS = ("sum", "prod", "amax", "amin", "all", "any", "mean")

# ops whose input check runs through the ``require_all`` primitive (backends/contract.py; webgpu checks on the
# device and reports at the next read, backends/webgpu/device_checks.py): the RuntimeError PyTorch raises when it fails
VALUE_CHECKS = {
    "binary_cross_entropy": "all elements of input should be between 0 and 1 (apply sigmoid first, or use "
                            "binary_cross_entropy_with_logits on the raw scores)",
    "binary_cross_entropy_target": "all elements of target should be between 0 and 1 (binary_cross_entropy takes "
                                   "probabilities as targets)",
    "normal": "normal expects all elements of std >= 0.0",
    "histc": "torch.histc: range of [min, max] is not finite (remove NaN and inf values from the input, or pass "
             "finite min= and max=)",
}


def reduce_identity(reduce, lowest, highest):
    """The value a scatter reduction starts from where the target's own value is left out (include_self=False):
    the identity of ``reduce`` among the values ``lowest``..``highest`` its storage holds."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    return lowest if reduce == "amax" else highest
