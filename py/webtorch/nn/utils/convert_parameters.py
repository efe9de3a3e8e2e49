"""parameters_to_vector / vector_to_parameters: a model's parameters as one flat vector and back."""
from ..._tensor import Tensor
from ...ops.shape import cat


def _check_param_device(param, old_device):
    if old_device is None:
        return param.device
    if param.device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_device


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's elements, in iteration order."""
    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.view(-1))
    return cat(vec)


def vector_to_parameters(vec, parameters):
    """Make each parameter's data a slice of ``vec`` (the inverse of parameters_to_vector)."""
    if not isinstance(vec, Tensor):
        t = type(vec)
        raise TypeError(f"expected torch.Tensor, but got: {t.__module__}.{t.__qualname__}"
                        if t.__module__ != "builtins" else f"expected torch.Tensor, but got: {t.__qualname__}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        num_param = param.numel()
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        pointer += num_param
