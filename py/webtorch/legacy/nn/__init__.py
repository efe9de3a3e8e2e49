"""webtorch.legacy.nn: Lua Torch's nn package (forward/backward(input, gradOutput), getParameters, ...)."""
from .module import Module, typename  # noqa: F401
from .containers import Container, Sequential, Concat, ParallelTable  # noqa: F401
from .simple import Linear, Reshape, View, Dropout  # noqa: F401
from .convolution import SpatialConvolution, SpatialMaxPooling  # noqa: F401
from .transfer import Tanh, Sigmoid, Threshold, ReLU, SoftMax, LogSoftMax  # noqa: F401
from .criterion import Criterion, MSECriterion, ClassNLLCriterion, CrossEntropyCriterion  # noqa: F401
