"""DataLoader(num_workers > 0): worker processes started with spawn give the batches one process gives, seed
themselves from base_seed + worker id, shard IterableDatasets through get_worker_info, and report failures.

Each loader here starts its workers once (about a second with spawn), so the checks are grouped per loader."""
import os
import pickle
import random
import signal
import sys
import time

import numpy as np
import pytest

import loom
from loom._generator import _seed_from
from loom.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

WAIT_S = 60   # a batch's longest wait: a hang fails the test instead of stalling the suite


class Seeds(Dataset):
    """Sample i: what the worker fetching it knows and draws."""

    def __getitem__(self, i):
        info = get_worker_info()
        return {"i": i, "id": info.id, "workers": info.num_workers, "seed": info.seed, "pid": os.getpid(),
                "loom": loom.rand(1, dtype=loom.float64).item(), "random": random.random(),
                "numpy": np.random.random(), "init": os.environ.get("LOOM_TEST_WORKER_INIT", "")}

    def __len__(self):
        return 8


def mark_worker(worker_id):
    os.environ["LOOM_TEST_WORKER_INIT"] = f"ran in {worker_id}"


class Shards(IterableDataset):
    """Worker k streams k, k + num_workers, ... below 11: uneven, so one worker ends first."""

    def __iter__(self):
        info = get_worker_info()
        return iter(range(info.id, 11, info.num_workers))


class Faulty(Dataset):
    def __getitem__(self, i):
        if i == 3:
            raise KeyError("no sample 3")
        if i == 6:
            os._exit(7)
        return i

    def __len__(self):
        return 10


def _tensor_dataset(n=23):
    return TensorDataset(loom.tensor(np.arange(n * 2, dtype=np.float32).reshape(n, 2)), loom.arange(n))


def _as_lists(batches):
    return [[t.tolist() for t in b] for b in batches]


def test_workers_give_the_same_batches_as_one_process_every_epoch():
    ds = _tensor_dataset()
    one = DataLoader(ds, batch_size=4, shuffle=True, generator=loom.Generator().manual_seed(3))
    two = DataLoader(ds, batch_size=4, shuffle=True, generator=loom.Generator().manual_seed(3), num_workers=2,
                     timeout=WAIT_S, persistent_workers=True, prefetch_factor=1)
    for _ in range(2):
        want = _as_lists(one)
        assert _as_lists(two) == want and len(want) == 6
    it = iter(two)
    assert iter(two) is it   # persistent workers: one iterator, reset for each epoch
    assert next(it)[0].dtype == loom.float32
    iter(one), iter(one)     # the same draws from the generator
    assert _as_lists(two) == _as_lists(one)   # an epoch left half-way does not leak into the next


def test_worker_seeds_info_and_init_fn():
    loader = DataLoader(Seeds(), batch_size=None, num_workers=2, timeout=WAIT_S, worker_init_fn=mark_worker,
                        generator=loom.Generator().manual_seed(5), in_order=False)
    samples = sorted(loader, key=lambda s: s["i"])   # in_order=False: as they arrive
    base_seed = _seed_from(loom.Generator().manual_seed(5))   # the loader's first draw from its generator
    assert [s["i"] for s in samples] == list(range(8))
    assert [s["id"] for s in samples] == [0, 1] * 4 and {s["workers"] for s in samples} == {2}
    assert len({s["pid"] for s in samples} | {os.getpid()}) == 3
    for wid in (0, 1):
        mine = [s for s in samples if s["id"] == wid]
        seed = base_seed + wid
        assert {s["seed"] for s in mine} == {seed} and {s["init"] for s in mine} == {f"ran in {wid}"}
        loom.manual_seed(seed)
        assert [s["loom"] for s in mine] == [loom.rand(1, dtype=loom.float64).item() for _ in mine]
        random.seed(seed)
        assert [s["random"] for s in mine] == [random.random() for _ in mine]
    assert len({s["numpy"] for s in samples}) == 8   # NumPy seeded differently per worker
    assert get_worker_info() is None


