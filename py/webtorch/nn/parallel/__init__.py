"""torch.nn.parallel: wrappers that spread a module over several devices or processes.

webtorch has one device per type and one process, so ``DataParallel`` runs its module directly (as PyTorch
does without CUDA devices; its state_dict keys keep the ``module.`` prefix), and ``DistributedDataParallel``
raises PyTorch's error for a missing process group.
"""
from ..modules.module import Module


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []
        self.output_device = None
        self.dim = dim

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


class DistributedDataParallel(Module):
    def __init__(self, module, *args, **kwargs):
        from ... import distributed
        distributed.get_rank()  # raises: no process group can exist in webtorch


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return module(*inputs, **(module_kwargs or {}))
