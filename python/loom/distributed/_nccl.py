"""The 'nccl' backend: torch.distributed's collectives on CUDA tensors through NCCL.

Ranks come from the launcher as for 'mpi' (mpiexec; MPI carries NCCL's unique id from the
group's first rank to the others), or, for a single process, from rank=0, world_size=1
(no MPI needed). Every call is enqueued on the device's stream, where loom's own kernels
run, and returns at once: results are ordered before any later loom work on the device, and a
copy to the host waits for them (torch's semantics for NCCL)."""
import os

from .._ops import ones, stack
from .._tensor import Tensor
from ..cuda import Event, _lazy_init, synchronize
from ._mpi import mpi
from ._mpi import world as mpi_world
from ..cuda import is_available as cuda_available
from ._process_group import ProcessGroup
from ._nccl_lib import AVG, DTYPES, MAX, MIN, PROD, SUM, check, ffi, library
from ._reduce_op import ReduceOp

_STREAM = ffi.NULL   # the legacy default stream: loom's


class SelfComm:
    """The one-process stand-in for an MPI communicator (object collectives, barrier) when a
    world of size 1 starts without MPI."""

    def Get_rank(self):
        return 0

    def Get_size(self):
        return 1

    def allgather(self, obj):
        return [obj]

    def bcast(self, obj, root):
        return obj

    def gather(self, obj, root):
        return [obj]

    def scatter(self, objs, root):
        return objs[0]

    def Barrier(self):
        pass

    def Free(self):
        pass


class NcclGroup(ProcessGroup):
    """A process group whose tensor collectives run on NCCL; `comm` (MPI, or SelfComm) serves
    the rendezvous and the object collectives."""

    backend = "nccl"

    def __init__(self, comm, ranks, rank):
        super().__init__(comm, ranks)
        self._rank = rank
        self.nccl = None
        if rank >= 0:
            uid = ffi.new("ncclUniqueId *")
            if rank == 0:
                check(library().ncclGetUniqueId(uid), "init_process_group()")
            if len(ranks) > 1:
                got = comm.bcast(bytes(ffi.buffer(uid)), 0)
                ffi.memmove(uid, got, len(got))
            handle = ffi.new("ncclComm_t *")
            check(library().ncclCommInitRank(handle, len(ranks), uid[0], rank), "init_process_group()")
            self.nccl = handle[0]

    def rank(self):
        return self._rank

    def is_member(self):
        return self._rank >= 0

    def release(self):
        if self.nccl is not None:
            synchronize()
            check(library().ncclCommDestroy(self.nccl), "destroy_process_group()")
            self.nccl = None
        if self._rank >= 0:
            self.comm.Free()
        self._rank = -1

    def __repr__(self):
        return f"ProcessGroup(ranks={self.ranks}, backend='nccl')"


def _select_local_device():
    """With several processes on one machine, each takes its own GPU: the launcher's local rank
    picks it through CUDA_VISIBLE_DEVICES, read when loom first touches CUDA (so this must run
    before; a user's own CUDA_VISIBLE_DEVICES wins)."""
    if "CUDA_VISIBLE_DEVICES" in os.environ:
        return
    for key in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK"):
        if key in os.environ:
            os.environ["CUDA_VISIBLE_DEVICES"] = os.environ[key]
            return


def init_world(world_size, rank):
    """The default group: one process (rank 0 of 1) without MPI, else MPI's ranks."""
    single = world_size == 1 and rank in (0, -1, None) and "OMPI_COMM_WORLD_SIZE" not in os.environ
    if not single:
        _select_local_device()
    library()   # NCCL itself first, or the error naming its package
    if not cuda_available():
        try:
            _lazy_init()
            reason = "no GPUs found"
        except RuntimeError as e:   # no CUDA build, no driver
            reason = str(e)
        raise RuntimeError(f"init_process_group(): ProcessGroupNCCL is only supported with GPUs ({reason})")
    if single:
        return NcclGroup(SelfComm(), [0], 0)
    comm, n, r = mpi_world(world_size, rank)
    return NcclGroup(comm.Dup(), range(n), r)


def new_group(world, ranks):
    if isinstance(world.comm, SelfComm):
        return NcclGroup(SelfComm(), ranks, 0)
    comm = world.comm.Create(world.comm.Get_group().Incl(ranks))
    return NcclGroup(comm, ranks, comm.Get_rank() if comm != mpi().COMM_NULL else -1)


