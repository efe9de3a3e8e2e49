"""torch.utils.data.datapipes: composable datasets (PyTorch's DataPipes, deprecated there in favour of torchdata
but still shipped and imported by real programs)."""
from . import iter, map  # noqa: F401  (registers every built-in pipe's functional form)
