"""ChannelShuffle: regroups the channels of (N, C, *) (no parameters)."""
from .. import functional as F
from .module import Module


class ChannelShuffle(Module):
    """Interleave ``groups`` channel groups: (N, g*k, *) viewed (N, g, k, *) -> (N, k, g, *)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
