"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, LSTM projections) and their cells.

Each layer direction projects the whole input sequence at once (one matmul over all time steps), then
steps through time with only the hidden-to-hidden product in the loop. A PackedSequence input runs step t
on its first batch_sizes[t] rows only. Parameter names, shapes, gate
order (LSTM i,f,g,o; GRU r,z,n) and the default init U(-1/sqrt(hidden), 1/sqrt(hidden)) are PyTorch's.
"""
import math
import warnings

from ...ops.creation import empty, zeros
from ...ops.rnn_cell import lstm_cell
from ...ops.shape import cat, stack
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_size(name, value):
    import numbers  # here, not at import: the stdlib module is ~10% of `import webtorch` in Pyodide
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{name} must be greater than zero")


def cell_step(mode, gi, h, c, w_hh, b_hh, w_hr=None):
    """One time step given gi = the input's projection x W_ih^T + b_ih: returns (h', c') (c' None
    unless LSTM)."""
    gh = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        h, c = lstm_cell(gi, gh, c)  # one autograd node for the gates' pointwise math
        if w_hr is not None:
            h = F.linear(h, w_hr)
        return h, c
    if mode == "GRU":
        xr, xz, xn = gi.chunk(3, -1)
        hr, hz, hn = gh.chunk(3, -1)
        r = (xr + hr).sigmoid()
        z = (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return n + z * (h - n), None
    pre = gi + gh
    return (pre.tanh() if mode == "RNN_TANH" else F.relu(pre)), None


class RNNBase(Module):
    """The shared constructor, parameters and forward of RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        import numbers  # (see _check_size)
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}")
        _check_size("hidden_size", hidden_size)
        _check_size("num_layers", num_layers)
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size or hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:self.num_directions]:
                in_size = input_size if layer == 0 else real_hidden * self.num_directions
                shapes = [("weight_ih", (gate_size, in_size)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    full = f"{name}_l{layer}{suffix}"
                    setattr(self, full, Parameter(empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(full)
        self.reset_parameters()

    @property
    def num_directions(self):
        return 2 if self.bidirectional else 1

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        per = len(self._flat_weights_names) // (self.num_layers * self.num_directions)
        w = self._flat_weights
        return [w[i:i + per] for i in range(0, len(w), per)]

    def flatten_parameters(self):
        """A no-op kept for PyTorch compatibility (cuDNN's weight packing does not exist here)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _weights(self, layer, direction):
        suffix = "_reverse" if direction else ""
        get = lambda n: getattr(self, f"{n}_l{layer}{suffix}", None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    # ---- input checks (PyTorch's messages) ------------------------------------------------------------
    def _check_input(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D tensor "
                             "instead")
        self._check_dtype(input)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")

    def _check_dtype(self, input):
        w = self.weight_ih_l0.dtype
        if input.dtype != w:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({w}). Convert input: "
                             f"input.to({w}), or convert model: model.to({input.dtype})")

    def _check_hidden(self, hx, expected, what="hidden"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _hidden_shapes(self, batch):
        layers = self.num_layers * self.num_directions
        h = (layers, batch, self.proj_size or self.hidden_size)
        return (h, (layers, batch, self.hidden_size)) if self.mode == "LSTM" else (h,)

    def _prepare_hidden(self, hx, batched, input):
        """The initial states as a tuple of (layers*directions, batch, size) tensors (zeros if hx is None)."""
        batch = input.shape[1]
        shapes = self._hidden_shapes(batch)
        if hx is None:
            return tuple(zeros(s, dtype=input.dtype, device=input.device) for s in shapes)
        states = tuple(hx) if self.mode == "LSTM" else (hx,)
        dims = [s.dim() for s in states]
        if batched and any(d != 3 for d in dims):
            if self.mode == "LSTM":
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({dims[0]}-D, {dims[1]}-D) tensors")
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {dims[0]}-D tensor")
        if not batched:
            if any(d != 2 for d in dims):
                if self.mode == "LSTM":
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({dims[0]}-D, {dims[1]}-D) tensors")
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {dims[0]}-D tensor")
            states = tuple(s.unsqueeze(1) for s in states)
        names = ["hidden[0]", "hidden[1]"] if self.mode == "LSTM" else ["hidden"]
        for s, shape, name in zip(states, shapes, names):
            self._check_hidden(s, shape, name)
        return states

    # ---- the computation ------------------------------------------------------------------------------
    def _run_direction(self, x, h, c, layer, direction):
        w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
        # (L, N, gates): the input projection of every step at once, unbound (not indexed per step) so that
        # backward stacks the steps' gradients once instead of scattering each into a zeroed (L, N, gates)
        gi_all = F.linear(x, w_ih, b_ih).unbind(0)
        steps = range(x.shape[0] - 1, -1, -1) if direction else range(x.shape[0])
        outs = [None] * x.shape[0]
        for t in steps:
            h, c = cell_step(self.mode, gi_all[t], h, c, w_hh, b_hh, w_hr)
            outs[t] = h
        out = stack(outs, 0) if outs else x.new_zeros((0, x.shape[1], h.shape[-1]))
        return out, h, c

    def _run_packed_direction(self, x, sizes, h, c, layer, direction):
        """One direction over packed data x (sum(sizes), features): step t runs only the sizes[t] sequences
        still going (batch sorted by decreasing length). Returns (packed out, h_n, c_n), each sequence's final
        state taken at its own last step (the forward pass sets finished rows aside as the batch shrinks; the
        reverse pass starts each sequence at its last step from its initial state as the batch grows)."""
        w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
        gi = F.linear(x, w_ih, b_ih).split([int(s) for s in sizes])  # per step; backward: one cat
        outs = [None] * len(sizes)
        if direction == 0:
            done_h, done_c = [], []
            for t, size in enumerate(sizes):
                if size < h.shape[0]:
                    done_h.append(h[size:])
                    h = h[:size]
                    if c is not None:
                        done_c.append(c[size:])
                        c = c[:size]
                h, c = cell_step(self.mode, gi[t], h, c, w_hh, b_hh, w_hr)
                outs[t] = h
            if done_h:
                h = cat([h] + done_h[::-1], 0)
                c = None if c is None else cat([c] + done_c[::-1], 0)
        else:
            h0, c0 = h, c
            h, c = h0[:sizes[-1]], None if c0 is None else c0[:sizes[-1]]
            for t in range(len(sizes) - 1, -1, -1):
                size, running = sizes[t], h.shape[0]
                if size > running:
                    h = cat([h, h0[running:size]], 0)
                    c = None if c is None else cat([c, c0[running:size]], 0)
                h, c = cell_step(self.mode, gi[t], h, c, w_hh, b_hh, w_hr)
                outs[t] = h
        return cat(outs, 0), h, c

    def _layers(self, x, h0, c0, run):
        """Every layer and direction: (last layer's output, h_n or (h_n, c_n))."""
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                out, h, c = run(x, h0[k], None if c0 is None else c0[k], layer, direction)
                outs.append(out)
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if len(outs) == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        h_n = stack(h_n, 0)
        return x, ((h_n, stack(c_n, 0)) if self.mode == "LSTM" else h_n)

    def _forward_packed(self, packed, hx):
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        self._check_dtype(data)
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{data.shape[-1]}")
        sizes = [int(b) for b in batch_sizes.tolist()]  # batch_sizes lives on the host: no device read
        shapes = self._hidden_shapes(sizes[0])
        if hx is None:
            states = tuple(zeros(s, dtype=data.dtype, device=data.device) for s in shapes)
        else:
            states = tuple(hx) if self.mode == "LSTM" else (hx,)
            if sorted_indices is not None:
                states = tuple(s.index_select(1, sorted_indices) for s in states)
            names = ["hidden[0]", "hidden[1]"] if self.mode == "LSTM" else ["hidden"]
            for s, shape, name in zip(states, shapes, names):
                self._check_hidden(s, shape, name)
        run = lambda x, h, c, layer, direction: self._run_packed_direction(x, sizes, h, c, layer,  # noqa: E731
                                                                           direction)
        out, hidden = self._layers(data, states[0], states[1] if self.mode == "LSTM" else None, run)
        if unsorted_indices is not None:
            hidden = (tuple(s.index_select(1, unsorted_indices) for s in hidden) if self.mode == "LSTM" else
                      hidden.index_select(1, unsorted_indices))
        return packed._with_data(out), hidden

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        self._check_input(input)
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        states = self._prepare_hidden(hx, batched, x)
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        x, hidden = self._layers(x, states[0], states[1] if self.mode == "LSTM" else None, self._run_direction)
        output = x.transpose(0, 1) if batched and self.batch_first else x
        if not batched:
            output = output.squeeze(1)
            hidden = tuple(s.squeeze(1) for s in hidden) if self.mode == "LSTM" else hidden.squeeze(1)
        return output, hidden

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).

    RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, device=None, dtype=None)
    """

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self_nl, args = args[3], args[:3] + args[4:]
        else:
            self_nl = kwargs.pop("nonlinearity", "tanh")
        if self_nl not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self_nl}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self_nl == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = self_nl


class LSTM(RNNBase):
    """Long short-term memory; forward(input, (h_0, c_0)) -> output, (h_n, c_n). proj_size > 0 projects
    each hidden state to proj_size features (weight_hr_l*)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: r, z gates and the candidate n = tanh(x W_in + r * (h W_hn + b_hn))."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---- cells ----------------------------------------------------------------------------------------------

class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _check(self, input, states, names):
        cls = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{cls}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for s, name in zip(states, names):
            if s is not None and s.dim() not in (1, 2):
                raise ValueError(f"{cls}: Expected {name} to be 1D or 2D, got {s.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected "
                               f"{self.input_size}")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        out = []
        for i, s in enumerate(states):
            if s is None:
                s = zeros((x.shape[0], self.hidden_size), dtype=input.dtype, device=input.device)
            elif not batched:
                s = s.unsqueeze(0)
            if s.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden{i} batch size "
                                   f"{s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, expected "
                                   f"{self.hidden_size}")
            out.append(s)
        return batched, x, out

    def _step(self, mode, input, states, names):
        batched, x, states = self._check(input, states, names)
        gi = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = cell_step(mode, gi, states[0], states[1] if len(states) > 1 else None, self.weight_hh,
                         self.bias_hh)
        if not batched:
            h = h.squeeze(0)
            c = None if c is None else c.squeeze(0)
        return h, c


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        return self._step(mode, input, [hx], ["hidden"])[0]


class LSTMCell(RNNCellBase):
    """(h', c') from input and (h, c); gates i, f, g, o."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        states = [None, None] if hx is None else list(hx)
        return self._step("LSTM", input, states, ["hx[0]", "hx[1]"])


class GRUCell(RNNCellBase):
    """h' = (1 - z) * n + z * h with gates r, z and candidate n."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._step("GRU", input, [hx], ["hidden"])[0]
