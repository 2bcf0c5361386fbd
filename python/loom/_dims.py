"""Dim-argument checks shared by composite ops (_composites/ and _multi.py),
raising what the C kernels raise for the same mistakes."""
from ._errors import LoomIndexError


def wrap_dim(dim, ndim):
    """dim in [0, ndim) (a 0-d tensor takes 0 and -1), or PyTorch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise LoomIndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def wrap_dims(dims, ndim):
    """Each of dims wrapped; a dim named twice is PyTorch's RuntimeError."""
    out = [wrap_dim(d, ndim) for d in dims]
    if len(set(out)) != len(out):
        d = next(d for d in out if out.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out
