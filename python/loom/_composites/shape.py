"""Composite ops of ops/shape.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/shape.yaml names it with
`composite: true`."""
import builtins as _b

import numpy as _np

from .. import _ops
from .._args import _check_tensor_list
from .._dtype import int64 as _int64
from .._numpy import from_numpy as _from_numpy
from .._multi import broadcast_shapes as _shapes
from .._multi import atleast_3d as _3d


def fliplr(self):
    if self.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _ops.flip(self, [1])


def flipud(self):
    if self.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _ops.flip(self, [0])


def repeat(self, repeats):
    repeats_p, _ = _ops._int_list(repeats, "repeat", "repeats")
    if len(repeats_p) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    shape = [1] * (len(repeats_p) - self.ndim) + list(self.shape)
    inner, big, final = [], [], []
    for k, s in zip(repeats_p, shape):
        if k < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {k}: {[a * b for a, b in zip(repeats_p, shape)]}")
        inner += [1, s]
        big += [k, s]
        final.append(k * s)
    # a size-1 dim before each dim of self, expanded to its repeat count, then merged (one copy)
    out = self.reshape(inner).expand(big).reshape(final)
    # all ones: a view of self; a repeated size-1 dim: a stride-0 view. Either way, copy
    return out.clone() if _b.all(k == 1 for k in repeats_p) else out.contiguous()


def tile(self, dims):
    dims_p, _ = _ops._int_list(dims, "tile", "dims")
    return self.repeat([1] * (self.ndim - len(dims_p)) + list(dims_p))


def repeat_interleave_self_int(self, repeats, dim, output_size):
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = self.flatten() if dim is None else self
    d = 0 if dim is None else _ops._wrap_dim(dim, self.ndim)
    if x.ndim == 0:
        x = x.reshape(1)
    s = list(x.shape)
    if output_size is not None and output_size != s[d] * repeats:
        raise RuntimeError(f"Invalid output_size, expected {s[d] * repeats} but got {output_size}")
    # each element is followed by its copies: a size-`repeats` dim after d, expanded, then merged into d
    out = x.unsqueeze(d + 1).expand(s[:d + 1] + [repeats] + s[d + 1:]).reshape(s[:d] + [s[d] * repeats] + s[d + 1:])
    return out.clone() if repeats == 1 else out.contiguous()   # never a view of self (see repeat)


def repeat_interleave_self_Tensor(self, repeats, dim, output_size):
    x = self.flatten() if dim is None else self
    d = 0 if dim is None else _ops._wrap_dim(dim, self.ndim)
    if x.ndim == 0:
        x = x.reshape(1)
    if repeats.ndim > 1 or repeats.dtype.is_floating_point or repeats.dtype.name == "bool":
        raise RuntimeError(f"repeats must be a 0-d or 1-d integer tensor, but got {repeats.ndim}-d {repeats.dtype.name}")
    reps = repeats.reshape(-1).to("cpu").numpy().astype(_np.int64)
    n = x.shape[d]
    if reps.size == 1:
        reps = _np.repeat(reps, n)
    if reps.size != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = {reps.size} and input.size({d}) = {n}")
    if reps.size and reps.min() < 0:
        raise RuntimeError("Repeats must be non-negative")
    total = int(reps.sum())
    if output_size is not None and output_size != total:
        raise RuntimeError(f"Invalid output_size, expected {total} but got {output_size}")
    # the index and the result must fit together: both are asked for (untouched) first, so a size that
    # cannot is a MemoryError at once rather than after the index is built
    probe = [_ops.empty([total], dtype=_int64), _ops.empty(list(x.shape[:d]) + [total] + list(x.shape[d + 1:]),
                                                               dtype=x.dtype, device=x.device)]
    del probe
    idx = _from_numpy(_np.repeat(_np.arange(n, dtype=_np.int64), reps)).to(x.device)
    return _ops.index_select(x, d, idx)


def repeat_interleave_Tensor(repeats, output_size):
    if repeats.ndim > 1:
        raise RuntimeError(f"repeats must be 0-dim or 1-dim tensor, but got {repeats.ndim}-dim")
    return _ops.repeat_interleave(_ops.arange(repeats.numel(), device=repeats.device), repeats, 0,
                                  output_size=output_size)


def tril(self, diagonal):
    if self.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    cols, rows = _ops.arange(self.shape[-1], device=self.device), _ops.arange(self.shape[-2], device=self.device)
    keep = cols - rows.unsqueeze(1) <= diagonal
    return _ops.where(keep, self, _ops.full((), 0, dtype=self.dtype))


def triu(self, diagonal):
    if self.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    cols, rows = _ops.arange(self.shape[-1], device=self.device), _ops.arange(self.shape[-2], device=self.device)
    keep = cols - rows.unsqueeze(1) >= diagonal
    return _ops.where(keep, self, _ops.full((), 0, dtype=self.dtype))


def movedim(self, source, destination):
    source_p, _ = _ops._int_list(source, "movedim", "source")
    destination_p, _ = _ops._int_list(destination, "movedim", "destination")
    if len(source_p) != len(destination_p):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({source_p} dims) should contain the same number of dims as destination ({destination_p} dims)")
    src = [_ops._wrap_dim(d, self.ndim) for d in source_p]
    dst = [_ops._wrap_dim(d, self.ndim) for d in destination_p]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({source_p})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({destination_p})")
    if self.ndim == 0:
        return self.view(())
    order = [None] * self.ndim
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter([i for i in range(self.ndim) if i not in src])   # the other dims keep their order
    return self.permute([next(rest) if o is None else o for o in order])


