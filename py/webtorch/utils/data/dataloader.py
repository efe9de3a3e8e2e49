"""DataLoader: batches from a dataset in the main process (no worker processes in the browser)."""
import warnings

from ..._dtype import int64
from ...ops.creation import Generator, empty
from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info  # noqa: F401  (PyTorch's dataloader module names it too)
from .dataset import IterableDataset
from .datapipes.datapipe import IterDataPipe
from .graph_settings import apply_random_seed, apply_shuffle_settings
from .sampler import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if num_workers > 0:  # also in the page, where Pyodide has no processes to spawn
            warnings.warn(f"webtorch's DataLoader loads in the main process; num_workers={num_workers} runs as 0")
            num_workers = 0
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self._iterable = isinstance(dataset, IterableDataset)
        if isinstance(dataset, IterDataPipe):  # a DataPipe graph shuffles by its Shufflers
            self.dataset = dataset = apply_shuffle_settings(dataset, shuffle=shuffle)
        elif self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if batch_size is not None or batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    def __iter__(self):
        if self._iterable:
            return self._iter_iterable()
        if self.batch_sampler is not None:
            return (self._fetch(batch) for batch in self.batch_sampler)
        return (self.collate_fn(self.dataset[i]) for i in self.sampler)

    def _fetch(self, indices):
        """One batch: a tensor dataset under the default collate gathers each tensor once; otherwise the
        dataset's ``__getitems__`` (as PyTorch's fetcher) or one ``__getitem__`` per index, then collate."""
        gather = getattr(self.dataset, "_gather", None) if self.collate_fn is default_collate else None
        batch = gather(list(indices)) if gather is not None else None
        if batch is not None:
            return batch
        getitems = getattr(self.dataset, "__getitems__", None)
        return self.collate_fn(getitems(indices) if callable(getitems) else [self.dataset[i] for i in indices])

    def _iter_iterable(self):
        if isinstance(self.dataset, IterDataPipe):  # each epoch reseeds the graph's Shufflers from the loader's
            # generator, as PyTorch's loader iterator does
            shared = int(empty((), dtype=int64).random_(generator=self.generator).item())
            apply_random_seed(self.dataset, Generator().manual_seed(shared))
        if self.batch_size is None:
            for item in self.dataset:
                yield self.collate_fn(item)
            return
        batch = []
        for item in self.dataset:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
