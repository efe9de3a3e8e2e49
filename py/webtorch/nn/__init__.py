"""torch.nn: modules, parameters, functional, init."""
from . import functional  # noqa: F401
from .parameter import Parameter, Buffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .modules.module import _IncompatibleKeys  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from .r_module import module, summary  # noqa: F401
from . import parallel  # noqa: F401,E402
from .parallel import DataParallel  # noqa: F401,E402
