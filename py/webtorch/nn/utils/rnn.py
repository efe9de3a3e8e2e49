"""torch.nn.utils.rnn: PackedSequence and the functions that pack, pad and unpad batches of sequences.

A PackedSequence holds the time-major concatenation of the valid steps of a batch sorted by decreasing length:
``data`` (sum(lengths), *) and ``batch_sizes`` (how many sequences are still running at each step), a host
int64 tensor on "cpu" as in PyTorch (on the data's device in a Pyodide without NumPy, where no cpu device
exists). Packing and padding are one index_select each, with the index computed on the host from the lengths,
so data on the webgpu device is moved by one gather and never read back.
"""
from collections import namedtuple

from ... import _dtype as D
from ..._device import backend_for, device
from ..._tensor import Tensor
from ...ops.creation import arange, full, tensor
from ...ops.shape import cat, stack
from ...ops.sorting import sort
from ...ops.where_clamp import where

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_CPU_ERROR = ("batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
              "They should be instantiated by functions like pack_sequence and pack_padded_sequences in nn.utils.rnn. "
              "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")


def _host_device(like):
    """Where lengths and batch_sizes live: "cpu", or like's device when there is no cpu device (no NumPy)."""
    try:
        backend_for("cpu")
    except ImportError:
        return like.device
    return device("cpu")


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """(data, batch_sizes, sorted_indices, unsorted_indices); build it with pack_padded_sequence or
    pack_sequence. ``sorted_indices`` orders the original batch by decreasing length, ``unsorted_indices``
    restores it. Packing also keeps a host copy of unsorted_indices (``_host_unsorted``, not a field) so that
    pad_packed_sequence reorders the host lengths without reading the device."""
    _host_unsorted = None

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), sorted_indices=...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != _host_device(data).type:
            raise ValueError(_CPU_ERROR)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """data.to(...); the permutations follow data's device, batch_sizes stays on the host."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        if data.device == self.data.device:
            return self._with_data(data)
        move = lambda t: None if t is None else t.to(data.device)  # noqa: E731
        out = type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))
        out._host_unsorted = self._host_unsorted
        return out

    def _with_data(self, data):
        """The same batch layout (and host permutation) around other data of the same device, e.g. an RNN's
        output."""
        out = type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)
        out._host_unsorted = self._host_unsorted
        return out

    def cuda(self, *args, **kwargs):
        return self.data.cuda(*args, **kwargs)  # raises webtorch's no-CUDA error, which names .to("webgpu")

    def cpu(self, *args, **kwargs):
        return self.to("cpu", *args, **kwargs)

    def double(self):
        return self.to(dtype=D.float64)

    def float(self):
        return self.to(dtype=D.float32)

    def half(self):
        return self.to(dtype=D.float16)

    def long(self):
        return self.to(dtype=D.int64)

    def int(self):
        return self.to(dtype=D.int32)

    def short(self):
        return self.to(dtype=D.int16)

    def char(self):
        return self.to(dtype=D.int8)

    def byte(self):
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None for None)."""
    if permutation is None:
        return None
    return permutation.new_empty(tuple(permutation.shape)).scatter_(
        0, permutation, arange(permutation.numel(), device=permutation.device))


