"""loom.utils.data: Subset, ConcatDataset and random_split (lengths, determinism, errors), and loading them."""
import warnings

import numpy as np
import pytest

import loom
from loom.utils.data import ConcatDataset, DataLoader, Dataset, Subset, TensorDataset, default_collate, random_split


def _dataset(n):
    return TensorDataset(loom.tensor(np.arange(n * 2, dtype=np.float32).reshape(n, 2)), loom.arange(n))


def _split(n, lengths, seed):
    return [list(s) for s in random_split(range(n), lengths, generator=loom.Generator().manual_seed(seed))]


def test_subset():
    s = Subset(range(10, 20), [4, 0, 7])
    assert len(s) == 3 and list(s) == [14, 10, 17] and s[-1] == 17
    assert s.__getitems__([2, 0]) == [17, 14]
    with pytest.raises(IndexError):
        s[3]

    class Bad(Subset):
        def __getitem__(self, i):
            return 0
    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        Bad(range(3), [0])


def test_concat_dataset():
    c = ConcatDataset([range(3), range(10, 14)])
    assert c.cumulative_sizes == [3, 7] and len(c) == 7
    assert [c[i] for i in range(7)] == [0, 1, 2, 10, 11, 12, 13] and c[-1] == 13 and c[-7] == 0
    assert list(_dataset(2) + _dataset(3)) and len(_dataset(2) + _dataset(3)) == 5   # Dataset.__add__
    with pytest.raises(IndexError, match="index 7 is out of range for a dataset of length 7"):
        c[7]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        c[-8]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])


@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (10, [0.3, 0.7]), (30, [0.3, 0.3, 0.4]), (10, [0.33, 0.33, 0.34]),
                                       (7, [0.5, 0.5]), (1000, [0.1] * 10), (0, [0, 0])])
def test_random_split_partitions_with_pytorchs_lengths(n, lengths):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # zero-length splits warn
        expected = [len(s) for s in torch.utils.data.random_split(range(n), lengths)]
        parts = _split(n, lengths, 0)
    assert [len(p) for p in parts] == expected
    assert sorted(sum(parts, [])) == list(range(n))


def test_random_split_is_seeded():
    a = _split(50, [0.2, 0.8], 3)
    assert a == _split(50, [10, 40], 3)          # fractions and the ints they round to give the same split
    assert a != _split(50, [10, 40], 4)
    assert sum(a, []) != list(range(50))         # shuffled
    loom.manual_seed(7)
    b = [list(s) for s in random_split(range(50), [25, 25])]
    loom.manual_seed(7)
    assert b == [list(s) for s in random_split(range(50), [25, 25])]


def test_random_split_errors():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 6])
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(10), [0.5, 0.3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(range(10), [1.5, -0.5])
    with pytest.raises(ValueError, match="lengths must be non-negative"):
        random_split(range(10), [-1, 11])
    with pytest.raises(TypeError, match="lengths that are not fractions summing to 1 must be ints"):
        random_split(range(10), [2.5, 7.5])
    with pytest.raises(TypeError, match="lengths must be ints or fractions, got str"):
        random_split(range(10), ["a", 5])
    with pytest.raises(TypeError, match="generator should be a loom.Generator"):
        random_split(range(10), [5, 5], generator=np.random.default_rng(0))
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(range(3), [0.1, 0.1, 0.8])


def test_loading_subsets_equals_stacking_samples():
    ds = _dataset(20)
    train, val = random_split(ds, [0.75, 0.25], generator=loom.Generator().manual_seed(0))
    nested = Subset(train, [14, -1, 0, 3])
    for part in (train, val, nested, Subset(ds, range(19, -1, -2))):
        want = [default_collate([part[i] for i in range(j, min(j + 4, len(part)))]) for j in range(0, len(part), 4)]
        got = list(DataLoader(part, batch_size=4))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            for a, b in zip(g, w):
                assert a.dtype == b.dtype
                np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert sorted(int(y) for _, ys in DataLoader(train, batch_size=4, shuffle=True) for y in ys.numpy()) == \
        sorted(train.indices)
    with pytest.raises(IndexError):   # a bad Subset index fails where it is used
        list(DataLoader(Subset(ds, [0, 20]), batch_size=2))


class Records(Dataset):
    def __getitem__(self, i):
        return {"i": i}

    def __len__(self):
        return 6


def test_concat_and_subset_of_plain_datasets_load():
    loader = DataLoader(ConcatDataset([Records(), Subset(Records(), [5, 4])]), batch_size=3)
    assert [b["i"].numpy().tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [5, 4]]
