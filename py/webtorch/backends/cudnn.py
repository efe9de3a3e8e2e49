"""torch.backends.cudnn: settings scripts set at start-up; webtorch has no cuDNN, so they change nothing."""
import contextlib
import sys
enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None


def is_acceptable(tensor):
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Set the flags inside the block, as ``torch.backends.cudnn.flags``; restored after."""
    me = sys.modules[__name__]
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    saved = {n: getattr(me, n) for n in names}
    for n, v in zip(names, (enabled, benchmark, benchmark_limit, deterministic, allow_tf32)):
        setattr(me, n, v)
    try:
        yield
    finally:
        for n, v in saved.items():
            setattr(me, n, v)
