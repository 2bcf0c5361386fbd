"""Datasets, samplers, collation and the DataLoader, as torch.utils.data (single process).

A TensorDataset batch with the default collate is gathered with one NumPy
`take` per tensor on zero-copy views of the dataset's tensors (loom has no
integer-tensor indexing yet), instead of indexing and stacking per sample."""
import collections.abc
import math
import warnings

import numpy as np

from .._generator import Generator, _from_global
from .._numpy import as_tensor, from_numpy, tensor
from .._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Sampler", "SequentialSampler", "RandomSampler",
           "BatchSampler", "DataLoader", "default_collate", "default_convert"]


class Dataset:
    """A map-style dataset: __getitem__(index) and usually __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")


class IterableDataset(Dataset):
    """A dataset that is a stream: __iter__ yields samples."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")


class TensorDataset(Dataset):
    """Sample i is (t[i] for t in tensors); all tensors share their first dimension."""

    def __init__(self, *tensors):
        if not all(isinstance(t, Tensor) for t in tensors):
            raise TypeError("TensorDataset(): every argument must be a loom.Tensor")
        if not tensors or any(t.ndim == 0 for t in tensors):
            raise ValueError("TensorDataset(): needs at least one tensor, each with a first dimension")
        if any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


# ---------------------------------------------------------------- samplers
class Sampler:
    """Yields indices (or lists of indices, for batch samplers) into a dataset."""

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)

    def _index_array(self):
        return np.arange(len(self.data_source), dtype=np.int64)


class RandomSampler(Sampler):
    """A fresh permutation per iteration (or num_samples draws with replacement), drawn from `generator`,
    or without one from a Generator seeded by loom's global generator (so loom.manual_seed fixes it)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator should be a loom.Generator, but got {type(generator).__name__}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        return iter(self._index_array().tolist())

    def _index_array(self):
        """One epoch's indices as an int64 array."""
        n = len(self.data_source)
        gen = self.generator if self.generator is not None else _from_global()
        if self.replacement:
            return gen._integers(n, self.num_samples).astype(np.int64)
        reps, rest = divmod(self.num_samples, n)
        order = [gen._permutation(n) for _ in range(reps)] + ([gen._permutation(n)[:rest]] if rest else [])
        return np.concatenate(order).astype(np.int64)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of batch_size (the last one shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def _index_arrays(self):
        """The batches as slices of one epoch's index array, when the sampler can give one."""
        if not hasattr(self.sampler, "_index_array"):
            return None
        order, bs = self.sampler._index_array(), self.batch_size
        stop = len(order) - len(order) % bs if self.drop_last else len(order)
        return (order[i:i + bs] for i in range(0, stop, bs))


# ---------------------------------------------------------------- collation
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
    from .. import stack
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
        from .. import float64
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


# ---------------------------------------------------------------- the loader
class DataLoader:
    """Iterates over a dataset in batches. Arguments as torch.utils.data.DataLoader; loading runs in
    this process (num_workers > 0 warns and loads here), pin_memory is a no-op on the CPU."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers > 0:
            warnings.warn("loom's DataLoader loads in the main process; num_workers is ignored", stacklevel=2)
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, "
                                 f"but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, "
                                 f"but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        self._auto_collation = auto_collation
        if collate_fn is None:
            collate_fn = default_collate if auto_collation else default_convert
        self.collate_fn = collate_fn

    def __len__(self):
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self.batch_sampler if self._auto_collation else self.sampler)

    def __iter__(self):
        if self._iterable:
            return self._iter_stream()
        if not self._auto_collation:
            return (self.collate_fn(self.dataset[i]) for i in self.sampler)
        fast = self._fast_gather()
        if fast is not None:
            batches = self.batch_sampler._index_arrays() if type(self.batch_sampler) is BatchSampler else None
            if batches is not None:   # known-valid index arrays: no per-batch list or bounds check
                arrays = fast.arrays
                return ([from_numpy(a.take(idx, axis=0)) for a in arrays] for idx in batches)
            return (fast(idx) for idx in self.batch_sampler)
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            return (self.collate_fn(getitems(idx)) for idx in self.batch_sampler)
        return (self.collate_fn([self.dataset[i] for i in idx]) for idx in self.batch_sampler)

    def _fast_gather(self):
        """For a TensorDataset with the default collate: one NumPy take per tensor (the result equals
        stacking the samples). Tensors that need autograd or live off the CPU take the general path."""
        ds = self.dataset
        if self.collate_fn is not default_collate or type(ds).__getitem__ is not TensorDataset.__getitem__:
            return None
        if not isinstance(ds, TensorDataset) or any(t.requires_grad or t.device.type != "cpu" for t in ds.tensors):
            return None
        arrays = [np.asarray(t) for t in ds.tensors]
        n = len(ds)

        def gather(idx):
            idx = np.asarray(idx, dtype=np.int64)
            if idx.size and (idx.min() < -n or idx.max() >= n):
                bad = int(idx[(idx < -n) | (idx >= n)][0])
                raise IndexError(f"index {bad} is out of bounds for dimension 0 with size {n}")
            return [from_numpy(np.take(a, idx, axis=0)) for a in arrays]
        gather.arrays = arrays
        return gather

    def _iter_stream(self):
        it = iter(self.dataset)
        if self.batch_size is None:
            for sample in it:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in it:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)
