"""Samplers: the order in which a DataLoader visits a map-style dataset, as torch.utils.data.sampler."""
import math

import numpy as np

from ..._dtype import float64
from ..._generator import Generator, _from_global
from ..._numpy import as_tensor

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]


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


class SubsetRandomSampler(Sampler):
    """The given indices in a fresh random order each iteration."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in self._order():
            yield self.indices[i]

    def _order(self):
        gen = self.generator if self.generator is not None else _from_global()
        return gen._permutation(len(self.indices)).tolist()

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices in [0, len(weights)) drawn with probabilities proportional to weights
    (as torch.multinomial: with replacement, or without it when replacement=False)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        w = as_tensor(weights, dtype=float64)
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        self.weights, self.num_samples, self.replacement, self.generator = w, num_samples, replacement, generator

    def _index_array(self):
        w = self.weights.numpy()
        if not np.isfinite(w).all() or (w < 0).any():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)"
                               if (w < 0).any() else "probability tensor contains either `inf`, `nan` or element < 0")
        total = w.sum()
        if total <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > len(w):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        if not self.replacement and self.num_samples > np.count_nonzero(w):
            raise RuntimeError("invalid multinomial distribution (with replacement=False, not enough non-negative "
                               "category to sample)")
        gen = self.generator if self.generator is not None else _from_global()
        return gen._rng.choice(len(w), size=self.num_samples, replace=self.replacement, p=w / total).astype(np.int64)

    def __iter__(self):
        return iter(self._index_array().tolist())

    def __len__(self):
        return self.num_samples
