"""torch.layout: how a tensor's elements are stored (strided: a dense strided view; sparse_coo: indices and
values, ops/sparse_coo.py)."""
from ._named_constant import NamedConstant


class layout(NamedConstant):
    __slots__ = ()


strided = layout("strided")
sparse_coo = layout("sparse_coo")
