"""Every public op. Each module of this package exports FUNCTIONS (webtorch.<name>), METHODS
(Tensor.<name>), and optionally PROPERTIES and DUNDERS; the package root imports the FUNCTIONS by name.

The tables below are Tensor's method table: every method, property and operator of Tensor, under the module
that defines it (``"add_"`` in ``"arithmetic"``: ops/arithmetic.py's METHODS["add_"]). Tensor (_tensor.py)
defines what needs no op (metadata, autograd, conversions to Python); everything else is attached from here, and
only from here: a name a module defines that its row lacks, a row naming what the module does not define, or a
name in two rows fails the import (so the table is always the whole truth).

To add an op family: write a module here with those dicts, list it in MODULES, give it its rows below and import
its FUNCTIONS in webtorch/__init__.py (tests/tooling/test_api_namespace.py fails until the root has them all).

A family no first training step calls is listed in ON_FIRST_USE instead: ``import webtorch`` does not import it (its
names at the root and in nn.functional load it: webtorch._lazy; its Tensor methods are placeholders that load it at
their first lookup), and it attaches its methods and makes its tables public when it is imported (``publish``), so
the browser wheel can keep it out of its first archive. Such a family gives Tensor methods only (no properties or
operators).
"""
import importlib
import sys
from types import FunctionType

from .._tensor import Tensor
from .._torch_function import public, tensor_methods_added

MODULES = [
    "creation",
    "convert",
    "views",
    "comparison",
    "where_clamp",
    "unary_math",
    "binary_math",
    "arithmetic",
    "reduction",
    "extrema",
    "norms",
    "scan",
    "sorting",
    "mode",
    "random",
    "linalg",
    "linalg_extra",
    "linalg_decomp",
    "indexing",
    "fill",
    "shape",
    "scatter_gather",
    "index_along_dim",
    "masked",
    "take_put",
    "activation",
    "softmax",
    "normalization",
    "dropout",
    "loss",
    "ctc_loss",
    "padding",
    "conv",
    "pooling",
    "resampling",
    "embedding",
    "special_math",
    "gamma_reparam",
    "gamma_random",
    "renorm",
    "sparse_coo",
]
# families with public functions (nn.functional's) and no Tensor rows, and the modules with no tables (what other
# families and layers build on): their names of public functions become the public forms too
PUBLIC_ONLY = ["linear_cross_entropy", "margin_losses"]
INTERNAL = ["cross_map_lrn", "fused_update", "rnn_cell", "scaled_mm", "separable_resample"]
# imported at their first use; each ends with ``publish(__name__)``
ON_FIRST_USE = ["attention", "combinatorics", "membership", "grid_sample", "embedding_bag", "fractional_pooling",
                "grouped_mm", "counting", "quantile", "differences", "covariance", "matrix_functions"]


