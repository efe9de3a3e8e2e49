"""Samplers: the order in which a DataLoader visits a map-style dataset."""
from ..._device import get_default_device
from ..._dtype import float32, float64, int32, int64
from ...ops.creation import Generator, as_tensor, randint, randperm
from ...ops.random import multinomial


class Sampler:
    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _generator_or_fresh(generator):
    """The generator a sampler draws from: the given one, or (as PyTorch) a fresh CPU generator seeded from the
    default device's default generator."""
    if generator is not None:
        return generator
    # two 30-bit draws: a 60-bit seed from any device's integer randint (no 64-bit integers needed)
    hi, lo = randint(0, 1 << 30, (2,), dtype=int32).tolist()
    return Generator().manual_seed((hi << 30) | lo)


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = _generator_or_fresh(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=int64, generator=g, device=g.device).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), dtype=int64, generator=g,
                               device=g.device).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=g, device=g.device).tolist()
        yield from randperm(n, generator=g, device=g.device).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        dev = None if self.generator is None else self.generator.device
        for i in randperm(len(self.indices), generator=self.generator, device=dev).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        dev = get_default_device() if generator is None else generator.device
        # float64 as PyTorch where the device has it; webgpu has no float64, float32 weights sample alike
        self.weights = as_tensor(weights, dtype=float64 if dev.type == "cpu" else float32, device=dev)
        if self.weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(self.weights.shape)}")
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
