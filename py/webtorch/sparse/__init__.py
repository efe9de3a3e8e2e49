"""torch.sparse: the functions on sparse COO tensors webtorch gives (the tensor itself: ops/sparse_coo.py)."""
from ..ops.sparse_coo import mm, sparse_sum as sum  # noqa: F401

__all__ = ["mm", "sum"]
