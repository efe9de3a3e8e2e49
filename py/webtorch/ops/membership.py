"""isin: membership of each element in a set of test elements, by a binary search of the sorted test elements
(O(n log m), no host round trip)."""
from .. import _dtype as D
from .._tensor import Tensor
from ._core.dispatch import check_same_device
from .creation import tensor
from .sorting import searchsorted
from . import publish


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() expects a Tensor for elements or test_elements")
    ref = elements if isinstance(elements, Tensor) else test_elements
    if isinstance(elements, Tensor) and isinstance(test_elements, Tensor):
        check_same_device(elements, test_elements)
    e = elements if isinstance(elements, Tensor) else tensor(elements, device=ref.device)
    t = test_elements if isinstance(test_elements, Tensor) else tensor(test_elements, device=ref.device)
    if D.bool_ in (e.dtype, t.dtype):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    dt = D.promote_types(e.dtype, t.dtype)
    e, t = e.detach().to(dt), t.detach().to(dt).reshape(-1)
    if t.numel() == 0:
        found = e.new_zeros(e.shape, dtype=D.bool_)
    else:
        srt = t.sort().values
        pos = searchsorted(srt, e.reshape(-1)).clamp(max=t.numel() - 1)
        found = (srt[pos] == e.reshape(-1)).reshape(e.shape)
    return found.logical_not() if invert else found


FUNCTIONS = {"isin": isin}

publish(__name__)  # imported at first use (ops/__init__.py ON_FIRST_USE): its tables become public now
