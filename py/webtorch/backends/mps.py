"""torch.backends.mps: Apple's Metal device, never present in webtorch (its GPU device is "webgpu")."""


def is_available():
    return False


def is_built():
    return False
