"""The 8x8 handwritten digits as webtorch tensors (no NumPy needed: works in Pyodide too)."""
import array
import gzip
import os
import sys

import webtorch as torch

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.u8.gz")
N, PIXELS = 1797, 64


def load_digits(path=PATH):
    """(images float32 [1797, 64] scaled to [0, 1], labels int64 [1797])."""
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if len(raw) != N * PIXELS + N:
        raise ValueError(f"{path}: expected {N * PIXELS + N} bytes, got {len(raw)}")
    # Widened to int32 on the host: the webgpu device has no 8-bit integers (and Pyodide has no NumPy).
    ints = array.array("i", array.array("B", raw))
    x = torch.frombuffer(ints[: N * PIXELS], dtype=torch.int32).reshape(N, PIXELS).float() / 16.0
    y = torch.frombuffer(ints[N * PIXELS:], dtype=torch.int32).long()
    return x, y


def train_test_split(x, y, test_fraction=0.2, seed=0):
    g = torch.Generator(device=x.device).manual_seed(seed)  # x's device: Pyodide has no cpu generator
    perm = torch.randperm(x.shape[0], generator=g, device=x.device)
    n_test = int(x.shape[0] * test_fraction)
    test, train = perm[:n_test], perm[n_test:]
    return x[train], y[train], x[test], y[test]


def _regenerate():
    import numpy as np
    from sklearn.datasets import load_digits as sk_digits
    d = sk_digits()
    raw = d.data.astype(np.uint8).tobytes() + d.target.astype(np.uint8).tobytes()
    with gzip.GzipFile(PATH, "wb", mtime=0) as f:
        f.write(raw)


if __name__ == "__main__" and "--regenerate" in sys.argv:
    _regenerate()
