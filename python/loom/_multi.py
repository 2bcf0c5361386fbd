"""Shape functions that return several tensors (or one or several, as atleast_1d):
an ops/ schema returns a fixed number of Tensors, so these are written here,
over the generated ops, and differentiate through them. Pieces are views where
PyTorch's are (split, chunk, unbind, broadcast_tensors, meshgrid)."""
from collections.abc import Sequence
from numbers import Integral
from typing import Any

from ._args import takes_tensors
from ._tensor import Size, Tensor
from ._dims import wrap_dim
from ._errors import LoomIndexError, LoomTypeError

__all__ = ["split", "chunk", "unbind", "broadcast_shapes", "broadcast_tensors", "meshgrid",
           "atleast_1d", "atleast_2d", "atleast_3d", "tensor_split", "hsplit", "vsplit", "dsplit"]


def _check_tensor(x, op, name="input"):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def _int_arg(x, op, name):
    if isinstance(x, bool) or not isinstance(x, Integral):
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(x).__name__}")
    return int(x)


def _wrap(dim, ndim, op):
    try:
        return wrap_dim(_int_arg(dim, op, "dim"), ndim)
    except IndexError as e:
        raise LoomIndexError(f"{op}(): {e}") from None


def split(tensor: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Views of tensor split along dim into pieces of split_size_or_sections elements
    (the last one smaller), or of the sizes in a list that sums to tensor.size(dim)."""
    _check_tensor(tensor, "split", "tensor")
    if tensor.ndim == 0:
        raise RuntimeError("split(): split expects at least a 1-dimensional tensor")
    d = _wrap(dim, tensor.ndim, "split")
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [_int_arg(s, "split", "split_size_or_sections") for s in split_size_or_sections]
        if any(s < 0 for s in sizes) or sum(sizes) != n:
            raise RuntimeError(f"split(): split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got split_sizes={sizes}")
    else:
        size = _int_arg(split_size_or_sections, "split", "split_size_or_sections")
        if size < 0:
            raise RuntimeError(f"split(): split expects split_size be non-negative, but got split_size={size}")
        if size == 0 and n:
            raise RuntimeError(f"split(): split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        sizes = [min(size, n - i) for i in range(0, n, size)] if n else [0]
    out, start = [], 0
    for s in sizes:
        out.append(tensor.narrow(d, start, s))
        start += s
    return tuple(out)


# a tuple of empty views costs a few hundred bytes per piece: more than 2^24 of them is gigabytes
_MAX_PIECES = 1 << 24


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of input split along dim into at most chunks pieces of equal size (the last smaller)."""
    _check_tensor(input, "chunk")
    chunks = _int_arg(chunks, "chunk", "chunks")
    if chunks <= 0:
        raise RuntimeError(f"chunk(): chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk(): chunk expects at least a 1-dimensional tensor")
    d = _wrap(dim, input.ndim, "chunk")
    n = input.shape[d]
    if n == 0:   # PyTorch gives chunks empty pieces (and fails on a count no vector can hold)
        if chunks > _MAX_PIECES:
            raise RuntimeError(f"chunk(): cannot create {chunks} empty pieces: a tuple of that many tensors does "
                               "not fit in memory")
        return tuple(input.narrow(d, 0, 0) for _ in range(chunks))
    return split(input, -(-n // chunks), d)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The views input.select(dim, i) for each i, as a tuple."""
    _check_tensor(input, "unbind")
    if input.ndim == 0:
        raise LoomIndexError("unbind(): Dimension specified as 0 but tensor has no dimensions")
    d = _wrap(dim, input.ndim, "unbind")
    return tuple(input.select(d, i) for i in range(input.shape[d]))


def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    """The shape that tensors of the given shapes broadcast to (NumPy's rules)."""
    out = []
    for k, shape in enumerate(shapes):
        if not (isinstance(shape, Integral) or isinstance(shape, Sequence) and all(isinstance(s, Integral) for s in shape)):
            # PyTorch's RuntimeError, a TypeError too (LoomTypeError is both)
            raise LoomTypeError(f"broadcast_shapes(): Input shapes should be of type ints, a tuple of ints, or a "
                                f"list of ints, got {shape!r}")
        shape = [shape] if isinstance(shape, Integral) else list(shape)
        if len(shape) > len(out):
            out = [1] * (len(shape) - len(out)) + out
        for i, s in enumerate(shape):
            j = len(out) - len(shape) + i
            if s < 0:
                raise RuntimeError(f"broadcast_shapes(): Trying to create tensor with negative dimension {s}: {shape}")
            if out[j] == 1:
                out[j] = s
            elif s != 1 and s != out[j]:
                raise RuntimeError(f"broadcast_shapes(): shape mismatch: objects cannot be broadcast to a single "
                                   f"shape; argument {k} has size {s} at dim {i} where the others have {out[j]}")
    return Size(out)


def _tensors(args, op):
    ts = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    for i, t in enumerate(ts):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(ts)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """Broadcast views of tensors, all of the shape they broadcast to."""
    ts = _tensors(tensors, "broadcast_tensors")
    try:
        shape = broadcast_shapes(*[t.shape for t in ts])
    except RuntimeError as e:
        raise RuntimeError(str(e).replace("broadcast_shapes()", "broadcast_tensors()", 1)) from None
    return tuple(t.expand(shape) for t in ts)


def meshgrid(*tensors: Tensor | Sequence[Tensor], indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids of 0-d or 1-D tensors: with indexing='ij' output i varies along dim i;
    with 'xy' (NumPy's default) the first two dims are swapped. Broadcast views."""
    ts = _tensors(tensors, "meshgrid")
    if indexing not in ("ij", "xy"):
        raise ValueError(f"meshgrid(): indexing must be one of 'xy' or 'ij', but received: {indexing!r}")
    if not ts:
        raise RuntimeError("meshgrid(): meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid(): Expected 0D or 1D tensor in the tensor list but got a {t.ndim}-D tensor")
    if ts and any(t.dtype != ts[0].dtype or t.device != ts[0].device for t in ts):
        raise RuntimeError("meshgrid(): expects all tensors to have the same dtype and device")
    swap = indexing == "xy" and len(ts) >= 2
    order = [1, 0] + list(range(2, len(ts))) if swap else list(range(len(ts)))
    shape = [ts[i].numel() for i in order]
    grids = [None] * len(ts)
    for pos, i in enumerate(order):
        view = [1] * len(ts)
        view[pos] = -1
        grids[i] = ts[i].reshape(view).expand(shape)
    return tuple(grids)


def _atleast(nd, args, op):
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if t.ndim >= nd:
            return t
        if nd == 3 and t.ndim == 1:   # PyTorch's and NumPy's (n) -> (1, n, 1)
            return t.reshape(1, -1, 1)
        if nd == 3 and t.ndim == 2:
            return t.unsqueeze(-1)
        return t.reshape([1] * (nd - t.ndim) + list(t.shape))
    return tuple(_atleast(nd, (t,), op) for t in _tensors(args, op))


def atleast_1d(*tensors: Tensor) -> Any:
    """Each tensor viewed with at least 1 dim (one tensor in, one out; several in, a tuple)."""
    return _atleast(1, tensors, "atleast_1d")


def atleast_2d(*tensors: Tensor) -> Any:
    """Each tensor viewed with at least 2 dims (a 1-D tensor becomes one row)."""
    return _atleast(2, tensors, "atleast_2d")


def atleast_3d(*tensors: Tensor) -> Any:
    """Each tensor viewed with at least 3 dims ((n) -> (1, n, 1), (m, n) -> (m, n, 1))."""
    return _atleast(3, tensors, "atleast_3d")


def _sections_or_indices(arg, op):
    """tensor_split's indices_or_sections: an int (sections), a list of ints (indices), or an int64
    tensor of either (0-d: sections, 1-D: indices)."""
    if isinstance(arg, Tensor):
        if arg.dtype.name != "int64":
            raise RuntimeError(f"{op}(): tensor_split expected tensor_indices_or_sections to have dtype of long, "
                               f"but got {arg.dtype.scalar_type}")
        if arg.ndim > 1:
            raise RuntimeError(f"{op}(): tensor_split expected tensor_indices_or_sections to be a zero-dimensional "
                               f"or one-dimensional tensor, but got a tensor with {arg.ndim} dims")
        arg = arg.tolist()
    if isinstance(arg, (list, tuple)):
        return None, [_int_arg(i, op, "indices") for i in arg]
    if isinstance(arg, bool) or not isinstance(arg, Integral):
        raise TypeError(f"{op}(): argument 'indices_or_sections' must be int, tuple of ints or Tensor, "
                        f"not {type(arg).__name__}")
    return int(arg), None



def _tensor_split(input, sections, indices, d, op):
    n = input.shape[d]
    if sections is not None:
        if sections <= 0:
            raise RuntimeError(f"{op}(): number of sections must be larger than 0, got {sections}")
        small, extra = divmod(n, sections)
        bounds, start = [], 0
        for i in range(sections):
            size = small + (1 if i < extra else 0)
            bounds.append((start, size))
            start += size
    else:
        def clamp(i):   # a slice's bounds: negative counts from the end, then clamped to [0, n]
            return max(0, min(n, i + n if i < 0 else i))
        edges = [0] + [clamp(i) for i in indices]
        ends = [clamp(i) for i in indices] + [n]
        bounds = [(s, max(0, e - s)) for s, e in zip(edges, ends)]
    return tuple(input.narrow(d, s, ln) for s, ln in bounds)


def tensor_split(input: Tensor, indices_or_sections: int | Sequence[int] | Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of input split along dim into indices_or_sections pieces as equal as can be (the first
    ones one larger), or at the indices of a list (as NumPy's array_split)."""
    _check_tensor(input, "tensor_split")
    if input.ndim == 0:
        raise RuntimeError("tensor_split(): tensor_split expected at least a 1-dimensional tensor, "
                           "but got a tensor with 0 dims")
    sections, indices = _sections_or_indices(indices_or_sections, "tensor_split")
    d = _wrap(dim, input.ndim, "tensor_split")
    return _tensor_split(input, sections, indices, d, "tensor_split")


def _hvd_split(input, indices_or_sections, op, min_dims, dim):
    _check_tensor(input, op)
    if input.ndim < min_dims:
        raise RuntimeError(f"{op}(): torch.{op} requires a tensor with at least {min_dims} dimension, "
                           f"but got a tensor with {input.ndim} dimensions!")
    sections, indices = _sections_or_indices(indices_or_sections, op)
    if sections is not None and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(f"{op}(): torch.{op} attempted to split along dimension {dim}, but the size of the "
                           f"dimension {input.shape[dim]} is not divisible by the split_size {sections}!")
    return _tensor_split(input, sections, indices, dim, op)


@takes_tensors("input", indices_or_sections="int[]")
def hsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 1 (dim 0 of a 1-D tensor); int sections must divide its size."""
    _check_tensor(input, "hsplit")
    return _hvd_split(input, indices_or_sections, "hsplit", 1, 1 if input.ndim > 1 else 0)


@takes_tensors("input", indices_or_sections="int[]")
def vsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 0 of a tensor of at least 2 dims; int sections must divide its size."""
    return _hvd_split(input, indices_or_sections, "vsplit", 2, 0)


@takes_tensors("input", indices_or_sections="int[]")
def dsplit(input: Tensor, indices_or_sections: int | Sequence[int]) -> tuple[Tensor, ...]:
    """tensor_split along dim 2 of a tensor of at least 3 dims; int sections must divide its size."""
    return _hvd_split(input, indices_or_sections, "dsplit", 3, 2)


def _split_method(self, split_size, dim=0):
    return split(self, split_size, dim)


Tensor.split = _split_method
Tensor.chunk = chunk
Tensor.unbind = unbind
Tensor.tensor_split = tensor_split
Tensor.hsplit = hsplit
Tensor.vsplit = vsplit
Tensor.dsplit = dsplit
