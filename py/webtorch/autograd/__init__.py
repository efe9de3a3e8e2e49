"""torch.autograd: backward, grad, Function, grad modes, Variable.

This file is the torch.autograd namespace (the api layer of scripts/import_layers.py): it gathers the autograd
layer's modules, which import nothing above them, and Variable (variable.py, api layer too), which builds a tensor.
"""
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .graph import Node  # noqa: F401
from .engine import run_backward  # noqa: F401
from .api import backward, grad  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from . import graph  # noqa: F401
from . import function  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: F401
from .._lazy import lazy_names

# Variable builds a tensor (variable.py imports _tensor.py); importing it here at load time would run _tensor.py's
# import of this package back into _tensor.py. It and .functional (jacobian, hessian, ...: no training step's) load
# on first use (webtorch._lazy).
__getattr__, __dir__ = lazy_names(__name__, globals(), {"Variable": ".variable:Variable", "functional": ".functional"})
