"""torch.utils.data._utils: the DataLoader's helpers (collate; worker info), at PyTorch's module paths."""
from . import collate, worker  # noqa: F401
