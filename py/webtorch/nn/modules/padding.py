"""Padding layers: Constant/Zero/Reflection/Replication/CircularPad{1,2,3}d, thin wrappers over F.pad.

``padding`` is stored in F.pad's order (last dim first: left, right, top, bottom, front, back)."""
from .. import functional as F
from .module import Module
from .utils import _ntuple, _pair

_PAD_ARGS = {1: _pair, 2: _ntuple(4, "_quadruple"), 3: _ntuple(6, "_sextuple")}


class _PadNd(Module):
    """One F.pad ``mode``; subclasses fix the spatial dim count ``_n``."""
    _n = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = _PAD_ARGS[self._n](padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    _n = 1


class ConstantPad2d(_ConstantPadNd):
    _n = 2


class ConstantPad3d(_ConstantPadNd):
    _n = 3


class _ZeroPad:
    """ConstantPadNd with value 0, printed with the padding alone."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    pass


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    pass


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    pass


class ReflectionPad1d(_PadNd):
    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    _n, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    _n, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    _n, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    _n, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        # unlike F.pad, the circular layers accept exactly the batched and unbatched ranks of their dim count
        if input.dim() not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {input.dim()}D input)")
        return super().forward(input)


class CircularPad1d(_CircularPadNd):
    _n = 1


class CircularPad2d(_CircularPadNd):
    _n = 2


class CircularPad3d(_CircularPadNd):
    _n = 3
