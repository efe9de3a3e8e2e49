"""LinearCrossEntropyOptions: how F.linear_cross_entropy's chunked path splits the batch (PyTorch 2.13's
configuration object; its fields, validation and call-time resolution of the "auto" sentinels)."""
import dataclasses
from typing import NamedTuple

from ... import _dtype as D

__all__ = ["LinearCrossEntropyOptions"]


class _AutoDefault(NamedTuple):
    acc_policy: str
    chunking_method: str


# (device type, input dtype) -> the "auto" picks, as PyTorch's table; other pairs take _AUTO_FALLBACK
_AUTO_DEFAULTS = {
    ("cpu", D.bfloat16): _AutoDefault("accurate", "aspect_ratio"),
    ("cpu", D.float16): _AutoDefault("accurate", "aspect_ratio"),
}
_AUTO_FALLBACK = _AutoDefault("compact", "aspect_ratio:2")
_ACC_DTYPES = (D.float16, D.bfloat16, D.float32, D.float64)


def _ceil_div(a, b):
    return -(-a // b)


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Opts F.linear_cross_entropy (and nn.LinearCrossEntropyLoss) into the chunked path, which never holds the
    whole (N, C) logits: ``batch_chunk_size`` rows at a time, or a size from ``chunking_method``
    ("aspect_ratio[:k]": a chunk's logits about as large as the input, divided by k; "auto": per device and
    dtype). ``acc_policy`` and ``acc_dtype`` pick the precision of the intermediates (float32 for float16/bfloat16
    inputs on cpu under "auto"); in webtorch every policy runs the same float-``acc_dtype`` arithmetic.
    ``allow_retain_graph``: whether the mean/sum losses' precomputed gradients survive a first backward.

    Example::

        >>> loss = F.linear_cross_entropy(x, head.weight, y, options=LinearCrossEntropyOptions(batch_chunk_size=256))
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None
                or (isinstance(self.batch_chunk_size, int) and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                             f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                             "automatically.")

    @staticmethod
    def _resolve_auto_acc_dtype(dtype, device):
        """float32 for float16/bfloat16 inputs where a mixed-precision matmul exists (cpu); None otherwise."""
        if device is None or dtype not in (D.float16, D.bfloat16):
            return None
        return D.float32 if device.type == "cpu" else None

    def _compute_batch_chunk_size(self, num_batches, in_features, num_classes, method=None):
        method = str(method if method is not None else self.chunking_method)
        factor = int(method.split(":", 1)[1]) if ":" in method else 1
        target = _ceil_div(num_batches, _ceil_div(num_classes, in_features))
        return min((1 << (target - 1).bit_length()) // factor, num_batches)

    def _adjust(self, num_batches, in_features, num_classes, dtype, device=None):
        """A copy with "auto" and None resolved for this call's shapes, dtype and device."""
        acc_policy, chunking_method = self.acc_policy, self.chunking_method
        if chunking_method == "auto" and self.batch_chunk_size is not None:
            chunking_method = None  # an explicit size wins over the heuristic
        if acc_policy == "auto" or chunking_method == "auto":
            picks = _AUTO_DEFAULTS.get((device.type, dtype), _AUTO_FALLBACK) if device is not None \
                else _AUTO_FALLBACK
            acc_policy = picks.acc_policy if acc_policy == "auto" else acc_policy
            chunking_method = picks.chunking_method if chunking_method == "auto" else chunking_method
        size = num_batches if self.batch_chunk_size is None else min(self.batch_chunk_size, num_batches)
        if chunking_method is not None:
            size = self._compute_batch_chunk_size(num_batches, in_features, num_classes, chunking_method)
            if self.batch_chunk_size is not None and self.batch_chunk_size != size:
                raise ValueError(f"batch_chunk_size (={self.batch_chunk_size}) and chunking_method "
                                 f"('{chunking_method}') give different chunk sizes ({self.batch_chunk_size} vs "
                                 f"{size}); pass only one.")
        acc_dtype = self.acc_dtype
        if acc_dtype is None:
            auto = self._resolve_auto_acc_dtype(dtype, device) if self.acc_policy == "auto" else None
            acc_dtype = auto if auto is not None else dtype
        return dataclasses.replace(self, acc_policy=acc_policy, chunking_method=chunking_method,
                                   batch_chunk_size=max(1, size), acc_dtype=acc_dtype)
