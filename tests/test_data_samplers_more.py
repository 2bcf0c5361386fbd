"""SubsetRandomSampler, WeightedRandomSampler, ChainDataset, StackDataset and DistributedSampler as
torch.utils.data exports them: draws, lengths, DataLoader use, and PyTorch's argument errors."""
import collections

import pytest

import loom
from loom.utils.data import (ChainDataset, DataLoader, DistributedSampler, IterableDataset, StackDataset,
                             SubsetRandomSampler, TensorDataset, WeightedRandomSampler)


def test_subset_random_sampler_permutes_its_indices():
    loom.manual_seed(0)
    s = SubsetRandomSampler([10, 20, 30, 40])
    a, b = list(s), list(s)
    assert sorted(a) == [10, 20, 30, 40] and len(s) == 4
    assert a != b or sorted(b) == sorted(a)
    g1, g2 = loom.Generator().manual_seed(3), loom.Generator().manual_seed(3)
    assert list(SubsetRandomSampler(range(50), generator=g1)) == list(SubsetRandomSampler(range(50), generator=g2))
    assert list(SubsetRandomSampler(range(50), generator=loom.Generator().manual_seed(3))) != list(range(50))


def test_weighted_sampler_follows_the_weights():
    loom.manual_seed(1)
    draws = list(WeightedRandomSampler([0.1, 0.0, 0.9], 20000))
    counts = collections.Counter(draws)
    assert counts[1] == 0 and abs(counts[2] / 20000 - 0.9) < 0.02
    s = WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], 4, replacement=False)
    assert sorted(s) == [0, 1, 2, 3] and len(s) == 4
    assert s.weights.dtype == loom.float64
    ds = TensorDataset(loom.arange(3.0))
    batches = list(DataLoader(ds, batch_size=5, sampler=WeightedRandomSampler([0, 0, 1.0], 10)))
    assert [b[0].tolist() for b in batches] == [[2.0] * 5] * 2


@pytest.mark.parametrize("make, err, msg", [
    (lambda: WeightedRandomSampler([1.0, 2.0], 0), ValueError, "num_samples should be a positive integer value, but got num_samples=0"),
    (lambda: WeightedRandomSampler([[1.0, 2.0]], 2), ValueError, "weights should be a 1d sequence but given weights have shape (1, 2)"),
    (lambda: WeightedRandomSampler([1.0, 2.0], 2, replacement=1), ValueError, "replacement should be a boolean value, but got replacement=1"),
    (lambda: list(WeightedRandomSampler([1.0, 2.0], 3, replacement=False)), RuntimeError, "cannot sample n_sample > prob_dist.size(-1) samples without replacement"),
    (lambda: list(WeightedRandomSampler([-1.0, 2.0], 3)), RuntimeError, "invalid multinomial distribution (encountering probability entry < 0)"),
    (lambda: list(WeightedRandomSampler([0.0, 0.0], 3)), RuntimeError, "invalid multinomial distribution (sum of probabilities <= 0)"),
    (lambda: StackDataset(), ValueError, "At least one dataset should be passed"),
    (lambda: StackDataset([1], a=[2]), ValueError, "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like input/output, but both types are given."),
    (lambda: StackDataset([1], [1, 2]), ValueError, "Size mismatch between datasets"),
])
def test_errors_are_pytorchs(make, err, msg):
    with pytest.raises(err) as e:
        make()
    assert str(e.value) == msg


def test_stack_and_chain_datasets():
    s = StackDataset([1, 2], loom.arange(2) * 10)
    assert s[1][0] == 2 and int(s[1][1]) == 10 and len(s) == 2
    d = StackDataset(x=[1, 2], y=["a", "b"])
    assert d[0] == {"x": 1, "y": "a"}
    assert [b["y"] for b in DataLoader(d, batch_size=2)] == [["a", "b"]]

    class Count(IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n

    c = ChainDataset([Count(2), Count(3)])
    assert list(c) == [0, 1, 0, 1, 2] and len(c) == 5
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(ChainDataset([[1, 2]]))


def test_distributed_sampler_is_exported_and_splits():
    parts = [list(DistributedSampler(list(range(10)), num_replicas=3, rank=r, shuffle=False)) for r in range(3)]
    assert parts == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    assert set(sum(parts, [])) == set(range(10)) and len(sum(parts, [])) == 12   # padded to 3 x 4, as torch
