"""Weight normalization (Salimans & Kingma): ``w = g * v / ||v||``, the norm taken over every dim but ``dim``.

``norm_except_dim`` and ``_weight_norm`` are PyTorch's ``torch.norm_except_dim`` / ``torch._weight_norm``
written with Tensor ops (so autograd differentiates them); ``weight_norm``/``remove_weight_norm`` are the
older forward-pre-hook API (parameters ``<name>_g`` and ``<name>_v``), superseded by
``parametrizations.weight_norm``.
"""
import warnings

from ...autograd.grad_mode import no_grad
from ...ops.norms import vector_norm
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm", "norm_except_dim"]


def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast against ``v`` (size 1
    except along ``dim``); ``dim=-1`` means the norm of the whole tensor (a 0-dim result)."""
    if dim == -1:
        return vector_norm(v, pow)
    if dim == 0:
        out_shape = [v.size(0)] + [1] * (v.dim() - 1)
        return vector_norm(v.reshape(v.size(0), -1), pow, 1).view(out_shape)
    if dim == v.dim() - 1:
        out_shape = [1] * (v.dim() - 1) + [v.size(-1)]
        return vector_norm(v.reshape(-1, v.size(-1)), pow, 0).view(out_shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    """``v * (g / norm_except_dim(v, 2, dim))``."""
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook recomputing ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        with no_grad():
            g = norm_except_dim(weight, 2, dim)
        module.register_parameter(name + "_g", Parameter(g.data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace ``module.<name>`` by ``g * v / ||v||`` with parameters ``<name>_g`` (the norms over every
    dim but ``dim``; ``dim=None``: one norm of the whole tensor) and ``<name>_v``, recomputed before each
    forward. Deprecated in PyTorch: prefer ``nn.utils.parametrizations.weight_norm``.

    Example::

        >>> m = nn.utils.weight_norm(nn.Linear(20, 40), name="weight")
        >>> m.weight_g.size(), m.weight_v.size()
        (torch.Size([40, 1]), torch.Size([40, 20]))
    """
    WeightNorm.apply(module, name, dim)
    return module


def _pop_hook(table, cls, name):
    """Remove and return the first hook in ``table`` of class ``cls`` for tensor ``name`` (None if none)."""
    for k, hook in table.items():
        if isinstance(hook, cls) and getattr(hook, "fn", hook).name == name:
            del table[k]
            return hook
    return None


def _remove_forward_pre_hook(module, cls, name, what):
    """Undo the ``what`` hook (class ``cls``) of tensor ``name``: unregister it and let it restore the module."""
    hook = _pop_hook(module._forward_pre_hooks, cls, name)
    if hook is None:
        raise ValueError(f"{what} of '{name}' not found in {module}")
    hook.remove(module)


def remove_weight_norm(module, name="weight"):
    """Undo ``weight_norm``: ``module.<name>`` becomes a plain parameter holding the current weight."""
    _remove_forward_pre_hook(module, WeightNorm, name, "weight_norm")
    return module
