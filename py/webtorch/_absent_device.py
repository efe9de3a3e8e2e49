"""What torch.cuda, torch.mps and torch.xpu answer on a machine without that device: nothing available,
seeding does nothing."""


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    pass


manual_seed_all = manual_seed


def seed():
    pass


seed_all = seed
