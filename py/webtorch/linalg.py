"""webtorch.linalg: PyTorch's torch.linalg namespace (norms, cross, matmul, vecdot; inv/det/solve where the
backend has them: NumPy on cpu)."""
from .ops.norms import vector_norm, matrix_norm, linalg_norm as norm  # noqa: F401
from .ops.linalg import matmul  # noqa: F401
from .ops.linalg_extra import linalg_cross as cross, inv, inv_ex, det, solve, vecdot  # noqa: F401
from .backends.base import _LinAlgError as LinAlgError  # noqa: F401,E402
