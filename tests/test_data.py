"""loom.utils.data: datasets, samplers, default collate, DataLoader batching and shuffling."""
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import loom
from loom.utils.data import (BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler, SequentialSampler,
                             TensorDataset, default_collate, default_convert)


def _dataset(n=10):
    x = loom.tensor(np.arange(n * 3, dtype=np.float32).reshape(n, 3))
    y = loom.arange(n)
    return TensorDataset(x, y)


def _rows(batches):
    return [int(v) for _, y in batches for v in y.numpy()]


def test_tensor_dataset():
    ds = _dataset()
    assert len(ds) == 10
    x, y = ds[4]
    assert x.numpy().tolist() == [12, 13, 14] and y.item() == 4
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(loom.zeros(3), loom.zeros(4))


@pytest.mark.parametrize("drop_last,expected_len,last", [(False, 4, 1), (True, 3, 3)])
def test_batches_in_order(drop_last, expected_len, last):
    loader = DataLoader(_dataset(), batch_size=3, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(batches) == expected_len
    assert isinstance(batches[0], list) and len(batches[0]) == 2   # tuples collate to lists, as PyTorch
    x, y = batches[0]
    assert x.shape == (3, 3) and x.dtype == loom.float32 and y.dtype == loom.int64
    np.testing.assert_array_equal(x.numpy(), np.arange(9).reshape(3, 3))
    assert len(batches[-1][1]) == last
    assert _rows(batches) == list(range(9 if drop_last else 10))


def test_fast_path_equals_per_sample_stacking():
    ds = _dataset(7)
    x = loom.tensor(np.arange(7 * 4, dtype=np.float64).reshape(4, 7)).T   # non-contiguous rows
    ds = TensorDataset(x, ds.tensors[1], loom.tensor([True, False] * 3 + [True]))
    g = loom.Generator().manual_seed(3)
    fast = list(DataLoader(ds, batch_size=3, shuffle=True, generator=g))
    g.manual_seed(3)
    slow = list(DataLoader(ds, batch_size=3, shuffle=True, generator=g, collate_fn=lambda b: default_collate(b)))
    for fb, sb in zip(fast, slow):
        for a, b in zip(fb, sb):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a.numpy(), b.numpy())
    # batches are copies: writing into one leaves the dataset alone
    fast[0][0].fill_(-1)
    assert ds.tensors[0].numpy().min() >= 0


def test_shuffle_covers_every_sample_and_is_seeded():
    ds = _dataset(23)
    g = loom.Generator().manual_seed(0)
    loader = DataLoader(ds, batch_size=4, shuffle=True, generator=g)
    first, second = _rows(loader), _rows(loader)
    assert sorted(first) == sorted(second) == list(range(23))
    assert first != list(range(23)) and first != second   # a new order each epoch
    g.manual_seed(0)
    assert _rows(loader) == first
    other = DataLoader(ds, batch_size=4, shuffle=True, generator=loom.Generator().manual_seed(1))
    assert _rows(other) != first


def test_shuffle_default_follows_manual_seed():
    ds = _dataset(30)
    loom.manual_seed(5)
    a = _rows(DataLoader(ds, batch_size=7, shuffle=True))
    loom.manual_seed(5)
    b = _rows(DataLoader(ds, batch_size=7, shuffle=True))
    assert a == b and sorted(a) == list(range(30))


