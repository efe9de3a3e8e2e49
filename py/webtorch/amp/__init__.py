"""torch.amp: autocast and GradScaler, as a CPU-only PyTorch build answers.

webtorch has no automatic mixed precision: every op runs in the dtype of its inputs. Disabled contexts and
scalers are no-ops (the idiom ``autocast(..., enabled=use_amp)`` runs unchanged); asking for a device that
is not there ("cuda", "mps", ...) warns and disables itself, as PyTorch does without that device; enabling
them on "cpu" or "webgpu" raises an error naming ``enabled=False``.
"""
from .autocast_mode import autocast, is_autocast_available  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
