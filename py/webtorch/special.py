"""webtorch.special: PyTorch's torch.special namespace (aliases of the top-level ops where torch has them, the
rest from ops/special_math.py)."""
from .ops.unary_math import UNARY, logit, sinc, torch_round as round  # noqa: F401
from .ops.binary_math import xlogy  # noqa: F401
from .ops.reduction import logsumexp  # noqa: F401
from .ops.softmax import softmax, log_softmax  # noqa: F401
from .ops.special_math import (  # noqa: F401
    lgamma as gammaln, digamma, digamma as psi, polygamma, mvlgamma as multigammaln, zeta, i0, i0e, i1, i1e,
    ndtr, ndtri, log_ndtr, entr, xlog1py,
)

expit = UNARY["sigmoid"]
erf, erfc, erfinv = UNARY["erf"], UNARY["erfc"], UNARY["erfinv"]
exp2, expm1, log1p = UNARY["exp2"], UNARY["expm1"], UNARY["log1p"]
