"""Convolutions (conv1d/2d/3d, conv_transpose1d/2d/3d) and F.unfold/F.fold (im2col/col2im).

Three backend primitives carry every convolution and each one's gradient is another of the three:
    y = conv(x, w)            dx = conv_backward_input(dy, w)    dw = conv_backward_weight(dy, x)
A transposed convolution *is* conv_backward_input, so all of them close under differentiation (double
backward works).
"""
from ..autograd.graph import Node, apply_op
from .._geometry import numel
from ..backends.window_geometry import out_size
from ._core.dispatch import wrap, check_same_device, norm_dim
from ._core.inplace import not_implemented_for
from .._dtype import bool_, scalar_type_name


def ntuple(value, n, name, fn=None):
    """An int or a sequence of n ints -> tuple of n ints, with PyTorch's message otherwise."""
    if isinstance(value, int):
        return (value,) * n
    vals = tuple(int(v) for v in value)
    if len(vals) == 1:
        return vals * n
    if len(vals) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(vals)}")
    return vals


def _fmt(xs, sep=" x "):
    return "(" + sep.join(str(x) for x in xs) + ")"


# ---------------------------------------------------------------------------------------------------
# Autograd nodes
# ---------------------------------------------------------------------------------------------------

class ConvolutionBackward0(Node):
    """y = conv(x, w) + b, or with ``transposed`` y = conv_transpose(x, w) + b (spatial size ``out``)."""

    @staticmethod
    def forward(ctx, x, w, bias, stride, padding, dilation, groups, transposed, out):
        be = x._be
        ctx.p = (stride, padding, dilation, groups, transposed)
        ctx.has_bias = bias is not None
        ctx.save_for_backward(x, w)
        if not transposed:
            shape = (x.shape[0], w.shape[0]) + tuple(out_size(*s) for s in zip(x.shape[2:], w.shape[2:], stride,
                                                                               padding, dilation))
            return wrap(be.conv(x._data, w._data, None if bias is None else bias._data, stride, padding, dilation,
                                groups), x, shape)
        shape = (x.shape[0], w.shape[1] * groups) + tuple(out)
        y = be.conv_backward_input(x._data, w._data, shape, stride, padding, dilation, groups)
        if bias is not None:
            b = be.reshape_view(bias._data, (1, shape[1]) + (1,) * len(out))
            y = be.elementwise("add", (y, b), x.dtype)
        return wrap(y, x, shape)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        stride, padding, dilation, groups, transposed = ctx.p
        need = ctx.needs_input_grad
        gx = gw = gb = None
        if transposed:
            if need[0]:
                gx = _crop_to(conv_nd(g, w, None, stride, padding, dilation, groups), x)
            if need[1]:
                gw = apply_op(ConvolutionBackwardBackward0, x, g, tuple(w.shape), stride, padding, dilation, groups)
        else:
            if need[0]:
                gx = apply_op(ConvolutionBackward0, g, w, None, stride, padding, dilation, groups, True,
                              tuple(x.shape[2:]))
            if need[1]:
                gw = apply_op(ConvolutionBackwardBackward0, g, x, tuple(w.shape), stride, padding, dilation, groups)
        if ctx.has_bias:
            if need[2]:
                gb = g.sum((0,) + tuple(range(2, g.dim())))
            return gx, gw, gb
        return gx, gw


class ConvolutionBackwardBackward0(Node):
    """The weight gradient dw = conv_backward_weight(dy, x) as a differentiable op (for double backward)."""

    @staticmethod
    def forward(ctx, dy, x, weight_shape, stride, padding, dilation, groups):
        ctx.p = (stride, padding, dilation, groups)
        ctx.save_for_backward(dy, x)
        return wrap(x._be.conv_backward_weight(dy._data, x._data, weight_shape, stride, padding, dilation, groups), x,
                    weight_shape)

    @staticmethod
    def backward(ctx, gw):
        dy, x = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.p
        need = ctx.needs_input_grad
        gdy = _crop_to(conv_nd(x, gw, None, stride, padding, dilation, groups), dy) if need[0] else None
        gx = apply_op(ConvolutionBackward0, dy, gw, None, stride, padding, dilation, groups, True,
                      tuple(x.shape[2:])) if need[1] else None
        return gdy, gx


