"""torch.nn: modules, parameters, functional, init."""
from . import functional  # noqa: F401
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .modules.module import _IncompatibleKeys  # noqa: F401
from .modules.linear_cross_entropy_options import LinearCrossEntropyOptions  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from .r_module import module, summary  # noqa: F401
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402


def factory_kwargs(kwargs):
    """The ``device``/``dtype``/``memory_format`` entries of a module constructor's ``kwargs``, merged with its
    ``factory_kwargs`` entry (PyTorch's helper for modules that forward them to tensor factories)."""
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    unexpected = kwargs.keys() - simple - {"factory_kwargs"}
    if unexpected:
        raise TypeError(f"unexpected kwargs {unexpected}")
    merged = dict(kwargs.get("factory_kwargs", {}))
    for key in simple & kwargs.keys():
        if key in merged:
            raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
        merged[key] = kwargs[key]
    return merged
