"""torch.return_types: the named tuples that max(dim), sort, topk, ... return (``values``/``indices``...)."""


class _NamedResult(tuple):
    """A tuple with named fields, printed as PyTorch prints its structseq results."""
    _fields = ()

    def __new__(cls, *values):
        if len(values) != len(cls._fields):
            raise TypeError(f"torch.return_types.{cls.__name__} takes {len(cls._fields)} values, got {len(values)}")
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), tuple(self))


def _make(name, fields):
    attrs = {"_fields": fields, "__module__": __name__, "__slots__": ()}
    for i, f in enumerate(fields):
        attrs[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (_NamedResult,), attrs)


_VI = ("values", "indices")
max = _make("max", _VI)  # noqa: A001 (PyTorch's names)
min = _make("min", _VI)  # noqa: A001
sort = _make("sort", _VI)
topk = _make("topk", _VI)
kthvalue = _make("kthvalue", _VI)
median = _make("median", _VI)
nanmedian = _make("nanmedian", _VI)
mode = _make("mode", _VI)
cummax = _make("cummax", _VI)
cummin = _make("cummin", _VI)
aminmax = _make("aminmax", ("min", "max"))
