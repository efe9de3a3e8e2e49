"""SequenceWrapper: a sequence or mapping as a MapDataPipe."""
from ..datapipe import MapDataPipe
from ..iter.utils import deep_copy_or_warn

__all__ = ["SequenceWrapperMapDataPipe"]


class SequenceWrapperMapDataPipe(MapDataPipe):
    """Indexes (a deep copy of, unless ``deepcopy=False``) ``sequence``."""

    def __init__(self, sequence, deepcopy=True):
        self.sequence = deep_copy_or_warn(sequence, "sequence") if deepcopy else sequence

    def __getitem__(self, index):
        return self.sequence[index]

    def __len__(self):
        return len(self.sequence)
