"""webtorch.linalg: PyTorch's torch.linalg namespace (norms, cross, matmul, vecdot; inv/det/solve and the
decompositions where the backend has them: NumPy on cpu, host fallback on webgpu)."""
from .ops.norms import vector_norm, matrix_norm, linalg_norm as norm  # noqa: F401
from .ops.linalg import matmul  # noqa: F401
from .ops.linalg_extra import linalg_cross as cross, inv, inv_ex, det, solve, vecdot  # noqa: F401
from .ops.linalg_decomp import (cholesky, cholesky_ex, solve_triangular, slogdet, qr, eigh, eigvalsh,  # noqa: F401
                                svd, svdvals, pinv, matrix_rank, lstsq, matrix_power)
from .backends.base import _LinAlgError as LinAlgError  # noqa: F401,E402
from ._lazy import lazy_names

# matrix functions load at first use (ops/__init__.py ON_FIRST_USE)
__getattr__, __dir__ = lazy_names(__name__, globals(), {n: f"webtorch.ops.matrix_functions:{n}"
                                                        for n in ("matrix_exp", "householder_product")})
