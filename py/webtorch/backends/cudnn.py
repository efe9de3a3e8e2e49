"""torch.backends.cudnn: settings scripts set at start-up; webtorch has no cuDNN, so they change nothing."""
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
