"""DistributedDataParallel: webtorch has one process, so it raises PyTorch's error for a missing process group."""
from ..modules.module import Module


class DistributedDataParallel(Module):
    def __init__(self, module, *args, **kwargs):
        from ... import distributed
        distributed.get_rank()  # raises: no process group can exist in webtorch
