"""Lua Torch's module system (``webtorch.legacy.nn``), written on webtorch tensors and autograd."""
from . import nn  # noqa: F401
