"""Collectives of small picklable Python objects (mpi4py's pickle-based lower-case calls)."""
from ._group import resolve


def all_gather_object(object_list, obj, group=None):
    g = resolve(group)
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object(): object_list must hold world_size={g.size()} entries "
                         f"(got {len(object_list)})")
    if not g.is_member():
        return
    object_list[:] = g.comm.allgather(obj)


def broadcast_object_list(object_list, src=0, group=None, device=None, group_src=None):
    g = resolve(group)
    if not g.is_member():
        return
    root = group_src if group_src is not None else g.to_group_rank(src, "broadcast_object_list()")
    got = g.comm.bcast(list(object_list) if g.rank() == root else None, root)
    object_list[:] = got


def gather_object(obj, object_gather_list=None, dst=0, group=None, group_dst=None):
    g = resolve(group)
    if not g.is_member():
        return
    root = group_dst if group_dst is not None else g.to_group_rank(dst, "gather_object()")
    got = g.comm.gather(obj, root)
    if g.rank() == root:
        if object_gather_list is None or len(object_gather_list) != g.size():
            raise ValueError(f"gather_object(): the destination must pass object_gather_list of world_size="
                             f"{g.size()} entries")
        object_gather_list[:] = got


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=0, group=None,
                        group_src=None):
    g = resolve(group)
    if not g.is_member():
        return
    root = group_src if group_src is not None else g.to_group_rank(src, "scatter_object_list()")
    scatter_object_output_list[0] = g.comm.scatter(
        list(scatter_object_input_list) if g.rank() == root else None, root)
