"""The pointwise part of an LSTM step as one autograd node (internal: nn's recurrent layers call it).

Forward takes the two gate projections gi = x W_ih^T + b_ih, gh = h W_hh^T + b_hh (gate order i, f, g, o)
and the previous cell state c, and returns (h', c') = (o * tanh(c'), f * c + i * g), computed with
elementwise Tensor ops (the webgpu planner fuses the chain). It saves the activated gates and tanh(c'),
so backward needs a handful of elementwise ops instead of a node (and saved intermediates) per op.
"""
from ..autograd.graph import Node, apply_op, recording
from ..autograd.grad_mode import state
from .shape import cat


def _activations(gi, gh, c):
    """(i, f, g, o, tanh(c'), c') of one step."""
    gates = gi + gh
    s = gates.sigmoid()
    i, f, _, o = s.chunk(4, -1)
    n = gates.shape[-1] // 4
    g = gates[..., 2 * n:3 * n].tanh()
    c_new = f * c + i * g
    return i, f, g, o, c_new.tanh(), c_new


class ThnnFusedLstmCellBackward0(Node):
    _operands = (0, 1, 2)

    @staticmethod
    def forward(ctx, gi, gh, c):
        i, f, g, o, tc, c_new = _activations(gi, gh, c)
        if recording(ctx):
            ctx.save_for_backward(gi, gh, c, i, f, g, o, tc)
        return o * tc, c_new

    @staticmethod
    def backward(ctx, dh, dc):
        gi, gh, c, i, f, g, o, tc = ctx.saved_tensors
        if state.enabled:  # create_graph: the activations again, differentiably, so double backward works
            i, f, g, o, tc, _ = _activations(gi, gh, c)
        dc = dc + dh * o * (1.0 - tc * tc)
        dgates = cat([dc * g * i * (1.0 - i), dc * c * f * (1.0 - f), dc * i * (1.0 - g * g),
                      dh * tc * o * (1.0 - o)], -1)
        need = ctx.needs_input_grad
        return (dgates if need[0] else None, dgates if need[1] else None, dc * f if need[2] else None)


def lstm_cell(gi, gh, c):
    """(h', c') of an LSTM step from the gate projections gi, gh (..., 4*hidden) and the cell state c."""
    return apply_op(ThnnFusedLstmCellBackward0, gi, gh, c)
