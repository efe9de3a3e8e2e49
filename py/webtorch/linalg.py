"""webtorch.linalg: PyTorch's torch.linalg namespace (norms, cross, matmul; inv/det/solve where the backend
has them)."""
from .ops.norms import vector_norm, matrix_norm, linalg_norm as norm  # noqa: F401
from .ops.linalg import matmul  # noqa: F401
