"""Collation: samples into batches (default_collate) and NumPy data into tensors (default_convert)."""
import collections.abc

import numpy as np

from ..._dtype import float64
from ..._numpy import as_tensor, tensor
from ..._ops import stack
from ..._tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_COLLATE_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(data):
    """Without batching: NumPy arrays and scalars become tensors, containers are converted inside."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind not in "SUOa":
        return as_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "SUOa":
        return as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return _same_mapping(data, {k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data


def default_collate(batch):
    """Stack a list of samples into a batch: tensors, NumPy arrays and numbers along a new first
    dimension; dicts key by key, tuples and lists position by position (tuples come back as lists,
    as in PyTorch); strings stay lists."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "SUOa":
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return default_collate([as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        if elem.dtype.kind in "SUOa":
            raise TypeError(_COLLATE_ERR.format(elem.dtype))
        return as_tensor(np.array(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype=float64)
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _same_mapping(elem, {k: default_collate([d[k] for d in batch]) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(s)) for s in zip(*batch)]
        return columns if isinstance(elem, tuple) else _same_sequence(elem, columns)
    raise TypeError(_COLLATE_ERR.format(type(elem)))


def _same_mapping(like, values):
    try:
        return type(like)(values)
    except TypeError:
        return values


def _same_sequence(like, values):
    try:
        return type(like)(values)
    except TypeError:
        return values
