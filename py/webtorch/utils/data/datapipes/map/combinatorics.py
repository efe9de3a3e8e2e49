"""Shuffler (``.shuffle``) of a MapDataPipe: an IterDataPipe of its items in a random order of its indices."""
import random

from ..datapipe import IterDataPipe, MapDataPipe
from ..iter.combinatorics import Seeded, fresh_seed

__all__ = ["ShufflerIterDataPipe"]


class ShufflerIterDataPipe(Seeded, IterDataPipe):
    """The items at ``indices`` (all, by default) in a random order, new at each iteration (``set_seed`` fixes the
    next one; ``set_shuffle(False)`` keeps the order)."""

    def __init__(self, datapipe, *, indices=None):
        super().__init__()
        self.datapipe = datapipe
        self.indices = list(range(len(datapipe))) if indices is None else indices
        self._rng = random.Random()
        self._shuffled_indices = self.indices

    def __iter__(self):
        if not self._enabled:
            for idx in self.indices:
                yield self.datapipe[idx]
        else:
            while self._shuffled_indices:
                yield self.datapipe[self._shuffled_indices.pop()]

    def reset(self):
        if self._enabled and self._seed is None:
            self._seed = fresh_seed()
        self._rng.seed(self._seed)
        self._seed = None
        self._shuffled_indices = self._rng.sample(self.indices, len(self.indices))

    def __len__(self):
        return len(self.datapipe)

    def __getstate__(self):
        state = (self.datapipe, self.indices, self._enabled, self._seed, self._rng.getstate(), self._shuffled_indices,
                 self._valid_iterator_id, self._number_of_samples_yielded)
        return IterDataPipe.getstate_hook(state) if IterDataPipe.getstate_hook is not None else state

    def __setstate__(self, state):
        (self.datapipe, self.indices, self._enabled, self._seed, rng_state, self._shuffled_indices,
         self._valid_iterator_id, self._number_of_samples_yielded) = state
        self._rng = random.Random()
        self._rng.setstate(rng_state)


MapDataPipe.register_datapipe_as_function("shuffle", ShufflerIterDataPipe)
