"""PackedSequence and its helpers, as torch.nn.utils.rnn: pack_padded_sequence, pad_packed_sequence,
pad_sequence, pack_sequence, unpack_sequence, unpad_sequence."""
from collections import namedtuple

from ... import _dtype
from ... import _numpy
from ... import _ops
from ... import _tensor


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Sequences of different lengths packed time-major: data holds, for each time step, the batch_sizes[t]
    sequences still running (sorted longest first; sorted_indices maps back to the caller's order)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return type(self)(self.data.to(*args, **kwargs), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    @property
    def is_cuda(self):
        return False


def _invert(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm.tolist()):
        inv[p] = i
    return _numpy.tensor(inv, dtype=_dtype.int64)


def _lengths_list(lengths):
    if isinstance(lengths, _tensor.Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D tensor, but got a {lengths.ndim}D tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded (T, B, *) batch (B, T, * with batch_first) of sequences of the given lengths."""
    lens = _lengths_list(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    if len(lens) != input.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={input.shape[1]})")
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        sorted_indices = _numpy.tensor(order, dtype=_dtype.int64)
        input = input.index_select(1, sorted_indices)
        lens = [lens[i] for i in order]
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if lens and lens[0] > input.shape[0]:
        raise RuntimeError(f"a length {lens[0]} exceeds the padded sequence length {input.shape[0]}")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    data = _ops.cat([input[t, :b] for t, b in enumerate(batch_sizes)])
    return PackedSequence(data, _numpy.tensor(batch_sizes, dtype=_dtype.int64), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded, lengths), in the order the sequences were given."""
    data, batch_sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    T, B = len(batch_sizes), batch_sizes[0] if batch_sizes else 0
    if total_length is not None:
        if total_length < T:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")
    rows, off = [], 0
    feat = tuple(data.shape[1:])
    for b in batch_sizes:
        step = data[off:off + b]
        if b < B:
            step = _ops.cat([step, _ops.full((B - b,) + feat, padding_value, dtype=data.dtype, device=data.device)])
        rows.append(step)
        off += b
    for _ in range(T, total_length or T):
        rows.append(_ops.full((B,) + feat, padding_value, dtype=data.dtype, device=data.device))
    padded = _ops.stack(rows) if rows else _ops.zeros((0, 0) + feat, dtype=data.dtype, device=data.device)
    lengths = [sum(1 for b in batch_sizes if b > i) for i in range(B)]
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _numpy.tensor(lengths, dtype=_dtype.int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shape (L_i, *) into (max L, B, *) (or (B, max L, *)), padding with padding_value."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    T = max(s.shape[0] for s in sequences)
    out = []
    for s in sequences:
        fill = _ops.full((T - s.shape[0],) + tuple(s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
        out.append(_ops.cat([s, fill] if padding_side == "right" else [fill, s]) if T > s.shape[0] else s)
    return _ops.stack(out, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :n] for i, n in enumerate(_lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of (L_i, *) tensors."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
