"""vmap's batched tensor: a Tensor subclass with no C handle, so no op runs on it directly.

A BatchedTensor stands for one sample of a batch: `_value` holds the whole batch with the batch
dim in front (a plain Tensor, or a BatchedTensor of an outer vmap: levels nest) and `_level`
names the vmap call it belongs to. Its `_h` is None, so a generated op's argument conversion
(`_args._tensor_arg`, reached only when an argument is not a plain Tensor) raises BatchedOperand
and the op's `except` hands the call to its batching rule (`_vmap_dispatch`). Ordinary calls never
see any of this: their fast path reads `_h` of plain Tensors as before."""
from ._tensor import Size, Tensor, _object_new


class BatchedOperand(Exception):
    """Raised by argument conversion for a batched operand; caught by the generated op itself."""


# the vmap calls in progress, innermost last: [level, batch size, randomness]
levels = []


def current(level):
    for lv in levels:
        if lv[0] == level:
            return lv
    raise RuntimeError(f"vmap: level {level} is not active (a BatchedTensor escaped its vmap)")


_NO_DATA = ("vmap: It looks like you're calling {} on a Tensor. We don't support vmap over calling {} on a "
            "Tensor, please try to rewrite what you're doing with other operations.")


class BatchedTensor(Tensor):
    """One sample of `_value` (batch dim 0) inside the vmap of level `_level`."""
    __slots__ = ("_value", "_level")

    @property
    def _h(self):
        return None

    @_h.setter
    def _h(self, h):
        raise RuntimeError("vmap: a batched tensor cannot be written through its handle")

    @property
    def shape(self):
        return Size(self._value.shape[1:])

    def size(self, dim=None):
        s = self.shape
        return s if dim is None else s[dim if dim >= 0 else dim + len(s)]

    def stride(self, dim=None):
        st = self._value.stride()[1:]
        return st if dim is None else st[dim if dim >= 0 else dim + len(st)]

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def device(self):
        return self._value.device

    @property
    def ndim(self):
        return self._value.ndim - 1

    def dim(self):
        return self._value.ndim - 1

    ndimension = dim

    def numel(self):
        return self.shape.numel()

    nelement = numel

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._value.shape[1]

    def is_contiguous(self, memory_format=None):
        return self._value.is_contiguous()

    @property
    def requires_grad(self):
        return self._value.requires_grad

    @property
    def grad_fn(self):
        return self._value.grad_fn

    @property
    def is_leaf(self):
        return self._value.is_leaf

    @property
    def is_cuda(self):
        return self._value.is_cuda

    def item(self):
        raise RuntimeError(_NO_DATA.format(".item()", ".item()"))

    def tolist(self):
        raise RuntimeError(_NO_DATA.format(".tolist()", ".tolist()"))

    def numpy(self, *args, **kwargs):
        raise RuntimeError(_NO_DATA.format(".numpy()", ".numpy()"))

    def __bool__(self):
        raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                           "flow. We don't support that yet, please shout over at "
                           "https://github.com/pytorch/functorch/issues/257 .")

    def data_ptr(self):
        return self._value.data_ptr()

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r})"

    def __array__(self, *args, **kwargs):
        raise RuntimeError(_NO_DATA.format("numpy conversion", "numpy conversion"))


def wrap(value, level):
    t = _object_new(BatchedTensor)
    t._value = value
    t._level = level
    return t


def level_of(x):
    """The highest vmap level among x's wrappers, 0 for a plain tensor (or anything else)."""
    return x._level if x.__class__ is BatchedTensor else 0
