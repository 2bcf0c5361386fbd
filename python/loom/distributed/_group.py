"""The default process group, new_group, and rank translation (loom ranks are global ranks,
as in torch.distributed; MPI calls take ranks within the group's communicator)."""
import sys

from . import _nccl as nccl
from ._mpi import mpi
from ._mpi import world as mpi_world
from ._process_group import ProcessGroup


class Backend:
    MPI = "mpi"
    NCCL = "nccl"
    GLOO = "gloo"


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
    name = "mpi" if backend is None else str(backend).lower()
    if name not in ("mpi", "cpu:mpi", "nccl", "cuda:nccl"):
        raise ValueError(f"init_process_group(): unknown or unsupported backend {backend!r} (loom has 'mpi' for CPU "
                         f"tensors and 'nccl' for CUDA tensors)")
    if _state.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if name.endswith("nccl"):
        _state.world = nccl.init_world(world_size, rank)
        _state.backend = "nccl"
        if isinstance(_state.world.comm, nccl.SelfComm):
            return
    else:
        comm, n, _ = mpi_world(world_size, rank)
        _state.world = ProcessGroup(comm.Dup(), range(n))
        _state.backend = "mpi"
    if sys.excepthook is not _abort_on_uncaught:
        _state.excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught


def destroy_process_group(group=None):
    if group is None or group is _state.world:
        for g in _state.groups + ([_state.world] if _state.world else []):
            g.release()
        _state.groups, _state.world, _state.backend = [], None, None
        if sys.excepthook is _abort_on_uncaught:
            sys.excepthook = _state.excepthook or sys.__excepthook__
        return
    group.release()
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
    if world.backend == "nccl":
        g = nccl.new_group(world, ranks)
    else:
        g = ProcessGroup(world.comm.Create(world.comm.Get_group().Incl(ranks)), ranks)
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
