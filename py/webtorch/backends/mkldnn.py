"""torch.backends.mkldnn: oneDNN settings; webtorch's CPU backend is NumPy, so they change nothing."""
enabled = True
deterministic = False


def is_available():
    return False
