"""Tensor collectives of torch.distributed on MPI. Ranks given by the caller (src, dst) are
global ranks; tensors are MPI buffers (see _buffers). async_op=True uses MPI's non-blocking
collectives and returns a Work; otherwise the call returns None once the data is in place."""
import numpy as np

from . import _nccl as nccl
from .._C import lib
from .._tensor import Tensor
from ._buffers import Buf, host_array
from ._group import resolve
from ._mpi import mpi
from ._reduce_op import ReduceOp, finish_avg, mpi_op
from ._work import Work, done


_SUM = ReduceOp.SUM


def _launch(comm_call, blocking_call, async_op, finish):
    if async_op:
        return Work([comm_call()], finish)
    blocking_call()
    finish()
    return None


def _same(tensors, ref, what):
    for t in tensors:
        if tuple(t.shape) != tuple(ref.shape) or t.dtype != ref.dtype:
            raise ValueError(f"{what}: every tensor in the list must have shape {list(ref.shape)} and dtype "
                             f"{ref.dtype} (got {list(t.shape)}, {t.dtype})")


def _count(lst, g, what):
    if len(lst) != g.size():
        raise ValueError(f"{what}: the tensor list must hold world_size={g.size()} tensors (got {len(lst)})")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    g = resolve(group)
    short = g.short
    if short is not None and not async_op and isinstance(tensor, Tensor):
        rc = lib.lm_mpi_allreduce(tensor._h, short.sum if op is _SUM else short.table(op))
        if rc == 0:
            return None
        if rc > 0:
            raise mpi().Exception(rc)
    if g.backend == "nccl":
        return nccl.all_reduce(g, tensor, op, async_op)
    b = Buf(tensor, "all_reduce()", reduces=True)
    mop = mpi_op(op, b.array, "all_reduce()")
    if not g.is_member():
        return done() if async_op else None
    inplace = mpi().IN_PLACE

    def finish():
        finish_avg(op, b.array, g.size())
        b.writeback()
    return _launch(lambda: g.comm.Iallreduce(inplace, b.array, mop), lambda: g.comm.Allreduce(inplace, b.array, mop),
                   async_op, finish)


def broadcast(tensor, src=0, group=None, async_op=False, group_src=None):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.broadcast(g, tensor, src, async_op, group_src)
    b = Buf(tensor, "broadcast()")
    if not g.is_member():
        return done() if async_op else None
    root = group_src if group_src is not None else g.to_group_rank(src, "broadcast()")
    return _launch(lambda: g.comm.Ibcast(b.array, root), lambda: g.comm.Bcast(b.array, root), async_op, b.writeback)


