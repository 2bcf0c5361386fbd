"""The DataLoader, as torch.utils.data.DataLoader: batches in the main process, or with num_workers > 0 in
worker processes (see _multiprocessing)."""
import itertools
import math
import numbers

from ... import cuda
from ..._generator import Generator, _seed_from
from ..._tensor import Tensor
from ._fetch import IterableFetcher, MapFetcher
from ._multiprocessing import MultiProcessIter, resolve_context
from .collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    """Iterates over a dataset in batches. Arguments as torch.utils.data.DataLoader; pin_memory puts the
    batches' tensors in page-locked host memory (faster copies to the GPU) and is a no-op without CUDA.

    num_workers > 0 loads in that many worker processes, started with 'spawn' unless multiprocessing_context
    says otherwise, so the dataset, collate_fn and worker_init_fn must be picklable (defined at module level)
    and a script that iterates must do so under `if __name__ == "__main__":`. Worker i seeds Python's, NumPy's
    and loom's global generators from base_seed + i, base_seed being drawn from `generator` (or loom's global
    generator) at each iter(), in both modes, so a seed gives the same batches whatever num_workers. Workers
    stop at the end of each epoch unless persistent_workers."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if isinstance(num_workers, bool) or not isinstance(num_workers, numbers.Integral):
            raise TypeError(f"num_workers option should be an int, but got {type(num_workers).__name__}")
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and (isinstance(prefetch_factor, bool) or
                                            not isinstance(prefetch_factor, numbers.Integral) or prefetch_factor < 1):
            raise ValueError(f"prefetch_factor option should be a positive integer, but got {prefetch_factor!r}")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.multiprocessing_context = resolve_context(multiprocessing_context, num_workers)
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self._iterator = None   # the persistent workers' iterator, reset for each epoch
        if generator is not None and not isinstance(generator, Generator):
            raise TypeError(f"generator should be a loom.Generator, but got {type(generator).__name__}")
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
        it = self._batches()
        return _pinned(it) if self.pin_memory and cuda.is_available() else it

    def _batches(self):
        base_seed = _seed_from(self.generator)
        if self._iterable:
            fetcher, indices, checked = None, itertools.repeat(None), False   # workers fetch until their stream ends
        else:
            fetcher = MapFetcher(self.dataset, self._auto_collation, self.collate_fn)
            indices, checked = self._index_stream(fetcher)
        if self.num_workers > 0:
            if self._iterator is not None and self._iterator.alive:
                self._iterator.reset(indices, checked)
                return self._iterator
            it = MultiProcessIter(self, base_seed, indices, checked)
            if self.persistent_workers:
                self._iterator = it
            return it
        if self._iterable:
            return _stream(IterableFetcher(self.dataset, self._auto_collation, self.collate_fn, self.batch_size,
                                           self.drop_last))
        return (fetcher.fetch(i, checked) for i in indices)

    def _index_stream(self, fetcher):
        """An iterator over each batch's indices (each sample's without auto-collation), and whether they are known
        to be in range: the sampler's index arrays, when the batch is a NumPy gather."""
        if fetcher.gather is not None and type(self.batch_sampler) is BatchSampler:
            arrays = self.batch_sampler._index_arrays()
            if arrays is not None:
                return arrays, True
        return iter(self.batch_sampler if self._auto_collation else self.sampler), False


def _pin(x):
    if isinstance(x, Tensor):
        return x.pin_memory()
    if isinstance(x, (list, tuple)) and not hasattr(x, "_fields"):
        return type(x)(_pin(v) for v in x)
    if isinstance(x, tuple):   # a named tuple
        return type(x)(*(_pin(v) for v in x))
    if isinstance(x, dict):
        return type(x)((k, _pin(v)) for k, v in x.items())
    return x


def _pinned(batches):
    for b in batches:
        yield _pin(b)


def _stream(fetcher):
    while True:
        try:
            batch = fetcher.fetch()
        except StopIteration:
            return
        yield batch
