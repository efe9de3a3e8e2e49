"""A named module-level constant of torch's (torch.strided, torch.channels_last, ...): prints as torch.<name> and
pickles as the module-level singleton, so a checkpoint holding one loads back the same object."""


class NamedConstant:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return self.name
