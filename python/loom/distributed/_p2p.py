"""Point-to-point: send/recv (blocking) and isend/irecv (Work handles). Ranks are global."""
from . import _nccl as nccl
from ._buffers import Buf
from ._group import resolve
from ._work import Work
from ._mpi import mpi


def _peer(g, rank, what):
    if rank is None:
        return mpi().ANY_SOURCE
    return g.to_group_rank(rank, what)


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    g = resolve(group)
    if g.backend == "nccl":   # (NCCL has no tags: messages between two ranks arrive in order)
        return nccl.send(g, tensor, group_dst if group_dst is not None else g.to_group_rank(dst, "send()"), "send()")
    b = Buf(tensor, "send()", False)
    g.comm.Send(b.array, group_dst if group_dst is not None else _peer(g, dst, "send()"), tag)


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Returns the sender's global rank (useful with src=None: any sender)."""
    g = resolve(group)
    if g.backend == "nccl":
        peer = group_src if group_src is not None else None if src is None else g.to_group_rank(src, "recv()")
        nccl.recv(g, tensor, peer, "recv()")
        return g.ranks[peer]
    b = Buf(tensor, "recv()")
    status = mpi().Status()
    g.comm.Recv(b.array, group_src if group_src is not None else _peer(g, src, "recv()"), tag, status)
    b.writeback()
    return g.ranks[status.Get_source()]


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    g = resolve(group)
    if g.backend == "nccl":
        nccl.send(g, tensor, group_dst if group_dst is not None else g.to_group_rank(dst, "isend()"), "isend()")
        return nccl.NcclWork()
    b = Buf(tensor, "isend()", False)
    return Work([g.comm.Isend(b.array, group_dst if group_dst is not None else _peer(g, dst, "isend()"), tag)])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    g = resolve(group)
    if g.backend == "nccl":
        nccl.recv(g, tensor, group_src if group_src is not None else None if src is None else
                  g.to_group_rank(src, "irecv()"), "irecv()")
        return nccl.NcclWork()
    b = Buf(tensor, "irecv()")
    req = g.comm.Irecv(b.array, group_src if group_src is not None else _peer(g, src, "irecv()"), tag)
    return Work([req], b.writeback)
