"""Sampler (elements in a Sampler's order) and Shuffler (``.shuffle``: a buffered shuffle)."""
import random

from ....._dtype import int64
from .....ops.creation import empty
from ...sampler import SequentialSampler
from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import no_length

__all__ = ["SamplerIterDataPipe", "ShufflerIterDataPipe"]


def fresh_seed():
    """A seed drawn from webtorch's default generator (so ``torch.manual_seed`` makes shuffles repeat)."""
    return int(empty((), dtype=int64).random_().item())


class Seeded:
    """What both Shufflers share: on or off, and the seed of the next epoch (else one from webtorch's generator)."""
    _enabled = True
    _seed = None

    def set_shuffle(self, shuffle=True):
        self._enabled = shuffle
        return self

    def set_seed(self, seed):
        self._seed = seed
        return self


class SamplerIterDataPipe(IterDataPipe):
    """Yields what ``sampler(*sampler_args, data_source=datapipe, **sampler_kwargs)`` yields."""

    def __init__(self, datapipe, sampler=SequentialSampler, sampler_args=None, sampler_kwargs=None):
        if not hasattr(datapipe, "__len__"):
            raise AssertionError("Sampler class requires input datapipe implemented `__len__`")
        super().__init__()
        self.datapipe = datapipe
        self.sampler_args = () if sampler_args is None else sampler_args
        self.sampler_kwargs = {} if sampler_kwargs is None else sampler_kwargs
        self.sampler_kwargs["data_source"] = self.datapipe
        self.sampler = sampler(*self.sampler_args, **self.sampler_kwargs)

    def __iter__(self):
        return iter(self.sampler)

    def __len__(self):
        if hasattr(self.sampler, "__len__"):
            return len(self.sampler)
        raise no_length(self)


@functional_datapipe("shuffle")
class ShufflerIterDataPipe(Seeded, IterDataPipe):
    """Shuffles through a buffer of ``buffer_size`` elements: once the buffer is full, each new element swaps with
    a random one, which is yielded; the rest leave in random order at the end. Each iteration reseeds from
    ``set_seed`` (once) or from webtorch's generator; ``set_shuffle(False)`` passes elements through."""

    def __init__(self, datapipe, *, buffer_size=10000, unbatch_level=0):
        super().__init__()
        self._buffer = []
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        self.datapipe = datapipe if unbatch_level == 0 else datapipe.unbatch(unbatch_level=unbatch_level)
        self.buffer_size = buffer_size
        self._rng = random.Random()

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        for x in self.datapipe:
            if len(self._buffer) == self.buffer_size:
                idx = self._rng.randint(0, len(self._buffer) - 1)
                val, self._buffer[idx] = self._buffer[idx], x
                yield val
            else:
                self._buffer.append(x)
        while self._buffer:
            yield self._buffer.pop(self._rng.randint(0, len(self._buffer) - 1))

    def __len__(self):
        if hasattr(self.datapipe, "__len__"):
            return len(self.datapipe)
        raise no_length(self)

    def reset(self):
        self._buffer = []
        if self._enabled:
            if self._seed is None:
                self._seed = fresh_seed()
            self._rng.seed(self._seed)
            self._seed = None

    def __getstate__(self):
        state = (self.datapipe, self.buffer_size, self._enabled, self._seed, self._buffer, self._rng.getstate(),
                 self._valid_iterator_id, self._number_of_samples_yielded)
        return IterDataPipe.getstate_hook(state) if IterDataPipe.getstate_hook is not None else state

    def __setstate__(self, state):
        (self.datapipe, self.buffer_size, self._enabled, self._seed, self._buffer, rng_state,
         self._valid_iterator_id, self._number_of_samples_yielded) = state
        self._rng = random.Random()
        self._rng.setstate(rng_state)
