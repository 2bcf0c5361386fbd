"""Map-style and iterable datasets, their subsets and concatenations, as torch.utils.data.dataset."""
import bisect
import itertools
import math
import numbers
import operator
import warnings

from ..._generator import Generator, _from_global
from ..._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "ConcatDataset", "random_split"]


class Dataset:
    """A map-style dataset: __getitem__(index) and usually __len__."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


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


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        # the DataLoader fetches batches through __getitems__, which would bypass an overridden __getitem__
        if type(self).__getitem__ is not Subset.__getitem__ and type(self).__getitems__ is Subset.__getitems__:
            raise NotImplementedError(f"{type(self).__name__} overrides __getitem__ but not __getitems__; a Subset "
                                      f"subclass must override both so that the DataLoader uses its __getitem__")
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The samples of each dataset in turn; cumulative_sizes[i] is the length of datasets[:i + 1]."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += n
        if idx >= n:
            raise IndexError(f"ConcatDataset: index {idx} is out of range for a dataset of length {n}")
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[which][idx - (self.cumulative_sizes[which - 1] if which else 0)]


def random_split(dataset, lengths, generator=None):
    """Split `dataset` into non-overlapping Subsets of the given lengths, over one random permutation.

    Fractions summing to 1 become floor(fraction * len(dataset)) each, the remainder handed out one by one
    from the first split on. Without a generator the permutation follows loom.manual_seed."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"random_split(): generator should be a loom.Generator, but got {type(generator).__name__}")
    lengths = list(lengths)
    if not all(isinstance(x, numbers.Real) for x in lengths):
        bad = next(x for x in lengths if not isinstance(x, numbers.Real))
        raise TypeError(f"random_split(): lengths must be ints or fractions, got {type(bad).__name__}")
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _fraction_lengths(lengths, n)
    if any(x < 0 for x in lengths):
        raise ValueError(f"random_split(): lengths must be non-negative, got {lengths}")
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    try:
        lengths = [operator.index(x) for x in lengths]
    except TypeError:
        raise TypeError(f"random_split(): lengths that are not fractions summing to 1 must be ints, got "
                        f"{lengths}") from None
    order = (generator if generator is not None else _from_global())._permutation(n).tolist()
    return [Subset(dataset, order[end - k:end]) for end, k in zip(itertools.accumulate(lengths), lengths)]


def _fraction_lengths(fractions, n):
    for i, f in enumerate(fractions):
        if not 0 <= f <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
    lengths = [math.floor(n * f) for f in fractions]
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, k in enumerate(lengths):
        if k == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=3)
    return lengths


class ChainDataset(IterableDataset):
    """The samples of several iterable datasets, one after another (lazily)."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class StackDataset(Dataset):
    """Sample i is the tuple (or dict, given keywords) of each dataset's sample i."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        self.datasets = kwargs if kwargs else args
        sizes = {len(d) for d in (kwargs.values() if kwargs else args)}
        if len(sizes) != 1:
            raise ValueError("Size mismatch between datasets")
        self._length = sizes.pop()

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length
