"""torch.autograd: backward, grad, Function, grad modes."""
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled  # noqa: F401
from .graph import Node  # noqa: F401
from .engine import run_backward  # noqa: F401
from .api import backward, grad  # noqa: F401
from .function import Function, once_differentiable  # noqa: F401
from . import graph  # noqa: F401
from . import function  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: F401
from . import functional  # noqa: F401
from .variable import Variable  # noqa: F401