def test_generator_state_round_trip():
    g = loom.Generator().manual_seed(11)
    assert g.initial_seed() == 11
    state = g.get_state()
    a = list(RandomSampler(range(9), generator=g))
    g.set_state(state)
    assert list(RandomSampler(range(9), generator=g)) == a
    with pytest.raises(RuntimeError, match="set_state"):
        g.set_state(loom.zeros(3, dtype=loom.uint8))


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    s = RandomSampler(range(5), replacement=True, num_samples=12, generator=loom.Generator().manual_seed(0))
    draws = list(s)
    assert len(s) == len(draws) == 12 and all(0 <= d < 5 for d in draws)
    s = RandomSampler(range(5), num_samples=12, generator=loom.Generator().manual_seed(0))
    assert sorted(list(s)[:10]) == sorted(list(range(5)) * 2)
    assert list(BatchSampler(range(7), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer value"):
        BatchSampler(range(7), 0, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value"):
        BatchSampler(range(7), 2, 1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
        RandomSampler([])


def test_collate_nested_structures():
    Point = namedtuple("Point", "x y")
    batch = [{"img": np.full((2, 2), i, dtype=np.float32), "label": i, "w": i * 0.5, "name": f"s{i}",
              "pair": (loom.tensor([i, i + 1]), [i, -i]), "pt": Point(i, 2.0 * i)} for i in range(3)]
    out = default_collate(batch)
    assert list(out) == ["img", "label", "w", "name", "pair", "pt"]
    assert out["img"].shape == (3, 2, 2) and out["img"].dtype == loom.float32
    assert out["label"].dtype == loom.int64 and out["label"].numpy().tolist() == [0, 1, 2]
    assert out["w"].dtype == loom.float64 and out["w"].numpy().tolist() == [0, 0.5, 1.0]
    assert out["name"] == ["s0", "s1", "s2"]
    t, lst = out["pair"]
    assert t.numpy().tolist() == [[0, 1], [1, 2], [2, 3]]
    assert [v.numpy().tolist() for v in lst] == [[0, 1, 2], [0, -1, -2]]
    assert isinstance(out["pt"], Point) and out["pt"].y.numpy().tolist() == [0, 2, 4]
    od = default_collate([OrderedDict(b=1, a=2)] * 2)
    assert isinstance(od, OrderedDict) and list(od) == ["b", "a"]
    assert default_collate([np.float32(1), np.float32(2)]).dtype == loom.float32
    assert default_collate([True, False]).dtype == loom.bool


def test_collate_errors():
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([object(), object()])
    with pytest.raises(RuntimeError, match="stack"):
        default_collate([loom.zeros(2), loom.zeros(3)])


def test_default_convert_and_unbatched_loading():
    assert default_convert((np.ones(2), 3))[0].dtype == loom.float64
    loader = DataLoader(_dataset(4), batch_size=None)
    items = list(loader)
    assert len(loader) == 4 and items[2][1].item() == 2 and items[2][0].shape == (3,)


class Squares(Dataset):
    def __getitem__(self, i):
        return {"x": loom.tensor([float(i)]), "y": i * i}

    def __len__(self):
        return 5


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(7))

    def __len__(self):
        return 7


def test_map_and_iterable_datasets_with_collate_fn():
    batches = list(DataLoader(Squares(), batch_size=2))
    assert [b["y"].numpy().tolist() for b in batches] == [[0, 1], [4, 9], [16]]
    assert batches[0]["x"].shape == (2, 1)
    sums = list(DataLoader(Squares(), batch_size=2, collate_fn=lambda b: sum(s["y"] for s in b)))
    assert sums == [1, 13, 16]
    stream = DataLoader(Stream(), batch_size=3, drop_last=True)
    assert [b.numpy().tolist() for b in stream] == [[0, 1, 2], [3, 4, 5]] and len(stream) == 2
    with pytest.raises(ValueError, match="expected unspecified shuffle option"):
        DataLoader(Stream(), shuffle=True)


def test_loader_argument_errors():
    ds = _dataset()
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_size=4, batch_sampler=BatchSampler(SequentialSampler(ds), 2, False))
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader(ds, batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)
    with pytest.raises(TypeError, match="generator should be a loom.Generator"):
        DataLoader(ds, shuffle=True, generator=np.random.default_rng(0))
    with pytest.raises(TypeError, match="generator should be a loom.Generator"):
        DataLoader(ds, generator=1)
    loader = DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, True))
    assert _rows(loader) == list(range(8))
