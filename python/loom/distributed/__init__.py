"""loom.distributed: torch.distributed's API on MPI (through mpi4py, the `distributed` extra) for
CPU tensors and on NCCL (the `nccl` extra) for CUDA tensors.

Start processes with `mpiexec -n N python script.py` (or `python -m loom.distributed.run -n N
script.py`), then call init_process_group(backend="mpi") or ("nccl"): rank and world size come
from MPI. A single process may use NCCL without MPI: init_process_group("nccl", rank=0, world_size=1)."""
from ._collectives import (all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast, gather, reduce,
                           reduce_scatter, reduce_scatter_tensor, scatter)
from ._group import (Backend, ProcessGroup, destroy_process_group, get_backend, get_global_rank, get_group_rank,
                     get_process_group_ranks, get_rank, get_world_size, init_process_group, is_initialized,
                     new_group)
from ._mpi import available as _mpi_available
from ._nccl_lib import available as _nccl_available
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list
from ._p2p import irecv, isend, recv, send
from ._reduce_op import ReduceOp
from ._work import Work

GroupMember = type("GroupMember", (), {"WORLD": None, "NON_GROUP_MEMBER": -100})


def is_available():
    """True: loom.distributed is part of every build (the MPI backend needs mpi4py at init)."""
    return True


def is_mpi_available():
    return _mpi_available()


def is_nccl_available():
    """Whether the NCCL library loads (the `nccl` extra); running it needs a CUDA device too."""
    return _nccl_available()


__all__ = ["Backend", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_gather_object",
           "all_reduce", "barrier", "broadcast", "broadcast_object_list", "destroy_process_group", "gather",
           "gather_object", "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks",
           "get_rank", "get_world_size", "init_process_group", "irecv", "is_available", "is_initialized",
           "is_mpi_available", "is_nccl_available", "isend", "new_group", "recv", "reduce", "reduce_scatter",
           "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]
