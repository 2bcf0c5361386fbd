"""Composite ops of ops/index.yaml: each function is an op's body, written with
other loom ops (autograd goes through them). The generated function of the same
name in loom._ops checks the arguments and calls it; ops/index.yaml names it with
`composite: true`."""
from .. import _ops
from .._args import _check_tensor_list


def masked_fill_Scalar(self, mask, value):
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_fill(): only boolean masks are supported, but got mask with dtype {mask.dtype.name}")
    return _ops.where(mask, _ops.full((), value, dtype=self.dtype), self)


def masked_fill_Tensor(self, mask, value):
    if mask.dtype.name != "bool":
        raise RuntimeError(f"masked_fill(): only boolean masks are supported, but got mask with dtype {mask.dtype.name}")
    if value.ndim != 0:
        raise RuntimeError(f"masked_fill(): only supports a 0-dimensional value tensor, but got tensor with {value.ndim} dimension(s)")
    if not value.is_meta:   # PyTorch writes value.item(): one that does not fit self's dtype is refused
        _ops.full((), value.item(), dtype=self.dtype)
    return _ops.where(mask, value.to(self.dtype), self)


def index_put(self, indices, values, accumulate):
    _check_tensor_list(indices, "index_put", "indices")
    return self.clone().index_put_(indices, values, accumulate)
