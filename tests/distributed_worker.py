"""Run under mpiexec by tests/test_distributed.py: every collective of loom.distributed on
every dtype, checked against NumPy; any failure raises, which aborts the job non-zero."""
import sys

import numpy as np

import loom
import loom.distributed as dist
from loom.distributed._group import resolve

DTYPES = [loom.bool, loom.uint8, loom.int32, loom.int64, loom.float32, loom.float64]


def data(rank, dt, shape=(3, 4)):
    a = (np.arange(int(np.prod(shape))).reshape(shape) * (rank + 2) % 7 + rank)
    return a.astype(dt.numpy) if dt != loom.bool else (a % 2 == 0)


def eq(got, want, what):
    got = np.asarray(got)
    if got.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check_all_reduce(r, n):
    np_ops = {dist.ReduceOp.SUM: np.sum, dist.ReduceOp.MAX: np.max, dist.ReduceOp.MIN: np.min,
              dist.ReduceOp.PRODUCT: np.prod}
    for dt in DTYPES:
        alls = np.stack([data(k, dt) for k in range(n)])
        for op, f in np_ops.items():
            t = loom.from_numpy(data(r, dt).copy())
            dist.all_reduce(t, op=op)
            want = (alls.any(0) if op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX) else alls.all(0)) \
                if dt == loom.bool else f(alls, axis=0).astype(dt.numpy)
            eq(t, want, f"all_reduce {op} {dt}")
        if dt.is_floating_point:
            t = loom.from_numpy(data(r, dt).copy())
            dist.all_reduce(t, op=dist.ReduceOp.AVG)
            eq(t, alls.mean(0), f"all_reduce AVG {dt}")
    # a non-contiguous tensor stages through a copy that is written back
    base = loom.from_numpy(data(r, loom.float64, (4, 6)).copy())
    view = base.t()
    assert not view.is_contiguous()
    dist.all_reduce(view)
    eq(base, sum(data(k, loom.float64, (4, 6)) for k in range(n)), "all_reduce non-contiguous")
    # zero-copy: the tensor's own memory is what MPI wrote
    t = loom.zeros(5)
    arr = np.asarray(t)
    ptr = t.data_ptr()
    dist.all_reduce(t.add_(1.0))
    assert t.data_ptr() == ptr and arr[0] == n
    # async
    t = loom.ones(1000)
    w = dist.all_reduce(t, async_op=True)
    assert w.wait() and w.is_completed()
    eq(t, np.full(1000, n, np.float32), "async all_reduce")
    try:
        dist.all_reduce(loom.ones(2, dtype=loom.int64), op=dist.ReduceOp.AVG)
        raise AssertionError("AVG on int64 must raise")
    except ValueError:
        pass


def check_every_dtype(r, n):
    """every dtype loom has through all_reduce (blocking calls on contiguous tensors take the short
    way, one C call into MPI, where the platform lets loom find MPI_Allreduce) and broadcast"""
    if sys.platform.startswith("linux"):
        assert resolve(None).short is not None, "the short way was not set up"
    ints = [data(k, loom.int64) for k in range(n)]
    for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                 "complex64", "complex128"):
        dt = getattr(loom, name)
        wide = loom.complex128 if dt.is_complex else loom.float64
        ops = [(dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.MAX, np.max), (dist.ReduceOp.MIN, np.min)]
        for op, f in ops[:1] if dt.is_complex else ops:
            t = loom.from_numpy(ints[r].copy()).to(dt)
            dist.all_reduce(t, op=op)
            want = (f(np.stack(ints), 0) != 0) if dt == loom.bool else f(np.stack(ints), 0)
            eq(t.to(wide), want.astype(np.float64), f"all_reduce {op} {name}")
        if dt.is_complex:
            try:
                dist.all_reduce(loom.ones(2, dtype=dt), op=dist.ReduceOp.MAX)
                raise AssertionError("MAX on a complex tensor must raise")
            except ValueError as e:
                assert "complex" in str(e), e
        t = loom.from_numpy(ints[r].copy()).to(dt)
        dist.broadcast(t, src=n - 1)
        eq(t.to(wide), ints[n - 1].astype(np.float64) != 0 if dt == loom.bool else ints[n - 1], f"broadcast {name}")
    t = loom.ones(3, requires_grad=True) * 1.0   # a non-leaf that requires grad: the data is what changes
    dist.all_reduce(t)
    eq(t.detach(), np.full(3, float(n)), "all_reduce on a tensor that requires grad")


