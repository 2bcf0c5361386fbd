"""RNN, LSTM, GRU and their cells, with PyTorch's parameters (weight_ih_l0, weight_hh_l0_reverse, ...), gate
order (LSTM i, f, g, o; GRU r, z, n), initialisation (U(-1/sqrt(hidden), 1/sqrt(hidden))) and shapes.

The input projection of a whole sequence is one matmul per layer and direction; the recurrence is a loop
over time of one matmul plus the gates (composites over loom's ops, so autograd comes through them)."""
import math

from .. import _dtype
from .. import _numpy
from .. import _ops

from . import init
from ._factory import empty_param
from .module import Module
from .utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_LAYER_DTYPES = (_dtype.float32, _dtype.float64)   # what the whole-layer LSTM kernel serves


def _rnn_step(x_proj, h, w_hh, b_hh, mode):
    g = x_proj + _ops.linear(h, w_hh, b_hh)
    return g.tanh() if mode == "RNN_TANH" else g.relu()


def _lstm_step(x_proj, h, c, w_hh, b_hh):
    return _ops.lstm_gates(x_proj + _ops.linear(h, w_hh, b_hh), c)   # the fused gates (native/cpu/rnn_cell.c)


def _gru_step(x_proj, h, w_hh, b_hh):
    xr, xz, xn = x_proj.chunk(3, -1)
    hr, hz, hn = _ops.linear(h, w_hh, b_hh).chunk(3, -1)
    r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (h - n)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = empty_param((num_chunks * hidden_size, input_size), dtype, device)
        self.weight_hh = empty_param((num_chunks * hidden_size, hidden_size), dtype, device)
        if bias:
            self.bias_ih = empty_param((num_chunks * hidden_size,), dtype, device)
            self.bias_hh = empty_param((num_chunks * hidden_size,), dtype, device)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _prepare(self, input, hx, name):
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        zeros = _ops.zeros((x.shape[0], self.hidden_size), dtype=x.dtype, device=x.device)
        return x, batched, zeros

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        return s if self.bias else s + ", bias=False"


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        x, batched, zeros = self._prepare(input, hx, "RNNCell")
        h = zeros if hx is None else (hx if batched else hx.unsqueeze(0))
        h = _rnn_step(_ops.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh,
                      "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, batched, zeros = self._prepare(input, hx, "LSTMCell")
        h, c = (zeros, zeros) if hx is None else ((hx[0], hx[1]) if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0)))
        h, c = _lstm_step(_ops.linear(x, self.weight_ih, self.bias_ih), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, batched, zeros = self._prepare(input, hx, "GRUCell")
        h = zeros if hx is None else (hx if batched else hx.unsqueeze(0))
        h = _gru_step(_ops.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be an integer greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        gates = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        dirs = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(dirs):
                sfx = f"_l{layer}" + ("_reverse" if d == 1 else "")
                layer_in = input_size if layer == 0 else real_hidden * dirs
                shapes = [("weight_ih", (gates, layer_in)), ("weight_hh", (gates, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + sfx, empty_param(shape, dtype, device))
                    self._flat_weights_names.append(name + sfx)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self):
        """A no-op kept for PyTorch programs (cuDNN's weight layout does not apply)."""

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names if n.endswith(f"_l{layer}{sfx}")]
                for layer in range(self.num_layers) for sfx in (["", "_reverse"] if self.bidirectional else [""])]

    def _weights(self, layer, direction):
        sfx = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        get = (lambda n: getattr(self, n + sfx, None))
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def _run_direction(self, x, h, c, weights, lengths, reverse):
        """One layer in one direction over x (T, B, in); lengths (sorted descending) freeze finished sequences."""
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        T = x.shape[0]
        proj = _ops.linear(x, w_ih, b_ih)
        if (self.mode == "LSTM" and w_hr is None and lengths is None and proj.device.type == "cpu"
                and proj.dtype in _LAYER_DTYPES and h.dtype == proj.dtype and T > 0):
            out, cells, _ = _ops._lstm_layer(proj, h, c, w_hh, b_hh, reverse)   # native/cpu/rnn_layer.c
            last = 0 if reverse else T - 1
            return out, out[last], cells[last]
        outs = [None] * T
        steps = range(T - 1, -1, -1) if reverse else range(T)
        for t in steps:
            if self.mode == "LSTM":
                h_new, c_new = _lstm_step(proj[t], h, c, w_hh, b_hh)
                if w_hr is not None:
                    h_new = _ops.linear(h_new, w_hr)
            elif self.mode == "GRU":
                h_new, c_new = _gru_step(proj[t], h, w_hh, b_hh), None
            else:
                h_new, c_new = _rnn_step(proj[t], h, w_hh, b_hh, self.mode), None
            if lengths is not None:
                running = sum(1 for n in lengths if n > t)   # sequences still going at step t (sorted)
                if running < h.shape[0]:
                    keep = _numpy.tensor([[1.0]] * running + [[0.0]] * (h.shape[0] - running), dtype=h.dtype,
                                         device=h.device)
                    h_new = h + keep * (h_new - h)
                    if c_new is not None:
                        c_new = c + keep * (c_new - c)
                    outs[t] = h_new * keep
                else:
                    outs[t] = h_new
            else:
                outs[t] = h_new
            h, c = h_new, c_new
        return _ops.stack(outs), h, c

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        if packed:
            padded, lengths_t = pad_packed_sequence(
                PackedSequence(input.data, input.batch_sizes, None, None))
            x, lengths, batched = padded, [int(n) for n in lengths_t.tolist()], True
            sorted_indices, unsorted_indices = input.sorted_indices, input.unsorted_indices
        else:
            if input.ndim not in (2, 3):
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
            batched = input.ndim == 3
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            lengths, sorted_indices, unsorted_indices = None, None, None
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {x.shape[-1]}")
        dirs = 2 if self.bidirectional else 1
        B = x.shape[1]
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h0, c0 = self._initial_state(hx, batched, dirs, B, real_hidden, x.dtype, sorted_indices, x.device)
        hs, cs = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                k = layer * dirs + d
                c_k = None if c0 is None else c0[k]
                if d == 1 and lengths is not None:
                    out, h, c = self._reverse_packed(layer_in, h0[k], c_k, lengths, layer)
                else:
                    out, h, c = self._run_direction(layer_in, h0[k], c_k, self._weights(layer, d), lengths, d == 1)
                outs.append(out)
                hs.append(h)
                cs.append(c)
            layer_in = outs[0] if dirs == 1 else _ops.cat(outs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_in = _ops.dropout(layer_in, self.dropout)
        h_n = _ops.stack(hs)
        c_n = _ops.stack(cs) if self.mode == "LSTM" else None
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = c_n.index_select(1, unsorted_indices) if c_n is not None else None
        if packed:
            output = pack_padded_sequence(layer_in, lengths)
            output = PackedSequence(output.data, output.batch_sizes, sorted_indices, unsorted_indices)
        else:
            output = layer_in.transpose(0, 1) if batched and self.batch_first else layer_in
            if not batched:
                output, h_n = output.squeeze(1), h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return (output, (h_n, c_n)) if self.mode == "LSTM" else (output, h_n)

    def _reverse_packed(self, x, h, c, lengths, layer):
        """The reverse direction over packed sequences: each sequence reversed within its own length."""
        T, B = x.shape[0], x.shape[1]
        idx = _numpy.tensor([[n - 1 - t if t < n else t for n in lengths] for t in range(T)], dtype=_dtype.int64,
                            device=x.device)
        flip = (lambda a: _ops.gather(a, 0, idx.unsqueeze(-1).expand(T, B, a.shape[-1])))
        out, h, c = self._run_direction(flip(x), h, c, self._weights(layer, 1), lengths, reverse=False)
        return flip(out), h, c

    def _initial_state(self, hx, batched, dirs, B, real_hidden, dtype, sorted_indices, device=None):
        n = self.num_layers * dirs
        if hx is None:
            z = _ops.zeros((n, B, real_hidden), dtype=dtype, device=device)
            return z, (_ops.zeros((n, B, self.hidden_size), dtype=dtype, device=device) if self.mode == "LSTM"
                       else None)
        h0, c0 = (hx[0], hx[1]) if self.mode == "LSTM" else (hx, None)
        if not batched:
            if h0.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h0.ndim}-D tensor")
            h0, c0 = h0.unsqueeze(1), (c0.unsqueeze(1) if c0 is not None else None)
        elif h0.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {h0.ndim}-D tensor")
        if tuple(h0.shape) != (n, B, real_hidden):
            raise RuntimeError(f"Expected hidden size {(n, B, real_hidden)}, got {list(h0.shape)}")
        if c0 is not None and tuple(c0.shape) != (n, B, self.hidden_size):
            raise RuntimeError(f"Expected hidden[1] size {(n, B, self.hidden_size)}, got {list(c0.shape)}")
        if sorted_indices is not None:
            h0 = h0.index_select(1, sorted_indices)
            c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
        return h0, c0

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        for k, default in (("bias", True), ("batch_first", False), ("dropout", 0.0), ("bidirectional", False)):
            if getattr(self, k) != default:
                s += f", {k}={getattr(self, k)}"
        return s


class RNN(RNNBase):
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if len(args) > 3:   # PyTorch's positional order puts nonlinearity fourth
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)