def _crop_to(y, like):
    """y narrowed to like's spatial size: output_padding (< dilation) can make a transposed convolution's
    output longer than the windows of the forward convolution that it inverts."""
    for d in range(2, y.dim()):
        if y.shape[d] != like.shape[d]:
            y = y.narrow(d, 0, like.shape[d])
    return y


def conv_nd(x, w, bias, stride, padding, dilation, groups):
    """Validated-argument batched convolution (shared by the public functions and the backward passes)."""
    return apply_op(ConvolutionBackward0, x, w, bias, stride, padding, dilation, groups, False, None)


# ---------------------------------------------------------------------------------------------------
# Argument checks (PyTorch's check_shape_forward)
# ---------------------------------------------------------------------------------------------------

def _check_params(stride, padding, dilation, groups, output_padding=None):
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if output_padding is not None and any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")


def _check_input_dim(input, n, name):
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, but got input of "
                           f"size: {list(input.shape)}")


def _check_dtypes(input, weight, bias):
    check_same_device(input, weight, bias)
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(input.dtype)} but found "
                           f"{scalar_type_name(weight.dtype)}")
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_c_name(input.dtype)}) and bias type ({_c_name(bias.dtype)}) should be "
                           "the same")


def _c_name(dt):
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int"}.get(dt.name, dt.name)


def _check_shapes(x, w, bias, stride, padding, dilation, groups, transposed):
    ws = list(w.shape)
    if w.dim() != x.dim():
        raise RuntimeError(f"Expected {w.dim()}-dimensional input for {w.dim()}-dimensional weight {ws}, but got "
                           f"{x.dim()}-dimensional input of size {list(x.shape)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")  # PyTorch's message has the double brackets
    if transposed:
        if x.shape[1] != ws[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{list(x.shape)} to have "
                               f"{ws[0]} channels, but got {x.shape[1]} channels instead")
        n_out = ws[1] * groups
        if bias is not None and (bias.dim() != 1 or bias.shape[0] != n_out):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                               f"{n_out} elements, but got bias of size {list(bias.shape)} instead")
        return
    if x.shape[1] != ws[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{list(x.shape)} to have "
                           f"{ws[1] * groups} channels, but got {x.shape[1]} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.shape[0] != ws[0]):
        raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with {ws[0]} elements, but "
                           f"got bias of size {list(bias.shape)} instead")
    padded = [s + 2 * p for s, p in zip(x.shape[2:], padding)]
    kernel = [d * (k - 1) + 1 for d, k in zip(dilation, ws[2:])]
    if any(p < k for p, k in zip(padded, kernel)):
        raise RuntimeError(f"Calculated padded input size per channel: {_fmt(padded)}. Kernel size: {_fmt(kernel)}. "
                           "Kernel size can't be greater than actual input size")


