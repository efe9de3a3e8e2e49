"""Every public op. Each module of this package exports FUNCTIONS (webtorch.<name>), METHODS
(Tensor.<name>), and optionally PROPERTIES and DUNDERS; this file attaches the Tensor ones, the package root
imports the FUNCTIONS by name.

To add an op family: write a module here with those dicts, list it in MODULES and import its FUNCTIONS in
webtorch/__init__.py (tests/tooling/test_api_namespace.py fails until the root has them all).
"""
import importlib

from .._tensor import Tensor

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
    "attention",
    "padding",
    "conv",
    "pooling",
    "resampling",
    "embedding",
    "special_math",
    "gamma_reparam",
    "gamma_random",
    "counting",
    "combinatorics",
    "quantile",
    "differences",
    "covariance",
    "renorm",
    "membership",
]


def _install():
    for name in MODULES:
        mod = importlib.import_module(f"{__name__}.{name}")
        for k, fn in getattr(mod, "METHODS", {}).items():
            setattr(Tensor, k, fn)
        for k, fn in getattr(mod, "PROPERTIES", {}).items():
            setattr(Tensor, k, property(fn))
        for k, fn in getattr(mod, "DUNDERS", {}).items():
            setattr(Tensor, k, fn)


_install()
