"""torch.nn.parallel: wrappers that spread a module over several devices or processes."""
from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401
