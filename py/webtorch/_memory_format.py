"""torch.memory_format: the layouts a dense tensor can be asked for (contiguous_format: C order;
channels_last / channels_last_3d: the channel dim innermost, NHWC / NDHWC in memory; preserve_format: keep the
input's). The strides and the channels-last test follow PyTorch's c10/core/MemoryFormat.h."""
from . import _geometry as G
from ._named_constant import NamedConstant


class memory_format(NamedConstant):
    __slots__ = ()


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

_RANK = {channels_last: 4, channels_last_3d: 5}
# the dims of (N, C, H, W) / (N, C, D, H, W) from innermost to outermost in a channels-last layout
_INNER_TO_OUTER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def check_rank(fmt, shape):
    """Raise PyTorch's error for channels_last (rank 4) or channels_last_3d (rank 5) on another rank."""
    rank = _RANK.get(fmt)
    if rank is not None and len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")


def channels_last_strides(shape):
    """The strides of a fresh channels-last tensor (PyTorch's: products of the raw sizes, 0 sizes included)."""
    strides = [0] * len(shape)
    acc = 1
    for d in _INNER_TO_OUTER[len(shape)]:
        strides[d] = acc
        acc *= shape[d]
    return tuple(strides)


def is_channels_last_contiguous(fmt, shape, strides):
    """Whether (shape, strides) is dense in ``fmt``'s channels-last order (size-1 dims' strides ignored)."""
    return _RANK.get(fmt) == len(shape) and G.dense_in_order(shape, strides, _INNER_TO_OUTER[len(shape)])


def layout_of(shape, strides):
    """channels_last(_3d) when (shape, strides) is dense in that order and not C-contiguous, else
    contiguous_format: the layout a copy keeps under preserve_format (webtorch copies other dense permutations to
    C order)."""
    for fmt in (channels_last, channels_last_3d):
        if is_channels_last_contiguous(fmt, shape, strides) and not G.is_contiguous(shape, strides):
            return fmt
    return contiguous_format


def resolve(fmt, shape, strides):
    """The layout ``memory_format=fmt`` asks of a result shaped like (shape, strides); PyTorch's rank check."""
    if fmt is None or fmt is preserve_format:
        return layout_of(shape, strides)
    check_rank(fmt, shape)
    return fmt