# ------------------------------------------------------------------------------------ tensors
def _check(t, what):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: expected a loom Tensor (got {type(t).__name__})")
    if not t.is_cuda:
        raise RuntimeError(f"{what}: the 'nccl' backend takes CUDA tensors; this tensor is on the CPU "
                           f"(use backend='mpi' for CPU tensors)")
    if not t.is_contiguous():
        raise ValueError(f"{what}: Tensors must be contiguous")
    if t.dtype.name not in DTYPES:
        raise TypeError(f"{what}: Unsupported data type for NCCL process group: {t.dtype}")
    return t


def _buf(t, what):
    """(pointer, element count, NCCL dtype): a complex tensor travels as its real pairs."""
    _check(t, what)
    n = t.numel() * (2 if t.dtype.is_complex else 1)
    return ffi.cast("void *", t.data_ptr()), n, DTYPES[t.dtype.name]


def _op(op, t, what):
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{what}: op must be a loom.distributed.ReduceOp (got {op!r})")
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR):
        raise ValueError(f"{what}: Cannot use {op!r} with NCCL")
    if t.dtype.is_complex and op not in (ReduceOp.SUM, ReduceOp.AVG):
        raise ValueError(f"{what}: {op!r} is not supported on complex tensors")
    if op is ReduceOp.AVG and not (t.dtype.is_floating_point or t.dtype.is_complex):
        raise ValueError(f"{what}: ReduceOp.AVG needs a floating point or complex tensor (got {t.dtype})")
    if t.dtype.name == "bool":   # as uint8 0/1: or is max, and is min
        return {ReduceOp.SUM: MAX, ReduceOp.MAX: MAX, ReduceOp.PRODUCT: MIN, ReduceOp.MIN: MIN}[op]
    return {ReduceOp.SUM: SUM, ReduceOp.AVG: AVG, ReduceOp.PRODUCT: PROD, ReduceOp.MIN: MIN, ReduceOp.MAX: MAX}[op]


class NcclWork:
    """The handle of an enqueued NCCL call: later loom work on the device is ordered after it
    already; wait() makes the host wait too only when asked to block (as torch, the stream wait
    is what matters)."""

    def __init__(self, result=None):
        self._event = Event()
        self._event.record()
        self._result = result

    def wait(self, timeout=None):
        return True

    def is_completed(self):
        return self._event.query()

    def is_success(self):
        return self.is_completed()

    def synchronize(self):
        self._event.synchronize()

    def result(self):
        return self._result

    def __repr__(self):
        return f"Work(backend='nccl', completed={self.is_completed()})"


def _done(async_op):
    return NcclWork() if async_op else None


def _group_calls(g, calls, what):
    lib = library()
    check(lib.ncclGroupStart(), what)
    try:
        for c in calls:
            check(c(), what, g.nccl)
    finally:
        check(lib.ncclGroupEnd(), what, g.nccl)


def all_reduce(g, tensor, op, async_op):
    ptr, n, dt = _buf(tensor, "all_reduce()")
    nop = _op(op, tensor, "all_reduce()")
    if g.is_member():
        check(library().ncclAllReduce(ptr, ptr, n, dt, nop, g.nccl, _STREAM), "all_reduce()", g.nccl)
    return _done(async_op)


def broadcast(g, tensor, src, async_op, group_src=None):
    ptr, n, dt = _buf(tensor, "broadcast()")
    if g.is_member():
        root = group_src if group_src is not None else g.to_group_rank(src, "broadcast()")
        check(library().ncclBroadcast(ptr, ptr, n, dt, root, g.nccl, _STREAM), "broadcast()", g.nccl)
    return _done(async_op)


def reduce(g, tensor, dst, op, async_op):
    ptr, n, dt = _buf(tensor, "reduce()")
    nop = _op(op, tensor, "reduce()")
    if g.is_member():
        root = g.to_group_rank(dst, "reduce()")
        check(library().ncclReduce(ptr, ptr, n, dt, nop, root, g.nccl, _STREAM), "reduce()", g.nccl)
    return _done(async_op)


def all_gather_into_tensor(g, output, input, async_op):
    optr, on, dt = _buf(output, "all_gather_into_tensor()")
    iptr, inn, idt = _buf(input, "all_gather_into_tensor()")
    if on != inn * g.size() or output.dtype != input.dtype:
        raise ValueError(f"all_gather_into_tensor(): the output must hold world_size={g.size()} times the input's "
                         f"{input.numel()} elements of the same dtype (got {output.numel()} of {output.dtype})")
    if g.is_member():
        check(library().ncclAllGather(iptr, optr, inn, dt, g.nccl, _STREAM), "all_gather_into_tensor()", g.nccl)
    return _done(async_op)


