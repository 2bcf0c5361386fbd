"""A DataLoader worker process: its seeds, get_worker_info() and the loop fetching batches for the main process.

Messages: the main process puts (epoch, task, indices, checked) on the worker's index queue, ("resume", epoch)
before a persistent worker's next epoch and None to stop it; the worker answers each task with
(epoch, task, result) pickled on its own pipe, where result is the batch, a _Failure or _Exhausted."""
import dataclasses
import os
import pickle
import queue
import random
import sys
import traceback

import numpy as np

from ..._runtime import manual_seed, set_num_threads
from ._fetch import IterableFetcher, MapFetcher

_POLL_S = 1.0   # how often an idle worker checks that the main process is still there


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """What get_worker_info() tells code running in a worker: to shard an IterableDataset, or seed per worker."""
    id: int
    num_workers: int
    seed: int
    dataset: object


_info = None


def get_worker_info():
    """In a DataLoader worker, its WorkerInfo (id, num_workers, seed, and its copy of the dataset); None in the
    main process."""
    return _info


class _Exhausted:
    """An IterableDataset worker's answer once its stream has ended (the class itself: it pickles by name)."""


class _Failure:
    """An exception raised in a worker, carried to the main process and raised there as the same type."""

    def __init__(self, worker_id):
        self.exc_type = sys.exc_info()[0]
        self.message = (f"Caught {self.exc_type.__name__} in DataLoader worker process {worker_id}.\n"
                        f"Original {traceback.format_exc()}")

    def reraise(self):
        # KeyError shows repr(message): a str whose repr is itself keeps the traceback readable
        message = _Verbatim(self.message) if issubclass(self.exc_type, KeyError) else self.message
        try:
            exc = self.exc_type(message)
        except Exception:   # an exception type whose constructor wants other arguments
            raise RuntimeError(self.message) from None
        raise exc


class _Verbatim(str):
    def __repr__(self):
        return str(self)


def _seed(worker_id, base_seed):
    """Seed Python's, NumPy's and loom's global generators from base_seed + worker_id, as PyTorch's workers."""
    seed = base_seed + worker_id
    random.seed(seed)
    manual_seed(seed)
    np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
    set_num_threads(1)   # the workers share the cores: one thread each
    return seed


def _fetcher(setup):
    dataset, iterable, auto_collation, collate_fn, batch_size, drop_last, _ = setup
    if iterable:
        return IterableFetcher(dataset, auto_collation, collate_fn, batch_size, drop_last)
    return MapFetcher(dataset, auto_collation, collate_fn)


def worker_loop(worker_id, num_workers, base_seed, setup, index_queue, conn):
    """setup: (dataset, iterable, auto_collation, collate_fn, batch_size, drop_last, worker_init_fn), or those
    pickled (every start method but fork)."""
    global _info
    parent, fetcher, failure, ended = os.getppid(), None, None, False
    try:
        seed = _seed(worker_id, base_seed)
        if isinstance(setup, bytes):
            setup = pickle.loads(setup)
        _info = WorkerInfo(worker_id, num_workers, seed, setup[0])
        if setup[-1] is not None:
            setup[-1](worker_id)
        fetcher = _fetcher(setup)
    except Exception:
        failure = _Failure(worker_id)
    try:
        while True:
            try:
                task = index_queue.get(timeout=_POLL_S)
            except queue.Empty:
                if os.getppid() != parent:   # the main process is gone
                    return
                continue
            if task is None:
                return
            if task[0] == "resume":
                ended = False
                if failure is None:
                    fetcher = _fetcher(setup)
                continue
            if ended:   # the stream ended this epoch: no answer, the main process no longer waits for one
                continue
            epoch, tid, indices, checked = task
            result = failure
            if failure is None:
                try:
                    result = fetcher.fetch(indices, checked)
                except StopIteration:
                    result, ended = _Exhausted, True
                except Exception:
                    result = _Failure(worker_id)
            _send(conn, epoch, tid, result, worker_id)
            del result
    except KeyboardInterrupt:   # Ctrl-C reaches the whole process group; the main process handles it
        pass
    except (BrokenPipeError, EOFError, ConnectionResetError):   # the main process stopped listening
        pass


def _send(conn, epoch, tid, result, worker_id):
    try:
        payload = pickle.dumps((epoch, tid, result), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        payload = pickle.dumps((epoch, tid, _Failure(worker_id)))
    conn.send_bytes(payload)