METHODS = {
    "creation": ("new_empty", "new_full", "new_ones", "new_tensor", "new_zeros"),
    "convert": ("clone", "contiguous", "is_same_size", "to"),
    "views": (
        "as_strided", "broadcast_to", "expand", "expand_as", "flatten", "moveaxis", "movedim", "permute", "ravel",
        "reshape", "reshape_as", "squeeze", "swapaxes", "swapdims", "t", "transpose", "unflatten", "unfold",
        "unsqueeze", "view", "view_as",
    ),
    "comparison": (
        "allclose", "bitwise_and", "bitwise_and_", "bitwise_left_shift", "bitwise_left_shift_", "bitwise_not",
        "bitwise_not_", "bitwise_or", "bitwise_or_", "bitwise_right_shift", "bitwise_right_shift_", "bitwise_xor",
        "bitwise_xor_", "eq", "eq_", "equal", "ge", "ge_", "greater", "greater_equal", "gt", "gt_", "isclose",
        "isfinite", "isinf", "isnan", "le", "le_", "less", "less_equal", "logical_and", "logical_and_", "logical_not",
        "logical_not_", "logical_or", "logical_or_", "logical_xor", "logical_xor_", "lt", "lt_", "ne", "ne_",
        "not_equal", "signbit",
    ),
    "where_clamp": (
        "clamp", "clamp_", "clamp_max", "clamp_max_", "clamp_min", "clamp_min_", "clip", "clip_", "fmax", "fmin",
        "maximum", "maximum_", "minimum", "minimum_", "where",
    ),
    "unary_math": (
        "abs", "abs_", "absolute", "absolute_", "acos", "acos_", "acosh", "acosh_", "arccos", "arccos_", "arccosh",
        "arccosh_", "arcsin", "arcsin_", "arcsinh", "arcsinh_", "arctan", "arctan_", "arctanh", "arctanh_", "asin",
        "asin_", "asinh", "asinh_", "atan", "atan_", "atanh", "atanh_", "ceil", "ceil_", "cos", "cos_", "cosh",
        "cosh_", "deg2rad", "deg2rad_", "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "exp", "exp2", "exp2_",
        "exp_", "expm1", "expm1_", "fix", "fix_", "floor", "floor_", "frac", "frac_", "log", "log10", "log10_",
        "log1p", "log1p_", "log2", "log2_", "log_", "logit", "logit_", "nan_to_num", "nan_to_num_", "neg", "neg_",
        "negative", "negative_", "positive", "rad2deg", "rad2deg_", "reciprocal", "reciprocal_", "relu", "relu_",
        "round", "round_", "rsqrt", "rsqrt_", "sgn", "sgn_", "sigmoid", "sigmoid_", "sign", "sign_", "sin", "sin_",
        "sinc", "sinc_", "sinh", "sinh_", "sqrt", "sqrt_", "square", "square_", "tan", "tan_", "tanh", "tanh_",
        "trunc", "trunc_",
    ),
    "binary_math": (
        "arctan2", "arctan2_", "atan2", "atan2_", "copysign", "copysign_", "heaviside", "heaviside_", "hypot",
        "hypot_", "logaddexp", "logaddexp2", "xlogy", "xlogy_",
    ),
    "arithmetic": (
        "add", "add_", "addcdiv", "addcdiv_", "addcmul", "addcmul_", "div", "div_", "divide", "divide_",
        "float_power", "float_power_", "floor_divide", "floor_divide_", "fmod", "fmod_", "lerp", "lerp_", "mul",
        "mul_", "multiply", "multiply_", "pow", "pow_", "remainder", "remainder_", "rsub", "sub", "sub_", "subtract",
        "subtract_", "true_divide", "true_divide_",
    ),
    "reduction": (
        "all", "any", "count_nonzero", "logsumexp", "mean", "nanmean", "nansum", "prod", "std", "sum", "var",
    ),
    "extrema": ("amax", "amin", "aminmax", "argmax", "argmin", "max", "min"),
    "norms": ("dist", "norm"),
    "scan": ("cummax", "cummin", "cumprod", "cumprod_", "cumsum", "cumsum_", "logcumsumexp"),
    "sorting": ("argsort", "kthvalue", "median", "msort", "nanmedian", "sort", "topk", "unique"),
    "mode": ("mode",),
    "random": (
        "bernoulli", "bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_", "multinomial", "normal_",
        "random_", "uniform_",
    ),
    "linalg": ("addmm", "bmm", "dot", "ger", "matmul", "mm", "mv", "outer"),
    "linalg_extra": (
        "addbmm", "addmv", "baddbmm", "cross", "det", "diag", "diag_embed", "inverse", "kron", "trace", "tril",
        "tril_", "triu", "triu_",
    ),
    "linalg_decomp": ("cholesky_solve", "logdet", "matrix_power", "slogdet"),
    "matrix_functions": ("geqrf", "matrix_exp", "orgqr"),
    "indexing": ("diagonal", "index_put", "index_put_", "narrow", "select"),
    "fill": ("copy_", "fill_", "resize_", "zero_"),
    "shape": (
        "chunk", "dsplit", "flip", "fliplr", "flipud", "hsplit", "repeat", "repeat_interleave", "roll", "rot90",
        "split", "split_with_sizes", "tensor_split", "tile", "unbind", "unsafe_chunk", "vsplit",
    ),
    "scatter_gather": (
        "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "scatter_reduce", "scatter_reduce_",
        "take_along_dim",
    ),
    "index_along_dim": (
        "index_add", "index_add_", "index_copy", "index_copy_", "index_fill", "index_fill_", "index_select",
    ),
    "masked": (
        "argwhere", "masked_fill", "masked_fill_", "masked_scatter", "masked_scatter_", "masked_select", "nonzero",
    ),
    "take_put": ("put", "put_", "take"),
    "activation": ("hardshrink", "prelu"),
    "softmax": ("log_softmax", "softmax"),
    "special_math": (
        "digamma", "digamma_", "i0", "i0_", "lgamma", "lgamma_", "mvlgamma", "mvlgamma_", "polygamma", "polygamma_",
    ),
    "counting": ("bincount", "histc", "histogram"),
    "quantile": ("nanquantile", "quantile"),
    "differences": ("diff",),
    "covariance": ("corrcoef", "cov"),
    "renorm": ("renorm", "renorm_"),
    "sparse_coo": ("sparse_mask", "to_sparse", "to_sparse_coo"),
}


PROPERTIES = {
    "views": ("T", "mT"),
}


