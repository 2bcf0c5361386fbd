"""The DataLoader, as torch.utils.data.DataLoader (single process).

A TensorDataset batch with the default collate is gathered with one NumPy
`take` per tensor on zero-copy views of the dataset's tensors (loom has no
integer-tensor indexing yet), instead of indexing and stacking per sample."""
import math
import warnings

import numpy as np

from ..._numpy import from_numpy
from .collate import default_collate, default_convert
from .dataset import IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


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
                return (fast(idx, checked=True) for idx in batches)
            return (fast(idx) for idx in self.batch_sampler)
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            return (self.collate_fn(getitems(idx)) for idx in self.batch_sampler)
        return (self.collate_fn([self.dataset[i] for i in idx]) for idx in self.batch_sampler)

    def _fast_gather(self):
        """For a TensorDataset, or Subsets of one, with the default collate: one NumPy take per tensor (the
        result equals stacking the samples). Tensors that need autograd or live off the CPU, and Subsets whose
        indices are not all valid ints, take the general path (which raises where a bad index is used)."""
        if self.collate_fn is not default_collate:
            return None
        ds, n, rows = self.dataset, len(self.dataset), None
        while type(ds) is Subset:   # compose the index maps down to the TensorDataset
            step = np.asarray(ds.indices)
            if step.dtype.kind not in "iu" or step.ndim != 1:
                return None
            rows = step.astype(np.int64) if rows is None else step[rows]
            ds = ds.dataset
        if not isinstance(ds, TensorDataset) or type(ds).__getitem__ is not TensorDataset.__getitem__:
            return None
        if any(t.requires_grad or t.device.type != "cpu" for t in ds.tensors):
            return None
        if rows is not None and rows.size and (rows.min() < -len(ds) or rows.max() >= len(ds)):
            return None
        arrays = [np.asarray(t) for t in ds.tensors]

        def gather(idx, checked=False):
            idx = np.asarray(idx, dtype=np.int64)
            if not checked and idx.size and (idx.min() < -n or idx.max() >= n):
                bad = int(idx[(idx < -n) | (idx >= n)][0])
                raise IndexError(f"index {bad} is out of bounds for dimension 0 with size {n}")
            if rows is not None:
                idx = rows[idx]
            return [from_numpy(a.take(idx, axis=0)) for a in arrays]
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
