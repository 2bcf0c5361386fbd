"""Composite ops of ops/everyday3.yaml: more everyday PyTorch functions (masked_scatter, index_reduce,
...), each written with other loom ops so that autograd goes through their parts. The generated
function of the same name in loom._ops checks the arguments and calls it."""
from .. import _ops
from .._dtype import bool_, int32, int64
from .._errors import LoomIndexError
from .everyday import _tname, _wrap
from .everyday2 import _expand_to


def _broadcast_pair(a, b):
    """The shape a and b broadcast to, refused with PyTorch's message (a's size named first)."""
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + list(a), [1] * (n - len(b)) + list(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                               f"non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return out


def _device_type(t):
    return "CUDA" if t.device.type == "cuda" else "CPU"


# --------------------------------------------------------------------------- masked and scattered writes

def _masked_scatter_checks(self, mask, source):
    if mask.dtype != bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {_tname(mask.dtype)}")
    if source.dtype != self.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_tname(self.dtype)} and {_tname(source.dtype)}")


def masked_scatter(self, mask, source):
    _masked_scatter_checks(self, mask, source)
    shape = _broadcast_pair(mask.shape, self.shape)
    m = mask if list(mask.shape) == shape else mask.expand(shape)
    s = self if list(self.shape) == shape else self.expand(shape)
    flat = m.reshape([-1])
    n = int(flat.sum())
    if n > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source.numel() == 0:   # (n is 0 too)
        return s.clone()
    # each element's place in source: the number of true elements before it (masked ones only are read)
    at = (flat.cumsum(0) - 1).clamp(min=0)
    return _ops.where(m, source.reshape([-1]).index_select(0, at).reshape(shape), s)


def masked_scatter_(self, mask, source):
    _masked_scatter_checks(self, mask, source)
    if mask.ndim > self.ndim:
        raise RuntimeError(f"expand({_device_type(mask)}BoolType{{{list(mask.shape)}}}, size={list(self.shape)}): the "
                           f"number of sizes provided ({self.ndim}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({mask.ndim})")
    return self.copy_(masked_scatter(self, _expand_to(mask, list(self.shape)), source))


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(self, dim, index, source, reduce, include_self):
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = _wrap(dim, self.ndim)
    if index.ndim > 1:
        raise LoomIndexError(f"Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                             f"{_tname(index.dtype)} and size: {list(index.shape)}")
    if index.dtype not in (int32, int64):
        raise RuntimeError(f"Expected dtype int32/int64 for index but got: {_tname(index.dtype)}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"self ({_tname(self.dtype)}) and source ({_tname(source.dtype)}) must have the same "
                           f"scalar type")
    s_shape = list(self.shape) or [1]
    src_shape = list(source.shape) or [1]
    if index.numel() != src_shape[d]:
        raise RuntimeError(f"Number of indices ({index.numel()}) should be equal to source.size(dim): "
                           f"({src_shape[d]}), for dim: {dim}")
    if len(s_shape) != len(src_shape) or any(a != b for k, (a, b) in enumerate(zip(s_shape, src_shape)) if k != d):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(self.shape)} source.shape = {list(source.shape)}")
    idx = index.reshape([-1]).to(int64)
    if idx.numel() and (int(idx.min()) < 0 or int(idx.max()) >= s_shape[d]):
        raise LoomIndexError("index out of range in self")
    view = [1] * len(src_shape)
    view[d] = -1
    s, src = self.reshape(s_shape), source.reshape(src_shape)
    out = s.scatter_reduce(d, idx.reshape(view).expand(src_shape), src, reduce, include_self=include_self)
    return out.reshape(list(self.shape))