def moveaxis(self, source, destination):
    return _ops.movedim(self, source, destination)


def swapaxes(self, axis0, axis1):
    return self.transpose(axis0, axis1)


def swapdims(self, dim0, dim1):
    return self.transpose(dim0, dim1)


def broadcast_to(self, size):
    size_p, _ = _ops._int_list(size, "broadcast_to", "size")
    return self.expand(size_p)


def select(self, dim, index):
    if self.ndim == 0:
        raise _ops._IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _ops._wrap_dim(dim, self.ndim)
    n = self.shape[d]
    if not -n <= index < n:
        raise _ops._IndexError(f"index {index} out of range for tensor of size {list(self.shape)} at dimension {dim}")
    return self.narrow(d, index % n, 1).squeeze(d)


def unflatten(self, dim, sizes):
    sizes_p, _ = _ops._int_list(sizes, "unflatten", "sizes")
    d = _ops._wrap_dim(dim, self.ndim)
    if not sizes_p:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if sizes_p.count(-1) > 1:
        raise RuntimeError("unflatten: only one dimension can be inferred")
    n = self.shape[d] if self.ndim else 1
    known = 1
    for s in sizes_p:
        known *= s if s != -1 else 1
    sizes = [n // known if s == -1 and known else s for s in sizes_p]
    total = 1
    for s in sizes:
        total *= s
    if total != n or _b.min(sizes) < 0:
        raise RuntimeError(f"unflatten: Provided sizes {sizes_p} don't multiply up to the size of dim {dim} ({n}) in the input tensor")
    return self.reshape(list(self.shape[:d]) + sizes + list(self.shape[d + 1:]))


def take_along_dim(self, indices, dim):
    if indices.dtype.name != "int64":
        raise RuntimeError(f"dtype of indices should be int64 but got {indices.dtype.name}")
    if dim is None:
        return _ops.gather(self.reshape(-1), 0, indices.reshape(-1))
    d = _ops._wrap_dim(dim, self.ndim)
    if self.ndim != indices.ndim:
        raise RuntimeError(f"input and indices should have the same number of dimensions, but got {self.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    shape = list(_shapes([1 if i == d else s for i, s in enumerate(self.shape)],
                         [1 if i == d else s for i, s in enumerate(indices.shape)]))
    if self.ndim == 0:
        return _ops.gather(self, d, indices)
    # the dims other than dim broadcast against each other, as NumPy's take_along_axis
    return _ops.gather(self.expand(shape[:d] + [self.shape[d]] + shape[d + 1:]), d,
                  indices.expand(shape[:d] + [indices.shape[d]] + shape[d + 1:]))


def masked_select(self, mask):
    if mask.dtype.name != "bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = _shapes(self.shape, mask.shape)
    if not shape:
        return self.reshape(1)[mask.reshape(1)]
    return self.expand(shape)[mask.expand(shape)]


def diag(self, diagonal):
    if self.ndim == 2:
        return self.diagonal(diagonal).clone()
    if self.ndim != 1:
        raise RuntimeError(f"Supports 1D or 2D tensors. Got {self.ndim}D")
    m = self.shape[0]
    n = m + _b.abs(diagonal)
    out = _ops.zeros((n, n), dtype=self.dtype, device=self.device)
    if not self.dtype.differentiable:   # no gradient to carry: a copy into the diagonal, which uint16/32/64 take
        out.diagonal(diagonal).copy_(self)
        return out
    rows = _ops.arange(m, device=self.device) + _b.max(-diagonal, 0)
    return out.index_put([rows, rows + diagonal], self)


def trace(self):
    if self.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.ndim}")
    return self.diagonal().sum()


def rot90(self, k, dims):
    dims_p, _ = _ops._int_list(dims, "rot90", "dims")
    if len(dims_p) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims_p)}")
    if self.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {self.ndim}")
    d0, d1 = dims_p
    if d0 == d1 or _b.abs(d0 - d1) == self.ndim:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = k % 4
    if k == 1:
        return _ops.flip(self, [d1]).transpose(d0, d1)
    if k == 2:
        return _ops.flip(self, [d0, d1])
    if k == 3:
        return _ops.flip(self, [d0]).transpose(d0, d1)
    return self.clone()


def hstack(tensors):
    _check_tensor_list(tensors, "hstack", "tensors")
    if not tensors:
        raise RuntimeError("hstack expects a non-empty TensorList")
    ts = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return _ops.cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors):
    _check_tensor_list(tensors, "vstack", "tensors")
    if not tensors:
        raise RuntimeError("vstack expects a non-empty TensorList")
    return _ops.cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


def dstack(tensors):
    _check_tensor_list(tensors, "dstack", "tensors")
    if not tensors:
        raise RuntimeError("dstack expects a non-empty TensorList")
    return _ops.cat([_3d(t) for t in tensors], 2)


def column_stack(tensors):
    _check_tensor_list(tensors, "column_stack", "tensors")
    if not tensors:
        raise RuntimeError("column_stack expects a non-empty TensorList")
    return _ops.cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], 1)
