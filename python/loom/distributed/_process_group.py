"""A process group: global ranks and the communicator joining them (MPI, or NCCL's in _nccl)."""
from ._mpi import mpi
from ._short import ShortAllreduce


class ProcessGroup:
    """A set of global ranks and the MPI communicator that joins them."""
    backend = "mpi"

    def __init__(self, comm, ranks):
        self.comm = comm           # MPI.COMM_NULL on ranks outside the group
        self.ranks = list(ranks)   # global ranks, in group-rank order
        self.short = ShortAllreduce.for_comm(comm) if self.backend == "mpi" and self.is_member() else None

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

    def release(self):
        if self.is_member():
            self.comm.Free()
        self.comm, self.short = mpi().COMM_NULL, None

    def __repr__(self):
        return f"ProcessGroup(ranks={self.ranks})"
