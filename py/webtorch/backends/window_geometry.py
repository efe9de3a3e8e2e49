"""Sliding-window geometry shared by every backend's convolution and pooling primitives (pure Python)."""


def out_size(size, kernel, stride, padding, dilation, ceil_mode=False):
    """Output length of a sliding window (PyTorch's pooling_output_shape / conv output size)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    if ceil_mode:
        o = -(-span // stride) + 1
        if (o - 1) * stride >= size + padding:  # the last window must start inside the input or left padding
            o -= 1
        return o
    return span // stride + 1