def check_others(r, n):
    for dt in DTYPES:
        t = loom.from_numpy(data(r, dt).copy())
        dist.broadcast(t, src=n - 1)
        eq(t, data(n - 1, dt), f"broadcast {dt}")
        outs = [loom.from_numpy(np.zeros_like(data(0, dt))) for _ in range(n)]
        dist.all_gather(outs, loom.from_numpy(data(r, dt)))
        for k in range(n):
            eq(outs[k], data(k, dt), f"all_gather {dt}")
        big = loom.from_numpy(np.zeros((n * 3, 4), dt.numpy))
        dist.all_gather_into_tensor(big, loom.from_numpy(data(r, dt)))
        eq(big, np.concatenate([data(k, dt) for k in range(n)]), f"all_gather_into_tensor {dt}")
        glist = [loom.from_numpy(np.zeros_like(data(0, dt))) for _ in range(n)] if r == 0 else None
        dist.gather(loom.from_numpy(data(r, dt)), glist, dst=0)
        if r == 0:
            for k in range(n):
                eq(glist[k], data(k, dt), f"gather {dt}")
        out = loom.from_numpy(np.zeros_like(data(0, dt)))
        slist = [loom.from_numpy(data(10 + k, dt)) for k in range(n)] if r == 1 else None
        dist.scatter(out, slist, src=1)
        eq(out, data(10 + r, dt), f"scatter {dt}")
    for dt in (loom.int64, loom.float32, loom.float64):
        # every rank contributes chunk k = data(rank*n + k); rank r receives the sum of chunk r
        inputs = [loom.from_numpy(data(r * n + k, dt)) for k in range(n)]
        out = loom.from_numpy(np.zeros_like(data(0, dt)))
        dist.reduce_scatter(out, inputs)
        eq(out, sum(data(k * n + r, dt) for k in range(n)).astype(dt.numpy), f"reduce_scatter {dt}")
        out2 = loom.from_numpy(np.zeros_like(data(0, dt)))
        dist.reduce_scatter_tensor(out2, loom.from_numpy(np.concatenate([data(r * n + k, dt) for k in range(n)])))
        eq(out2, sum(data(k * n + r, dt) for k in range(n)).astype(dt.numpy), f"reduce_scatter_tensor {dt}")
        red = loom.from_numpy(data(r, dt).copy())
        dist.reduce(red, dst=1, op=dist.ReduceOp.MAX)
        if r == 1:
            eq(red, np.max([data(k, dt) for k in range(n)], 0), f"reduce {dt}")


def check_p2p_groups_objects(r, n):
    if r == 0:
        dist.send(loom.arange(6, dtype=loom.float64) * 3, dst=n - 1)
        w = dist.isend(loom.arange(4), dst=n - 1, tag=7)
        w.wait()
    elif r == n - 1:
        t = loom.zeros(6, dtype=loom.float64)
        assert dist.recv(t, src=None) == 0
        eq(t, np.arange(6) * 3.0, "send/recv")
        u = loom.zeros(4, dtype=loom.int64)
        dist.irecv(u, src=0, tag=7).wait()
        eq(u, np.arange(4), "isend/irecv")
    sub = dist.new_group([0, n - 1])
    t = loom.tensor([float(r)])
    dist.all_reduce(t, group=sub)
    if r in (0, n - 1):
        assert dist.get_world_size(sub) == 2 and dist.get_rank(sub) == (0 if r == 0 else 1)
        eq(t, [float(n - 1)], "all_reduce in a sub-group")
    else:
        assert dist.get_rank(sub) == -1 and float(t.item()) == r
    objs = [None] * n
    dist.all_gather_object(objs, {"rank": r, "s": "x" * r})
    assert objs == [{"rank": k, "s": "x" * k} for k in range(n)], objs
    lst = [r, "hello", (1, 2)] if r == 0 else [None, None, None]
    dist.broadcast_object_list(lst, src=0)
    assert lst == [0, "hello", (1, 2)], lst
    dist.barrier()
    assert dist.barrier(async_op=True).wait()


def main():
    pre_mpi4 = sys.argv[2:] == ["no-float16"]
    if pre_mpi4:   # as an MPI library without MPIX_C_FLOAT16 (Open MPI 4) shows itself to mpi4py
        from mpi4py import MPI
        MPI._typedict["e"] = MPI.DATATYPE_NULL
    dist.init_process_group(backend="mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and n == int(sys.argv[1]), (n, sys.argv)
    if not pre_mpi4:
        check_all_reduce(r, n)
    check_every_dtype(r, n)
    if not pre_mpi4:
        check_others(r, n)
        check_p2p_groups_objects(r, n)
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"rank {r}/{n} ok", flush=True)


if __name__ == "__main__":
    main()
