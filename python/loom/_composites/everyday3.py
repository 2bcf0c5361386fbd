"""Composite ops of ops/everyday3.yaml: more everyday PyTorch functions (masked_scatter, index_reduce,
...), each written with other loom ops so that autograd goes through their parts. The generated
function of the same name in loom._ops checks the arguments and calls it."""
from .. import _ops
from .._dtype import bool_, float64, int32, int64
from .._errors import LoomIndexError
from .._promotion import promote_types
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
    n = 0 if flat.is_meta else int(flat.sum())
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
    if idx.numel() and not idx.is_meta and (int(idx.min()) < 0 or int(idx.max()) >= s_shape[d]):
        raise LoomIndexError("index out of range in self")
    view = [1] * len(src_shape)
    view[d] = -1
    s, src = self.reshape(s_shape), source.reshape(src_shape)
    out = s.scatter_reduce(d, idx.reshape(view).expand(src_shape), src, reduce, include_self=include_self)
    return out.reshape(list(self.shape))


# ------------------------------------------------------------------------------------ cheap composites

def narrow_copy(self, dim, start, length):
    return self.narrow(dim, start, length).clone()


def _integral(dt):
    return not (dt.is_floating_point or dt.is_complex)


def ldexp(self, other):
    dt = promote_types(self.dtype, other.dtype)   # integers give the default float dtype, as PyTorch's
    out = self * _ops.exp2(other)
    return out if not dt.is_floating_point or out.dtype == dt else out.to(dt)


def frexp_Tensor(self):
    if not self.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = self.detach().to(float64)   # float64 holds every smaller float's exponent and mantissa exactly
    finite = _ops.isfinite(x) & (x != 0)
    e = _ops.floor(_ops.log2(_ops.where(finite, x.abs(), 1.0))) + 1
    h = _ops.floor(e * -0.5)   # 2 ** -e in two halves: no overflow for subnormal x
    m = x * _ops.exp2(h) * _ops.exp2(-e - h)
    big = m.abs() >= 1   # log2 rounded up at a power of two's edge
    m, e = _ops.where(big, m * 0.5, m), _ops.where(big, e + 1, e)
    small = finite & (m.abs() < 0.5)
    m, e = _ops.where(small, m * 2, m), _ops.where(small, e - 1, e)
    return _ops.frexp_Tensor_result(_ops.where(finite, m, x).to(self.dtype), _ops.where(finite, e, 0.0).to(int32))


def _vander(x, n, increasing):
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if n is None else n
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = int64 if _integral(x.dtype) else x.dtype
    rows = x.shape[0]
    if n == 0:
        return _ops.empty([rows, 0], dtype=dt, device=x.device)
    ones = _ops.ones([rows, 1], dtype=dt, device=x.device)
    cols = [ones] if n == 1 else [ones, x.to(dt).unsqueeze(1).expand([rows, n - 1])]
    v = _ops.cat(cols, 1).cumprod(1)
    return v if increasing else v.flip([1])


def renorm(self, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap(dim, self.ndim)
    others = [k for k in range(self.ndim) if k != d]
    norm = _ops.linalg_vector_norm(self, p, others, True) if others else self.abs()
    if self.ndim == 0:
        norm = self.abs()
    factor = _ops.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return self * factor.to(self.dtype)


def put(self, index, source, accumulate):
    if index.dtype != int64:
        raise RuntimeError(f"Expected a long tensor for index, but got {_tname(index.dtype)}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"self and source expected to have the same dtype, but got self.dtype = "
                           f"{_tname(self.dtype)} and source.dtype = {_tname(source.dtype)}")
    if index.numel() != source.numel():
        raise LoomIndexError(f"Expected source and index to have the same number of elements, but got "
                             f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = self.numel()
    flat = index.reshape([-1])
    if flat.numel() and not (self.is_meta or index.is_meta):
        for bad in (int(flat.min()), int(flat.max())):
            if not -n <= bad < n:
                raise LoomIndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    flat = _ops.where(flat < 0, flat + n, flat)
    out = self.reshape([-1]).index_put([flat], source.reshape([-1]), accumulate)
    return out.reshape(list(self.shape))
