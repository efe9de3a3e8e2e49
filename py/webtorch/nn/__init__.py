"""torch.nn: modules, parameters, functional, init."""
from . import functional  # noqa: F401
