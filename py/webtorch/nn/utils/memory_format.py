"""convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: give the weights of a model's
(transposed) convolutions a memory format, e.g. channels_last (PyTorch's utilities; in webtorch the layout
changes the strides, the results are the same)."""
from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, kinds):
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Give every ``nn.Conv2d`` / ``nn.ConvTranspose2d`` weight in ``module`` (itself or its children)
    ``memory_format`` (``torch.channels_last`` or ``torch.contiguous_format``); returns ``module``.

    Example::

        >>> model = nn.utils.convert_conv2d_weight_memory_format(model, torch.channels_last)
    """
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Give every ``nn.Conv3d`` / ``nn.ConvTranspose3d`` weight in ``module`` (itself or its children)
    ``memory_format`` (``torch.channels_last_3d`` or ``torch.contiguous_format``); returns ``module``.

    Example::

        >>> model = nn.utils.convert_conv3d_weight_memory_format(model, torch.channels_last_3d)
    """
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