def _check_lengths(lengths, batch, steps, enforce_sorted):
    if lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                           f"{lengths.device.type} Long tensor")
    if lengths.shape[0] != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={batch})")
    if not batch:
        return
    if enforce_sorted and batch > 1 and bool((lengths[1:] > lengths[:-1]).any()):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep "
                           "this requirement if you do not need ONNX exportability.")
    if int(lengths.min()) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if int(lengths.max()) > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {int(lengths.max())} exceeds the {steps} time steps "
                           "of the input; lengths must not be greater than the padded sequence dimension")


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) batch (B, T, * when batch_first) whose sequence b has lengths[b] valid steps.
    enforce_sorted=False sorts the batch by decreasing length and records the permutation."""
    host = _host_device(input)
    if not isinstance(lengths, Tensor):
        lengths = tensor([int(v) for v in lengths], dtype=D.int64, device=host)
    else:
        lengths = lengths.to(D.int64)
    if lengths.device.type != host.type:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                           f"{lengths.device} Long tensor")
    sorted_indices = unsorted_indices = host_unsorted = None
    if not enforce_sorted:
        lengths, order = sort(lengths, descending=True, stable=True)
        # both permutations are made on the host and uploaded: index checks on the device need no read
        host_unsorted = invert_permutation(order)
        sorted_indices, unsorted_indices = order.to(input.device), host_unsorted.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    x = input.transpose(0, 1) if batch_first else input
    _check_lengths(lengths, x.shape[1], x.shape[0], enforce_sorted)
    steps = int(lengths.max()) if lengths.numel() else 0
    valid = arange(steps, device=host).unsqueeze(1) < lengths.unsqueeze(0)  # (steps, B): step t of sequence b
    batch_sizes = valid.sum(1)
    rows = valid.reshape(-1).nonzero().reshape(-1)  # time-major: row t * B + b of the flattened input
    flat = x[:steps].reshape((steps * x.shape[1],) + tuple(x.shape[2:]))
    packed = PackedSequence(flat.index_select(0, rows.to(input.device)), batch_sizes, sorted_indices,
                            unsorted_indices)
    packed._host_unsorted = host_unsorted
    return packed


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """(padded (T, B, *) tensor (B, T, * when batch_first), lengths): the inverse of pack_padded_sequence,
    in the original batch order; T is the longest length, or total_length."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    max_seq_length = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    host = batch_sizes.device
    batch = int(batch_sizes[0]) if batch_sizes.numel() else 0
    n = data.shape[0]
    cols = arange(batch, device=host).unsqueeze(0)
    valid = cols < batch_sizes.unsqueeze(1)  # (steps, B)
    start = (batch_sizes.cumsum(0) - batch_sizes).unsqueeze(1)
    src = where(valid, start + cols, n)  # the data row of each (step, sequence); n = the padding row
    if max_seq_length > batch_sizes.shape[0]:
        src = cat([src, full((max_seq_length - batch_sizes.shape[0], batch), n, dtype=D.int64, device=host)], 0)
    rest = tuple(data.shape[1:])
    source = cat([data, data.new_full((1,) + rest, padding_value)], 0)
    padded = source.index_select(0, src.reshape(-1).to(data.device)).reshape((max_seq_length, batch) + rest)
    lengths = valid.sum(0)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        unsorted = sequence._host_unsorted
        lengths = lengths[sequence.unsorted_indices.to(host) if unsorted is None else unsorted]
    return padded, lengths


def _copy_size_error(dst, src):
    """PyTorch's message for copying a sequence whose trailing dims do not broadcast to the first one's."""
    nd = max(len(dst), len(src))
    a, b = (1,) * (nd - len(dst)) + dst, (1,) * (nd - len(src)) + src
    for k in range(nd - 1, -1, -1):
        if a[k] != b[k] and b[k] != 1:
            return RuntimeError(f"The size of tensor a ({a[k]}) must match the size of tensor b ({b[k]}) at "
                                f"non-singleton dimension {k}")
    return None


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of shape (L_i, *) into (max L, B, *) (B, max L, * when batch_first), padding each on
    ``padding_side`` with padding_value; the result has the first sequence's dtype and trailing dims."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    try:
        sequences = tuple(sequences)
    except TypeError:
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}") from None
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    first = sequences[0]
    trailing, dtype = tuple(first.shape[1:]), first.dtype
    longest = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        target = (s.shape[0],) + trailing
        if tuple(s.shape) != target:
            err = _copy_size_error(target, tuple(s.shape))
            if err is not None:
                raise err
            s = s.broadcast_to(target)
        s = s.to(dtype)
        if s.shape[0] < longest:
            pad = s.new_full((longest - s.shape[0],) + trailing, padding_value)
            s = cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences padded_sequences[b, :lengths[b]] (copies), inverting pad_sequence."""
    padded = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    if padded.shape[0] != lengths.shape[0]:
        raise ValueError("zip() argument 2 is shorter than argument 1" if lengths.shape[0] < padded.shape[0]
                         else "zip() argument 2 is longer than argument 1")
    return [seq[:n].clone() for seq, n in zip(padded.unbind(0), lengths.tolist())]


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence(pad_sequence(sequences), their lengths)."""
    lengths = [v.shape[0] for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a PackedSequence holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