def test_iterable_dataset_sharded_across_workers():
    batches = [b.tolist() for b in DataLoader(Shards(), batch_size=2, num_workers=2, timeout=WAIT_S)]
    assert batches == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9]]   # round-robin over the workers


def test_worker_failures_reach_the_main_process():
    it = iter(DataLoader(Faulty(), batch_size=None, num_workers=2, timeout=WAIT_S))
    got = [next(it) for _ in range(3)]
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 1") as e:
        next(it)
    assert "no sample 3" in str(e.value)
    got += [next(it), next(it)]   # the iterator goes on after a sample's error
    assert got == [0, 1, 2, 4, 5]
    for _ in range(2):   # and then reports the death at every call
        with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid \d+\) exited unexpectedly \(exit code 7\)"):
            next(it)
    with pytest.raises(KeyError, match="in DataLoader worker process"):   # a loop over the loader sees it too
        list(DataLoader(Faulty(), batch_size=2, num_workers=2, timeout=WAIT_S, sampler=[0, 1, 2, 3]))


def test_worker_arguments():
    ds = _tensor_dataset(4)
    with pytest.raises(pickle.PicklingError, match="must be picklable|needs the dataset, collate_fn"):
        iter(DataLoader(ds, num_workers=2, collate_fn=lambda b: b))
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified in multiprocessing"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="prefetch_factor option should be a positive integer"):
        DataLoader(ds, num_workers=1, prefetch_factor=0)
    with pytest.raises(ValueError, match="multiprocessing_context can only be used with multi-process loading"):
        DataLoader(ds, multiprocessing_context="spawn")
    with pytest.raises(ValueError, match="should specify a valid start method"):
        DataLoader(ds, num_workers=1, multiprocessing_context="thread")
    with pytest.raises(TypeError, match="should be a valid context object"):
        DataLoader(ds, num_workers=1, multiprocessing_context=3)
    with pytest.raises(TypeError, match="num_workers option should be an int"):
        DataLoader(ds, num_workers=1.5)


class KilledBySignal(Dataset):
    """Sample 2 kills its worker with SIGKILL (as the OOM killer would)."""

    def __getitem__(self, i):
        if i == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return i

    def __len__(self):
        return 6


class Ragged(Dataset):
    """Sample 5 has another shape than the others."""

    def __getitem__(self, i):
        return loom.ones(2 if i == 5 else 3)

    def __len__(self):
        return 8


def test_worker_killed_by_a_signal_is_a_clear_error_not_a_hang():
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \d \(pid \d+\) exited unexpectedly \(killed by signal "
                                           r"SIGKILL\)"):
        list(DataLoader(KilledBySignal(), batch_size=None, num_workers=2, timeout=WAIT_S))
    assert time.monotonic() - start < WAIT_S   # found by the liveness check, not by the timeout


def test_a_worker_exception_carries_its_traceback_text():
    with pytest.raises(KeyError) as e:
        list(DataLoader(Faulty(), batch_size=None, num_workers=1, timeout=WAIT_S, sampler=[3]))
    text = str(e.value)
    assert "Caught KeyError in DataLoader worker process 0.\nOriginal Traceback (most recent call last):" in text
    assert 'raise KeyError("no sample 3")' in text and "in __getitem__" in text   # the worker's own frame


@pytest.mark.parametrize("workers", [0, 1])
def test_inconsistent_shapes_name_the_sample(workers):
    kw = dict(num_workers=workers, timeout=WAIT_S) if workers else {}
    with pytest.raises(ValueError, match=r"stack expects each tensor to be equal size, but got \[3\] at entry 0 and "
                                         r"\[2\] at entry 1") as e:
        list(DataLoader(Ragged(), batch_size=4, **kw))   # batch 2 holds samples 4..7: entry 1 is sample 5
    text = str(e.value) if workers else "\n".join(getattr(e.value, "__notes__", []))
    if sys.version_info >= (3, 11):   # exception notes
        assert "while collating the samples at dataset indices [4, 5, 6, 7]" in text
