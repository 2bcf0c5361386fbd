"""The default process group, new_group, and rank translation (loom ranks are global ranks,
as in torch.distributed; MPI calls take ranks within the group's communicator)."""
import sys

from ._mpi import mpi


class Backend:
    MPI = "mpi"
    NCCL = "nccl"
    GLOO = "gloo"


class ProcessGroup:
    """A set of global ranks and the MPI communicator that joins them."""

    def __init__(self, comm, ranks):
        self.comm = comm           # MPI.COMM_NULL on ranks outside the group
        self.ranks = list(ranks)   # global ranks, in group-rank order

    def rank(self):
        return self.comm.Get_rank() if self.is_member() else -1

    def size(self):
        return len(self.ranks)

    def is_member(self):
        return self.comm != mpi().COMM_NULL

    def to_group_rank(self, global_rank, what):
        if global_rank not in self.ranks:
            raise ValueError(f"{what}: rank {global_rank} is not part of the group (its ranks are {self.ranks})")
        return self.ranks.index(global_rank)

    def __repr__(self):
        return f"ProcessGroup(ranks={self.ranks})"


class _State:
    world = None
    groups = []
    backend = None
    excepthook = None


_state = _State()


def is_initialized():
    return _state.world is not None


def _default():
    if _state.world is None:
        raise RuntimeError("Default process group has not been initialized, please make sure to call "
                           "init_process_group.")
    return _state.world


def resolve(group):
    return _default() if group is None else group


def _abort_on_uncaught(exc_type, exc, tb):
    """A rank that dies from an exception takes the job with it: its peers would otherwise
    block forever in their next collective (mpi4py's `python -m mpi4py` does the same)."""
    prev = _state.excepthook or sys.__excepthook__
    prev(exc_type, exc, tb)
    try:
        sys.stderr.flush()
        mpi().COMM_WORLD.Abort(1)
    except Exception:
        pass


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    if backend is not None and str(backend).lower() == "nccl":
        raise RuntimeError("init_process_group(): the 'nccl' backend needs loom's CUDA build with NCCL, and this "
                           "build has neither; use backend='mpi' for CPU tensors")
    if backend is not None and str(backend).lower() not in ("mpi", "cpu:mpi"):
        raise ValueError(f"init_process_group(): unknown or unsupported backend {backend!r} (loom has 'mpi'; "
                         f"'nccl' needs the CUDA build)")
    if _state.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    MPI = mpi()
    if not MPI.Is_initialized():
        MPI.Init_thread()
    comm = MPI.COMM_WORLD
    n, r = comm.Get_size(), comm.Get_rank()
    # as torch's mpi backend: the launcher decides ranks; given ones must agree with it
    if world_size not in (-1, None) and world_size != n:
        raise ValueError(f"init_process_group(): world_size={world_size} but the MPI launcher started {n} processes")
    if rank not in (-1, None) and rank != r:
        raise ValueError(f"init_process_group(): rank={rank} but MPI gave this process rank {r}")
    _state.world = ProcessGroup(comm.Dup(), range(n))
    _state.backend = "mpi"
    if sys.excepthook is not _abort_on_uncaught:
        _state.excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught


def destroy_process_group(group=None):
    if group is None or group is _state.world:
        for g in _state.groups + ([_state.world] if _state.world else []):
            if g.is_member():
                g.comm.Free()
        _state.groups, _state.world, _state.backend = [], None, None
        if sys.excepthook is _abort_on_uncaught:
            sys.excepthook = _state.excepthook or sys.__excepthook__
        return
    if group.is_member():
        group.comm.Free()
    group.comm = mpi().COMM_NULL
    if group in _state.groups:
        _state.groups.remove(group)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False):
    """Every rank of the default group must call it (as in torch.distributed)."""
    world = _default()
    ranks = list(range(world.size())) if ranks is None else sorted(int(x) for x in ranks)
    for x in ranks:
        if not 0 <= x < world.size():
            raise ValueError(f"new_group(): rank {x} is out of range for a world of size {world.size()}")
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"new_group(): ranks {ranks} repeat a rank")
    comm = world.comm.Create(world.comm.Get_group().Incl(ranks))
    g = ProcessGroup(comm, ranks)
    _state.groups.append(g)
    return g


def get_backend(group=None):
    resolve(group)
    return _state.backend


def get_rank(group=None):
    return resolve(group).rank()


def get_world_size(group=None):
    g = resolve(group)
    return g.size() if g.is_member() else -1


def get_process_group_ranks(group):
    return list(resolve(group).ranks)


def get_group_rank(group, global_rank):
    g = resolve(group)
    return g.ranks.index(global_rank) if global_rank in g.ranks else -1


def get_global_rank(group, group_rank):
    return resolve(group).ranks[group_rank]
