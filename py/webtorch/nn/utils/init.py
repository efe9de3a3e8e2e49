"""skip_init: build a module whose parameters the caller will initialize (PyTorch's nn.utils.init)."""
import inspect

from ..modules.module import Module


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` whose parameter values are unspecified (the caller initializes them).
    webtorch has no "meta" device to build on, so the module is built on its device directly; what PyTorch
    leaves as uninitialized memory holds the default initialization here."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
