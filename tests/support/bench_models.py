"""The benchmark's models (bench/browser/models.py: written once against PyTorch's API, built with torch or
webtorch) for the suites that test modules and training on them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "browser"))
from models import GPTModel, LeNet  # noqa: E402

__all__ = ["GPTModel", "LeNet"]
