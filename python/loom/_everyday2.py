"""PyTorch's call forms of unique and unique_consecutive, whose result is one tensor or a tuple
as return_inverse and return_counts ask, which no schema spells: they call the generated ops of
ops/everyday2.yaml (_unique2, unique_dim, _unique_consecutive), which return all three, and pick."""
from . import _ops
from ._args import takes_tensors
from ._tensor import Tensor

__all__ = ["unique", "unique_consecutive"]


def _pick(res, return_inverse, return_counts):
    values, inverse, counts = res
    if return_inverse and return_counts:
        return tuple(res)
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


@takes_tensors("input", sorted="bool", return_inverse="bool", return_counts="bool", dim="int")
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The unique elements of input (or its unique slices along dim), sorted; with return_inverse the
    index of each element among them, with return_counts how often each occurs."""
    if dim is None:
        res = _ops._unique2(input, sorted, return_inverse, return_counts)
    else:
        res = _ops.unique_dim(input, dim, sorted, return_inverse, return_counts)
    return _pick(res, return_inverse, return_counts)


@takes_tensors("input", return_inverse="bool", return_counts="bool", dim="int")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """input with each run of equal consecutive elements (or slices along dim) kept once; with
    return_inverse each element's run, with return_counts the runs' lengths."""
    return _pick(_ops._unique_consecutive(input, return_inverse, return_counts, dim), return_inverse, return_counts)


Tensor.unique = unique
Tensor.unique_consecutive = unique_consecutive