def _same_padding(input, weight, stride, dilation, n):
    """(input, symmetric padding) for padding='same'; an odd total pads the input's right side first."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
    left = [t // 2 for t in total]
    extra = [t - 2 * lo for t, lo in zip(total, left)]
    if any(extra):
        from .padding import pad
        flat = []
        for e in reversed(extra):
            flat += [0, e]
        input = pad(input, flat)
    return input, tuple(left)


def _convnd(input, weight, bias, stride, padding, dilation, groups, n, name):
    _check_input_dim(input, n, name)
    if weight.dim() != n + 2:
        n = weight.dim() - 2  # PyTorch derives the spatial rank from the weight, then rejects the arguments
    stride = ntuple(stride, n, "stride")
    dilation = ntuple(dilation, n, "dilation")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        pad_tuple = (0,) * n
    else:
        pad_tuple = ntuple(padding, n, "padding")
    _check_params(stride, pad_tuple, dilation, groups)
    _check_dtypes(input, weight, bias)
    batched = input.dim() == n + 2
    x = input if batched else input.unsqueeze(0)
    if padding == "same":
        _check_shapes(x, weight, bias, stride, pad_tuple, dilation, groups, False)
        x, pad_tuple = _same_padding(x, weight, stride, dilation, n)
    _check_shapes(x, weight, bias, stride, pad_tuple, dilation, groups, False)
    if x.shape[1] == 0:
        y = _no_channel_conv(x, weight, bias, stride, pad_tuple, dilation)
    else:
        y = conv_nd(x, weight, bias, stride, pad_tuple, dilation, groups)
    return y if batched else y.squeeze(0)


def _no_channel_conv(x, w, bias, stride, padding, dilation):
    """PyTorch's convolution of an input with no channel (the weight has none either): (N, 0, *out), not N x C_out
    zeros. Every operand's sum times 0 is added, so their gradients (zeros) flow as PyTorch's do."""
    spatial = tuple(out_size(*s) for s in zip(x.shape[2:], w.shape[2:], stride, padding, dilation))
    terms = x.sum() + w.sum() + (0 if bias is None else bias.sum())
    return x.new_zeros((x.shape[0], 0) + spatial) + terms * 0


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _output_padding_error(output_padding, stride, dilation):
    names = ("depth", "height", "width")[3 - max(2, len(stride)):]
    if len(stride) == 1:  # PyTorch runs 1-d transposed convolutions as 2-d with a unit height
        output_padding, stride, dilation = (0,) + output_padding, (1,) + stride, (1,) + dilation
    parts = [f"output_padding_{n}: {v}" for n, v in zip(names, output_padding)]
    parts += [f"stride_{n}: {v}" for n, v in zip(names, stride)]
    parts += [f"dilation_{n}: {v}" for n, v in zip(names, dilation)]
    return RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))


def _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, n, name):
    if isinstance(padding, str):
        raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
    _check_input_dim(input, n, name)
    if weight.dim() != n + 2:
        n = weight.dim() - 2
    stride = ntuple(stride, n, "stride")
    padding = ntuple(padding, n, "padding")
    output_padding = ntuple(output_padding, n, "output_padding")
    dilation = ntuple(dilation, n, "dilation")
    _check_params(stride, padding, dilation, groups, output_padding)
    if not (input.dtype.is_floating_point or input.dtype.name == "int64"):   # PyTorch's kernel: floats and Long
        raise not_implemented_for(f"slow_conv_transpose{3 if n == 3 else 2}d_out_cpu", input.dtype)
    _check_dtypes(input, weight, bias)
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise _output_padding_error(output_padding, stride, dilation)
    batched = input.dim() == n + 2
    x = input if batched else input.unsqueeze(0)
    _check_shapes(x, weight, bias, stride, padding, dilation, groups, True)
    if x.numel() == 0 and x.shape[0] and x.shape[1]:
        raise RuntimeError("Only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{list(x.shape)}")
    out = tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, st, p, d, k, op in
                zip(x.shape[2:], stride, padding, dilation, weight.shape[2:], output_padding))
    if any(o <= 0 for o in out):
        raise RuntimeError(f"Given input size per channel: {_fmt(x.shape[2:])}. Calculated output size per channel: "
                           f"{_fmt(out)}. Output size is too small")
    y = apply_op(ConvolutionBackward0, x, weight, bias, stride, padding, dilation, groups, True, out)
    return y if batched else y.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                             "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                             "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                             "conv_transpose3d")


# ---------------------------------------------------------------------------------------------------
# F.unfold / F.fold
# ---------------------------------------------------------------------------------------------------

class Im2ColBackward0(Node):
    @staticmethod
    def forward(ctx, x, kernel, dilation, padding, stride):
        ctx.p = (tuple(x.shape[2:]), kernel, dilation, padding, stride)
        blocks = numel([out_size(*s) for s in zip(x.shape[2:], kernel, stride, padding, dilation)])
        return wrap(x._be.im2col(x._data, kernel, stride, padding, dilation), x,
                    (x.shape[0], x.shape[1] * numel(kernel), blocks))

    @staticmethod
    def backward(ctx, g):
        size, kernel, dilation, padding, stride = ctx.p
        return apply_op(Col2ImBackward0, g, size, kernel, dilation, padding, stride)


class Col2ImBackward0(Node):
    @staticmethod
    def forward(ctx, cols, size, kernel, dilation, padding, stride):
        ctx.p = (kernel, dilation, padding, stride)
        return wrap(cols._be.col2im(cols._data, size, kernel, stride, padding, dilation), cols,
                    (cols.shape[0], cols.shape[1] // numel(kernel)) + tuple(size))

    @staticmethod
    def backward(ctx, g):
        kernel, dilation, padding, stride = ctx.p
        return apply_op(Im2ColBackward0, g, kernel, dilation, padding, stride)


def _fold_args(kernel_size, dilation, padding, stride):
    return (ntuple(kernel_size, 2, "kernel_size"), ntuple(dilation, 2, "dilation"), ntuple(padding, 2, "padding"),
            ntuple(stride, 2, "stride"))


def _blocks(size, kernel, dilation, padding, stride):
    return tuple((s + 2 * p - d * (k - 1) - 1) // st + 1 for s, k, d, p, st in zip(size, kernel, dilation, padding,
                                                                                    stride))


def _require_fold_dtype(x, kernel):
    """PyTorch's im2col/col2im kernels take floating point and bool, no other integer dtype."""
    if not (x.dtype.is_floating_point or x.dtype is bool_):
        raise not_implemented_for(kernel, x.dtype)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """F.unfold: sliding local blocks of a (N, C, H, W) or (C, H, W) tensor as columns (N, C*kh*kw, L)."""
    kernel, dilation, padding, stride = _fold_args(kernel_size, dilation, padding, stride)
    norm_dim(1, input.dim())   # PyTorch reads the channel dim first: IndexError below 2 dims
    if input.dim() not in (3, 4) or any(s == 0 for s in input.shape[1:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    x = input if input.dim() == 4 else input.unsqueeze(0)
    blocks = _blocks(x.shape[2:], kernel, dilation, padding, stride)
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size {tuple(x.shape[2:])}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the array of sliding blocks "
                           f"as {blocks}, but its components must be at least one.")
    _require_fold_dtype(x, "im2col_out_cpu")
    y = apply_op(Im2ColBackward0, x, kernel, dilation, padding, stride)
    return y if input.dim() == 4 else y.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """F.fold: sums columns (N, C*kh*kw, L) back into a (N, C, *output_size) tensor (inverse layout of unfold)."""
    size = ntuple(output_size, 2, "output_size")
    kernel, dilation, padding, stride = _fold_args(kernel_size, dilation, padding, stride)
    if input.dim() not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    kk = kernel[0] * kernel[1]
    if x.shape[1] % kk:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size={kernel}.")
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if any(b < 1 for b in blocks) or blocks[0] * blocks[1] != x.shape[2]:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, padding={padding}, "
                           f"stride={stride}, expected size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
                           f"input.size(2)={x.shape[2]}.")
    _require_fold_dtype(x, "col2im_out_cpu")
    y = apply_op(Col2ImBackward0, x, size, kernel, dilation, padding, stride)
    return y if input.dim() == 3 else y.squeeze(0)


FUNCTIONS = {"conv1d": conv1d, "conv2d": conv2d, "conv3d": conv3d, "conv_transpose1d": conv_transpose1d,
             "conv_transpose2d": conv_transpose2d, "conv_transpose3d": conv_transpose3d}
