"""PyTorch's foreach/fused choice for an optimizer step, mapped onto the fused update primitives
(ops/fused_update.py runs them on the params' Tensors)."""
from ..ops.fused_update import fused_update  # noqa: F401  (the optimizers' one import)


def use_fused(params, foreach, fused):
    """PyTorch's choice of implementation mapped onto ours: foreach/fused True or both None (the default)
    pick the fused primitive (every backend has each, backends/contract.py); foreach=False picks the per-tensor
    path."""
    wanted = bool(foreach) or bool(fused) or (foreach is None and fused is None)
    return wanted and bool(params)
