"""torch.layout: how a tensor's elements are stored (strided: a dense strided view; sparse_coo: indices and
values, ops/sparse_coo.py)."""


class layout:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module-level singleton


strided = layout("strided")
sparse_coo = layout("sparse_coo")