DUNDERS = {
    "creation": ("__new__", "__reduce_ex__"),
    "comparison": (
        "__and__", "__eq__", "__ge__", "__gt__", "__iand__", "__ilshift__", "__invert__", "__ior__", "__irshift__",
        "__ixor__", "__le__", "__lshift__", "__lt__", "__ne__", "__or__", "__rand__", "__rlshift__", "__ror__",
        "__rrshift__", "__rshift__", "__rxor__", "__xor__",
    ),
    "unary_math": ("__abs__", "__neg__", "__pos__"),
    "arithmetic": (
        "__add__", "__floordiv__", "__iadd__", "__ifloordiv__", "__imod__", "__imul__", "__ipow__", "__isub__",
        "__itruediv__", "__mod__", "__mul__", "__pow__", "__radd__", "__rfloordiv__", "__rmod__", "__rmul__",
        "__rpow__", "__rsub__", "__rtruediv__", "__sub__", "__truediv__",
    ),
    "linalg": ("__matmul__", "__rmatmul__"),
    "indexing": ("__getitem__", "__setitem__"),
}


def _install():
    attached = {}  # name -> the module whose row attached it: a name in two rows would hide one of them
    for name in MODULES + ON_FIRST_USE:
        for kind, table in (("METHODS", METHODS), ("PROPERTIES", PROPERTIES), ("DUNDERS", DUNDERS)):
            for k in table.get(name, ()):
                if k in attached:
                    raise ImportError(f"Tensor.{k} is in the rows of both {attached[k]} and {name} in ops/__init__.py")
                attached[k] = name
                if name in ON_FIRST_USE:
                    if kind != "METHODS":
                        raise ImportError(f"webtorch.ops.{name} gives Tensor {kind.lower()}: list it in MODULES")
                    setattr(Tensor, k, _OnFirstUse(name, k))
    for name in MODULES:
        _attach(name, importlib.import_module(f"{__name__}.{name}"))
    # listed, not found by pkgutil: the browser wheel's modules are in an archive, with no files to list
    _make_public([importlib.import_module(f"{__name__}.{name}") for name in MODULES + PUBLIC_ONLY + INTERNAL])


def _attach(name, mod):
    """Set the Tensor methods, properties and operators of the family ``name`` from its module's tables, which must
    define exactly its rows."""
    for kind, table in (("METHODS", METHODS), ("PROPERTIES", PROPERTIES), ("DUNDERS", DUNDERS)):
        defined = getattr(mod, kind, {})
        listed = table.get(name, ())
        if set(defined) != set(listed):
            raise ImportError(f"webtorch.ops.{name}.{kind} and its row in ops/__init__.py differ: "
                              f"{sorted(set(defined).symmetric_difference(listed))}; update the row")
        for k in listed:
            fn = defined[k]
            setattr(Tensor, k, property(fn) if kind == "PROPERTIES" else fn)


class _OnFirstUse:
    """Tensor.<name> of a family imported at its first use: the first lookup imports the family, whose ``publish``
    puts the method in this one's place, and returns the method (so ``Tensor.<name>``, help() and inspect see the
    method itself, and a subclass's ``__torch_function__`` receives it as for every other method)."""

    def __init__(self, family, name):
        self.family, self.name = family, name

    def __get__(self, obj, cls=None):
        importlib.import_module(f"{__name__}.{self.family}")
        if vars(Tensor).get(self.name) is self:
            raise AttributeError(f"webtorch.ops.{self.family} did not attach Tensor.{self.name} (its last statement "
                                 "must be publish(__name__))")
        return getattr(cls if obj is None else obj, self.name)


_MADE = {}  # plain function -> its public form (a family imported later finds the public form of what it imports)


def _make_public(mods):
    """Each FUNCTIONS / FUNCTIONAL entry (torch.<name>, torch.nn.functional.<name>) of ``mods`` becomes its public
    form, which honours ``__torch_function__``, in its table and under every name an ops module binds it to, so the
    root's and nn.functional's imports get the public one. Tensor methods keep the plain functions (their dispatch
    is installed per subclass: _torch_function.py)."""
    for mod in mods:
        for kind, prefix in (("FUNCTIONS", "torch."), ("FUNCTIONAL", "torch.nn.functional.")):
            table = getattr(mod, kind, {})
            for k, fn in table.items():
                if type(fn) is FunctionType:  # torch.<name> is PyTorch's C++ (its failure words), F.<name> Python
                    table[k] = _MADE[fn] = _MADE.get(fn) or public(fn, prefix + k, native=kind == "FUNCTIONS")
    for mod in mods:
        for attr, value in list(vars(mod).items()):
            if type(value) is FunctionType and value in _MADE:
                setattr(mod, attr, _MADE[value])


def publish(module_name):
    """Called by a family of ON_FIRST_USE as its last statement: its Tensor methods replace their placeholders
    (dispatching on Tensor subclasses and refused by sparse tensors as the others), its tables' functions become
    public."""
    name = module_name.rpartition(".")[2]
    _attach(name, sys.modules[module_name])
    if METHODS.get(name):
        importlib.import_module(f"{__name__}.sparse_coo")._refuse_dense_methods()
        tensor_methods_added(METHODS[name])
    _make_public([sys.modules[module_name]])


_install()
# after the install: a sparse tensor refuses every dense method it does not give itself
importlib.import_module(f"{__name__}.sparse_coo")._refuse_dense_methods()