def reduce(tensor, dst=0, op=ReduceOp.SUM, group=None, async_op=False):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.reduce(g, tensor, dst, op, async_op)
    b = Buf(tensor, "reduce()", reduces=True)
    mop = mpi_op(op, b.array, "reduce()")
    if not g.is_member():
        return done() if async_op else None
    root = g.to_group_rank(dst, "reduce()")
    me = g.rank() == root
    send = mpi().IN_PLACE if me else b.array
    recv = b.array if me else None

    def finish():
        if me:
            finish_avg(op, b.array, g.size())
            b.writeback()
    return _launch(lambda: g.comm.Ireduce(send, recv, mop, root), lambda: g.comm.Reduce(send, recv, mop, root),
                   async_op, finish)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.all_gather_into_tensor(g, output_tensor, input_tensor, async_op)
    out, inp = Buf(output_tensor, "all_gather_into_tensor()"), Buf(input_tensor, "all_gather_into_tensor()", False)
    if out.array.size != inp.array.size * g.size() or out.array.dtype != inp.array.dtype:
        raise ValueError(f"all_gather_into_tensor(): the output must hold world_size={g.size()} times the input's "
                         f"{inp.array.size} elements of the same dtype (got {out.array.size} of {out.array.dtype})")
    if not g.is_member():
        return done() if async_op else None
    return _launch(lambda: g.comm.Iallgather(inp.array, out.array), lambda: g.comm.Allgather(inp.array, out.array),
                   async_op, out.writeback)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    g = resolve(group)
    _count(tensor_list, g, "all_gather()")
    _same(tensor_list, tensor, "all_gather()")
    if g.backend == "nccl":
        return nccl.all_gather(g, tensor_list, tensor, async_op)
    inp = Buf(tensor, "all_gather()", False)
    if not g.is_member():
        return done() if async_op else None
    stage = np.empty((g.size(),) + inp.array.shape, inp.array.dtype)

    def finish():
        for t, part in zip(tensor_list, stage):
            host_array(t)[...] = part
    return _launch(lambda: g.comm.Iallgather(inp.array, stage), lambda: g.comm.Allgather(inp.array, stage),
                   async_op, finish)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.reduce_scatter_tensor(g, output, input, op, async_op)
    out = Buf(output, "reduce_scatter_tensor()", reduces=True)
    inp = Buf(input, "reduce_scatter_tensor()", False, reduces=True)
    mop = mpi_op(op, out.array, "reduce_scatter_tensor()")
    if inp.array.size != out.array.size * g.size() or out.array.dtype != inp.array.dtype:
        raise ValueError(f"reduce_scatter_tensor(): the input must hold world_size={g.size()} times the output's "
                         f"{out.array.size} elements of the same dtype (got {inp.array.size} of {inp.array.dtype})")
    if not g.is_member():
        return done() if async_op else None

    def finish():
        finish_avg(op, out.array, g.size())
        out.writeback()
    return _launch(lambda: g.comm.Ireduce_scatter_block(inp.array, out.array, mop),
                   lambda: g.comm.Reduce_scatter_block(inp.array, out.array, mop), async_op, finish)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    g = resolve(group)
    _count(input_list, g, "reduce_scatter()")
    _same(input_list, output, "reduce_scatter()")
    if g.backend == "nccl":
        return nccl.reduce_scatter(g, output, input_list, op, async_op)
    out = Buf(output, "reduce_scatter()", reduces=True)
    mop = mpi_op(op, out.array, "reduce_scatter()")
    if not g.is_member():
        return done() if async_op else None
    send = np.stack([host_array(t, reduces=True) for t in input_list]) if input_list else out.array[:0]

    def finish():
        finish_avg(op, out.array, g.size())
        out.writeback()
    return _launch(lambda: g.comm.Ireduce_scatter_block(send, out.array, mop),
                   lambda: g.comm.Reduce_scatter_block(send, out.array, mop), async_op, finish)


def gather(tensor, gather_list=None, dst=0, group=None, async_op=False):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.gather(g, tensor, gather_list, dst, async_op)
    inp = Buf(tensor, "gather()", False)
    if not g.is_member():
        return done() if async_op else None
    root = g.to_group_rank(dst, "gather()")
    me = g.rank() == root
    if me:
        if gather_list is None:
            raise ValueError("gather(): the destination rank must pass gather_list")
        _count(gather_list, g, "gather()")
        _same(gather_list, tensor, "gather()")
    elif gather_list:
        raise ValueError("gather(): gather_list must be given only on the destination rank")
    stage = np.empty((g.size(),) + inp.array.shape, inp.array.dtype) if me else None

    def finish():
        if me:
            for t, part in zip(gather_list, stage):
                host_array(t)[...] = part
    return _launch(lambda: g.comm.Igather(inp.array, stage, root), lambda: g.comm.Gather(inp.array, stage, root),
                   async_op, finish)


def scatter(tensor, scatter_list=None, src=0, group=None, async_op=False):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.scatter(g, tensor, scatter_list, src, async_op)
    out = Buf(tensor, "scatter()")
    if not g.is_member():
        return done() if async_op else None
    root = g.to_group_rank(src, "scatter()")
    me = g.rank() == root
    if me:
        if scatter_list is None:
            raise ValueError("scatter(): the source rank must pass scatter_list")
        _count(scatter_list, g, "scatter()")
        _same(scatter_list, tensor, "scatter()")
        send = np.stack([host_array(t) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("scatter(): scatter_list must be given only on the source rank")
        send = None
    return _launch(lambda: g.comm.Iscatter(send, out.array, root), lambda: g.comm.Scatter(send, out.array, root),
                   async_op, out.writeback)


def barrier(group=None, async_op=False, device_ids=None):
    g = resolve(group)
    if g.backend == "nccl":
        return nccl.barrier(g, async_op)
    if not g.is_member():
        return done() if async_op else None
    return _launch(lambda: g.comm.Ibarrier(), lambda: g.comm.Barrier(), async_op, lambda: None)
