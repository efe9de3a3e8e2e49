"""torch.nn.functional: the functional forms of layers, activations and losses.

The ops live in webtorch.ops (forward and backward side by side); this module gathers them under
PyTorch's F names and signatures.
"""
from ..ops.pointwise import relu as _relu  # noqa: F401
from ..ops.linalg import matmul as _matmul  # noqa: F401


def relu(input, inplace=False):
    return input.relu_() if inplace else _relu(input)
