"""TensorBase: the class webtorch.Tensor derives from (as torch.Tensor derives from torch._C.TensorBase).

It sits in the autograd layer so that recording (graph.py), Function, the engine's API and functional can tell a
tensor from any other argument with ``isinstance(x, TensorBase)`` without importing the tensor layer above them.
It has no state and no behaviour of its own: Tensor (_tensor.py) defines everything.
"""


class TensorBase:
    __slots__ = ()