def all_gather(g, tensor_list, tensor, async_op):
    _buf(tensor, "all_gather()")
    for t in tensor_list:
        _check(t, "all_gather()")
    if g.is_member():
        stage = tensor.new_empty((g.size(),) + tuple(tensor.shape))
        all_gather_into_tensor(g, stage, tensor, False)
        for t, part in zip(tensor_list, stage.unbind(0)):
            t.copy_(part)
    return _done(async_op)


def reduce_scatter_tensor(g, output, input, op, async_op):
    optr, on, dt = _buf(output, "reduce_scatter_tensor()")
    iptr, inn, _ = _buf(input, "reduce_scatter_tensor()")
    nop = _op(op, output, "reduce_scatter_tensor()")
    if inn != on * g.size() or output.dtype != input.dtype:
        raise ValueError(f"reduce_scatter_tensor(): the input must hold world_size={g.size()} times the output's "
                         f"{output.numel()} elements of the same dtype (got {input.numel()} of {input.dtype})")
    if g.is_member():
        check(library().ncclReduceScatter(iptr, optr, on, dt, nop, g.nccl, _STREAM), "reduce_scatter_tensor()",
              g.nccl)
    return _done(async_op)


def reduce_scatter(g, output, input_list, op, async_op):
    _buf(output, "reduce_scatter()")
    for t in input_list:
        _check(t, "reduce_scatter()")
    if g.is_member():
        reduce_scatter_tensor(g, output, stack(list(input_list)), op, False)
    return _done(async_op)


def gather(g, tensor, gather_list, dst, async_op):
    ptr, n, dt = _buf(tensor, "gather()")
    if not g.is_member():
        return _done(async_op)
    root = g.to_group_rank(dst, "gather()")
    lib = library()
    if g.rank() == root:
        if gather_list is None or len(gather_list) != g.size():
            raise ValueError(f"gather(): the destination rank must pass gather_list of world_size={g.size()} tensors")
        parts = [_buf(t, "gather()") for t in gather_list]
        calls = [(lambda p=p, k=k: lib.ncclRecv(p[0], p[1], p[2], k, g.nccl, _STREAM))
                 for k, p in enumerate(parts) if k != root]
        _group_calls(g, calls, "gather()")
        gather_list[root].copy_(tensor)
    else:
        _group_calls(g, [lambda: lib.ncclSend(ptr, n, dt, root, g.nccl, _STREAM)], "gather()")
    return _done(async_op)


def scatter(g, tensor, scatter_list, src, async_op):
    ptr, n, dt = _buf(tensor, "scatter()")
    if not g.is_member():
        return _done(async_op)
    root = g.to_group_rank(src, "scatter()")
    lib = library()
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError(f"scatter(): the source rank must pass scatter_list of world_size={g.size()} tensors")
        parts = [_buf(t, "scatter()") for t in scatter_list]
        calls = [(lambda p=p, k=k: lib.ncclSend(p[0], p[1], p[2], k, g.nccl, _STREAM))
                 for k, p in enumerate(parts) if k != root]
        _group_calls(g, calls, "scatter()")
        tensor.copy_(scatter_list[root])
    else:
        _group_calls(g, [lambda: lib.ncclRecv(ptr, n, dt, root, g.nccl, _STREAM)], "scatter()")
    return _done(async_op)


def send(g, tensor, peer, what):
    ptr, n, dt = _buf(tensor, what)
    _group_calls(g, [lambda: library().ncclSend(ptr, n, dt, peer, g.nccl, _STREAM)], what)


def recv(g, tensor, peer, what):
    if peer is None:
        raise RuntimeError(f"{what}: the 'nccl' backend cannot receive from any source: pass src")
    ptr, n, dt = _buf(tensor, what)
    _group_calls(g, [lambda: library().ncclRecv(ptr, n, dt, peer, g.nccl, _STREAM)], what)


def barrier(g, async_op):
    """As torch's NCCL barrier: a one-element all-reduce on the device, then the host waits."""
    if g.is_member():
        all_reduce(g, ones(1, device="cuda"), ReduceOp.SUM, False)
        synchronize()
    return _done(async_op)
