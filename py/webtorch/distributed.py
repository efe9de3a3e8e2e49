"""torch.distributed: webtorch runs in one process (a page or a Python), so no process group exists.

``is_available()`` is False, as in PyTorch builds without distributed support; the guarded idiom
``dist.is_available() and dist.is_initialized()`` reads False; starting a group raises an error that says so.
"""


def is_available():
    return False


def is_initialized():
    return False


def init_process_group(*args, **kwargs):
    raise RuntimeError("torch.distributed is not available in webtorch: it runs in a single process (no process "
                       "groups, no backends); run the script without init_process_group / torchrun")


def _no_group(*args, **kwargs):
    raise ValueError("Default process group has not been initialized, please make sure to call "
                     "init_process_group. (webtorch runs in a single process: torch.distributed is not available)")


get_rank = get_world_size = barrier = all_reduce = broadcast = destroy_process_group = _no_group
