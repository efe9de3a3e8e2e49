"""Lua Torch's module system (``webtorch.legacy.nn``), written on webtorch tensors and autograd; loads on first
use (``webtorch._lazy``)."""
from .._lazy import lazy_names

__getattr__, __dir__ = lazy_names(__name__, globals(), {"nn": ".nn"})
