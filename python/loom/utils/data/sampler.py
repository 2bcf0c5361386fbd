"""Samplers: the order in which a DataLoader visits a map-style dataset, as torch.utils.data.sampler."""
import math

import numpy as np

from ..._generator import Generator, _from_global

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler"]


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
