"""torch.utils.data: datasets, samplers, DataLoader."""
from .dataset import (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,  # noqa: F401
                      Subset, random_split)
from .sampler import (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,  # noqa: F401
                      WeightedRandomSampler, BatchSampler)
from ._utils.collate import default_collate, default_convert  # noqa: F401
from .dataloader import DataLoader, get_worker_info  # noqa: F401
from . import distributed  # noqa: F401
from .datapipes.datapipe import DFIterDataPipe, DataChunk, IterDataPipe, MapDataPipe  # noqa: F401
from .datapipes._decorator import (argument_validation, functional_datapipe,  # noqa: F401
                                   guaranteed_datapipes_determinism, non_deterministic, runtime_validation,
                                   runtime_validation_disabled)
from .datapipes import iter as _iter_pipes, map as _map_pipes  # noqa: F401  (registers the functional forms)
