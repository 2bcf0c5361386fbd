"""The main process's side of DataLoader(num_workers > 0): start the worker processes, hand out index batches
round-robin, and yield the results in task order (or as they arrive, with in_order=False).

Workers are started with 'spawn' unless multiprocessing_context says otherwise: libgomp hangs a forked child
once the parent has run an OpenMP parallel region. Each worker answers on its own pipe; waiting on those pipes
and the workers' sentinels together tells a dead worker from a slow one without polling."""
import itertools
import multiprocessing
import os
import pickle
import signal
import time
import weakref
from multiprocessing.connection import wait

from ._worker import _Exhausted, _Failure, worker_loop

_JOIN_S = 1.0   # how long stopping workers may take to finish before they are terminated


def resolve_context(spec, num_workers):
    """DataLoader's multiprocessing_context argument (None, a start method's name or a context) as a context
    (None: spawn, chosen when workers start)."""
    if spec is None:
        return None
    if num_workers == 0:
        raise ValueError(f"multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                         f"but got num_workers={num_workers}")
    if isinstance(spec, str):
        valid = multiprocessing.get_all_start_methods()
        if spec not in valid:
            raise ValueError(f"multiprocessing_context option should specify a valid start method in {valid!r}, "
                             f"but got multiprocessing_context={spec!r}")
        return multiprocessing.get_context(spec)
    if not isinstance(spec, multiprocessing.context.BaseContext):
        raise TypeError(f"multiprocessing_context option should be a valid context object or a string specifying "
                        f"the start method, but got multiprocessing_context={spec}")
    return spec


class _WorkerPool:
    """num_workers processes, each with an index queue in and a pipe out; shut down once (explicitly, or when the
    pool is collected, or at exit)."""

    def __init__(self, loader, base_seed):
        ctx = loader.multiprocessing_context or multiprocessing.get_context("spawn")
        n = loader.num_workers
        setup = (loader.dataset, loader._iterable, loader._auto_collation, loader.collate_fn, loader.batch_size,
                 loader.drop_last, loader.worker_init_fn)
        if ctx.get_start_method() != "fork":   # pickled once here, so a failure is reported here, clearly
            setup = _pickled(setup, n, ctx.get_start_method())
        self.queues, self.conns, self.procs = [], [], []
        self.dead = set()   # workers whose process has ended
        self.death = None   # the error raised for the first of them needed
        self._finalizer = weakref.finalize(self, _shutdown, os.getpid(), self.queues, self.conns, self.procs)
        for wid in range(n):
            q = ctx.Queue()
            reader, writer = ctx.Pipe(duplex=False)
            p = ctx.Process(target=worker_loop, args=(wid, n, base_seed, setup, q, writer), daemon=True)
            try:
                p.start()
            except BaseException:
                self.shutdown()
                raise
            writer.close()   # the worker holds the only writing end: EOF means it is gone
            self.queues.append(q)
            self.conns.append(reader)
            self.procs.append(p)

    @property
    def alive(self):
        return self._finalizer.alive

    def shutdown(self):
        self._finalizer()

    def died(self, wid):
        """Shut the pool down and raise for worker wid, which ended unexpectedly (and again at every later call)."""
        if self.death is None:
            p = self.procs[wid]
            p.join(_JOIN_S)
            code = p.exitcode
            how = (f"killed by signal {signal.Signals(-code).name}" if code is not None and code < 0
                   else f"exit code {code}")
            self.death = f"DataLoader worker {wid} (pid {p.pid}) exited unexpectedly ({how})"
            self.shutdown()
        raise RuntimeError(self.death)


def _pickled(setup, num_workers, method):
    try:
        return pickle.dumps(setup, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        raise pickle.PicklingError(
            f"DataLoader(num_workers={num_workers}) starts its workers with '{method}', which needs the dataset, "
            f"collate_fn and worker_init_fn picklable (defined at module level, not lambdas or local functions): "
            f"{e}") from e


def _shutdown(owner, queues, conns, procs):
    if os.getpid() != owner:   # a forked child's copy of the pool: the workers are not its own
        return
    for c in conns:
        c.close()   # a worker blocked sending a batch nobody will read gets EPIPE and stops
    for q in queues:
        q.put(None)
    deadline = time.monotonic() + _JOIN_S
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.terminate()
            p.join()
    for q in queues:
        q.cancel_join_thread()   # the feeder may be stuck writing to a worker that is gone
        q.close()


_END = object()


class MultiProcessIter:
    """One epoch over the loader's index batches, fetched by its workers (kept for the next epoch, through
    reset, when persistent_workers)."""

    def __init__(self, loader, base_seed, indices, checked):
        self._pool = _WorkerPool(loader, base_seed)
        self._n, self._prefetch = loader.num_workers, loader.prefetch_factor * loader.num_workers
        self._in_order, self._timeout, self._persistent = loader.in_order, loader.timeout, loader.persistent_workers
        self._epoch = 0
        self._start(indices, checked)

    @property
    def alive(self):
        return self._pool.alive

    def reset(self, indices, checked):
        """The next epoch on the same workers; answers still coming for the last one are dropped."""
        self._epoch += 1
        for q in self._pool.queues:
            q.put(("resume", self._epoch))
        self._start(indices, checked)

    def _start(self, indices, checked):
        self._indices, self._checked = indices, checked
        self._pending = {}   # task -> worker, sent and not answered
        self._arrived = {}   # task -> result, answered and not yet yielded (in arrival order)
        self._active = [True] * self._n   # False once a worker's IterableDataset stream has ended
        self._workers = itertools.cycle(range(self._n))
        self._sent = self._next = 0
        for _ in range(self._prefetch):
            self._send()

    def __iter__(self):
        return self

    def __next__(self):
        result = self._take()
        if result is _END:
            if not self._persistent:
                self._pool.shutdown()
            raise StopIteration
        self._send()
        if isinstance(result, _Failure):
            result.reraise()
        return result

    def _send(self):
        """Hand the next index batch to the next worker still active, round-robin."""
        for _ in range(self._n):
            wid = next(self._workers)
            if self._active[wid]:
                break
        else:
            return
        indices = next(self._indices, _END)
        if indices is _END:
            return
        self._pool.queues[wid].put((self._epoch, self._sent, indices, self._checked))
        self._pending[self._sent] = wid
        self._sent += 1

    def _take(self):
        dead = self._pool.dead
        while True:
            if self._in_order:
                while self._next < self._sent and self._unanswerable(self._next):
                    self._pending.pop(self._next, None)
                    self._next += 1
                if self._next in self._arrived:
                    self._next += 1
                    return self._arrived.pop(self._next - 1)
                if self._next == self._sent:
                    return _END
                if self._pending[self._next] in dead:
                    self._pool.died(self._pending[self._next])
            else:
                if self._arrived:
                    return self._arrived.pop(next(iter(self._arrived)))
                waiting = [w for w in self._pending.values() if self._active[w]]
                if not waiting:
                    return _END
                for w in waiting:
                    if w in dead:
                        self._pool.died(w)
            self._receive()

    def _unanswerable(self, tid):
        """A task no answer will come for: its worker's stream ended at or before it."""
        return tid not in self._arrived and (tid not in self._pending or not self._active[self._pending[tid]])

    def _receive(self):
        """Wait for one answer to this epoch's tasks and file it, or note a worker that has gone (raised for
        when one of its tasks is needed: the answers of the others come first, as they would have)."""
        pool = self._pool
        if pool.death is not None:
            raise RuntimeError(pool.death)
        live = [w for w in range(self._n) if w not in pool.dead]
        deadline = time.monotonic() + self._timeout if self._timeout else None
        while True:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = wait([pool.conns[w] for w in live] + [pool.procs[w].sentinel for w in live], left)
            if not ready:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            wid = next((w for w in live if pool.conns[w] in ready), None)
            if wid is None:   # only a sentinel: the process ended (with its pipe held open elsewhere)
                pool.dead.add(next(w for w in live if pool.procs[w].sentinel in ready))
                return
            try:
                epoch, tid, result = pickle.loads(pool.conns[wid].recv_bytes())
            except EOFError:
                pool.dead.add(wid)
                return
            if epoch != self._epoch:
                continue
            del self._pending[tid]
            if result is _Exhausted:
                self._active[wid] = False
                self._send()
            else:
                self._arrived[tid] = result
            return
