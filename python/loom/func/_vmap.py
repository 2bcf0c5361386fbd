"""vmap: a function of one sample run over a batch, as torch.func.vmap.

Each call opens a level: inputs mapped over become BatchedTensors of that level (their batch dim
moved to the front), the function runs once on them (every op through its batching rule), and the
outputs' batch dims are moved to out_dims. Levels nest: an inner vmap's BatchedTensors wrap the
outer's."""
import functools
from itertools import count

from .. import _batched
from .._batched import BatchedTensor, wrap
from .._ops import cat, movedim
from .._tensor import Tensor
from . import _pytree

_next_level = count(1)
RANDOMNESS = ("error", "different", "same")


def _fname(func):
    return getattr(func, "__name__", repr(func))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """func vectorized over dim in_dims of its inputs; the results stacked along out_dims."""
    if randomness not in RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def vmapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)
    return vmapped


def _check_in_dims(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    what = (f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure "
            f"of `inputs`.")
    dims = _pytree.broadcast_prefix(in_dims, args, what)
    leaves, spec = _pytree.flatten(args)
    for x, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims must be int or None "
                             f"for each input, got {d!r}")
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input "
                             f"but the input is of type {type(x)}. We cannot vmap over non-Tensor arguments, please "
                             f"use None as the respective in_dim")
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"vmap({_fname(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, "
                             f"but that input is a Tensor of dimensionality {x.ndim} so expected in_dim to satisfy "
                             f"-{x.ndim} <= in_dim < {x.ndim}.")
    return leaves, spec, dims


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    leaves, spec, dims = _check_in_dims(func, in_dims, args)
    sizes = [x.shape[d] for x, d in zip(leaves, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    size = sizes[0]
    moved = [movedim(x, d, 0) if d is not None and d != 0 else x for x, d in zip(leaves, dims)]
    if chunk_size is None or chunk_size >= size:
        return _run(func, out_dims, randomness, moved, dims, spec, size, kwargs)
    parts = [_run(func, out_dims, randomness, [x.narrow(0, i, min(chunk_size, size - i)) if d is not None else x
                                               for x, d in zip(moved, dims)], dims, spec,
                  min(chunk_size, size - i), kwargs) for i in range(0, size, chunk_size)]
    flat = [_pytree.flatten(p)[0] for p in parts]
    out_spec = _pytree.flatten(parts[0])[1]
    outs = _pytree.broadcast_prefix(out_dims, parts[0], "vmap: out_dims is not compatible with the outputs")
    joined = [x if o is None else cat([f[i] for f in flat], o) for i, (x, o) in enumerate(zip(flat[0], outs))]
    return _pytree.unflatten(joined, out_spec)


def _run(func, out_dims, randomness, moved, dims, spec, size, kwargs):
    level = next(_next_level)
    ins = [wrap(x, level) if d is not None else x for x, d in zip(moved, dims)]
    _batched.levels.append([level, size, randomness])
    try:
        out = func(*_pytree.unflatten(ins, spec), **kwargs)
    finally:
        _batched.levels.pop()
    return _unwrap_outputs(func, out, out_dims, level, size)


def _unwrap_outputs(func, out, out_dims, level, size):
    leaves, spec = _pytree.flatten(out)
    try:
        outs = _pytree.broadcast_prefix(out_dims, out, "")
    except ValueError:
        raise ValueError(f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`.") from None
    res = []
    for x, o in zip(leaves, outs):
        if o is None:
            if x.__class__ is BatchedTensor and x._level == level:
                raise ValueError(f"vmap({_fname(func)}, ..., out_dims={out_dims})(<inputs>): can not return a "
                                 f"BatchedTensor when out_dim is None")
            res.append(x)
            continue
        if not isinstance(x, Tensor):
            raise ValueError(f"vmap({_fname(func)}, ...): `{_fname(func)}` must only return Tensors, got type "
                             f"{type(x)}. Did you mean to set out_dims= to None for output?")
        if x.__class__ is BatchedTensor and x._level == level:
            v = x._value
        else:   # the output does not depend on the mapped inputs: every sample's is the same
            v = x.unsqueeze(0).expand((size,) + tuple(x.shape))
        res.append(v if o == 0 else movedim(v, 0, o))
    return _pytree.unflatten(res, spec)
