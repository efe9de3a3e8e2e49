"""ShardingFilter (``.sharding_filter``): each of N instances keeps every N-th element."""
from enum import IntEnum

from .._decorator import functional_datapipe
from ..datapipe import IterDataPipe
from ..utils.common import no_length

__all__ = ["SHARDING_PRIORITIES", "ShardingFilterIterDataPipe"]


class SHARDING_PRIORITIES(IntEnum):
    DEFAULT = 1
    DISTRIBUTED = 2
    MULTIPROCESSING = 3


class _ShardingIterDataPipe(IterDataPipe):
    def apply_sharding(self, num_of_instances, instance_id, sharding_group):
        raise NotImplementedError


@functional_datapipe("sharding_filter")
class ShardingFilterIterDataPipe(_ShardingIterDataPipe):
    """Keeps element i when ``i % num_of_instances == instance_id``; sharding groups (distributed ranks, then
    worker processes) nest into one instance number."""

    def __init__(self, source_datapipe, sharding_group_filter=None):
        super().__init__()
        self.source_datapipe = source_datapipe
        self.sharding_group_filter = sharding_group_filter
        self.groups = {}
        self.num_of_instances = 1
        self.instance_id = 0
        self._update_num_of_instances()

    def apply_sharding(self, num_of_instances, instance_id, sharding_group=SHARDING_PRIORITIES.DEFAULT):
        if instance_id >= num_of_instances:
            raise ValueError(f"instance_id({instance_id}) should be smaller than num_of_instances({num_of_instances})")
        has_default = SHARDING_PRIORITIES.DEFAULT in self.groups
        if (has_default and sharding_group != SHARDING_PRIORITIES.DEFAULT) or \
                (self.groups and not has_default and sharding_group == SHARDING_PRIORITIES.DEFAULT):
            raise RuntimeError("ShardingFilter cannot mix DEFAULT and non DEFAULT groups")
        self.groups[sharding_group] = (num_of_instances, instance_id)
        self._update_num_of_instances()

    def _update_num_of_instances(self):
        groups = [self.groups[key] for key in sorted(self.groups)
                  if self.sharding_group_filter is None or key == self.sharding_group_filter]
        self.num_of_instances, self.instance_id = 1, 0
        for n, i in reversed(groups):
            self.instance_id += self.num_of_instances * i
            self.num_of_instances *= n

    def __iter__(self):
        for i, item in enumerate(self.source_datapipe):
            if i % self.num_of_instances == self.instance_id:
                yield item

    def __len__(self):
        if hasattr(self.source_datapipe, "__len__"):
            n = len(self.source_datapipe)
            return n // self.num_of_instances + (1 if self.instance_id < n % self.num_of_instances else 0)
        raise no_length(self)
