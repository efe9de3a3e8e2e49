"""torch.backends.mkl: webtorch does not call Intel MKL itself."""


def is_available():
    return False
