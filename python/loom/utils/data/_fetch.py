"""Fetchers: one batch (or sample) from a dataset and the indices for it, in the main process or a worker.

A TensorDataset batch with the default collate is gathered with one NumPy
`take` per tensor on zero-copy views of the dataset's tensors (loom has no
integer-tensor indexing yet), instead of indexing and stacking per sample."""
import itertools

import numpy as np

from ..._numpy import from_numpy
from .collate import default_collate
from .dataset import Subset, TensorDataset


class MapFetcher:
    """fetch(indices) -> collate_fn of those samples; without auto-collation fetch(index) -> one sample."""

    def __init__(self, dataset, auto_collation, collate_fn):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        self.gather = fast_gather(dataset, collate_fn) if auto_collation else None
        self.getitems = getattr(dataset, "__getitems__", None) if auto_collation else None

    def fetch(self, indices, checked=False):
        """`checked`: the indices are known to be in range (the sampler's own index arrays)."""
        if not self.auto_collation:
            return self.collate_fn(self.dataset[indices])
        if self.gather is not None:
            return self.gather(indices, checked)
        if self.getitems:
            return collate(self.collate_fn, self.getitems(indices), indices)
        return collate(self.collate_fn, [self.dataset[i] for i in indices], indices)


def collate(collate_fn, samples, indices):
    """collate_fn(samples); an error in it gets a note naming the samples' dataset indices (an
    error's "entry k" is the k-th of them), in the worker's traceback text as in the main process'."""
    try:
        return collate_fn(samples)
    except Exception as e:
        if hasattr(e, "add_note"):
            e.add_note(f"while collating the samples at dataset indices {list(indices)}")
        raise


class IterableFetcher:
    """fetch() -> the next batch (batch_size samples, the last one shorter unless drop_last) or sample;
    StopIteration once the stream is exhausted."""

    def __init__(self, dataset, auto_collation, collate_fn, batch_size, drop_last):
        self.it, self.collate_fn = iter(dataset), collate_fn
        self.batch_size = batch_size if auto_collation else None
        self.drop_last = drop_last

    def fetch(self, *_):
        """Arguments (a worker's task indices) are ignored: the stream decides what comes next."""
        if self.batch_size is None:
            return self.collate_fn(next(self.it))
        batch = list(itertools.islice(self.it, self.batch_size))
        if not batch or (self.drop_last and len(batch) < self.batch_size):
            raise StopIteration
        return self.collate_fn(batch)


def fast_gather(dataset, collate_fn):
    """For a TensorDataset, or Subsets of one, with the default collate: gather(indices, checked) doing one NumPy
    take per tensor (the result equals stacking the samples). None for tensors that need autograd or live off the
    CPU, and Subsets whose indices are not all valid ints: they take the general path, which raises where a bad
    index is used."""
    if collate_fn is not default_collate:
        return None
    ds, n, rows = dataset, len(dataset), None
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
