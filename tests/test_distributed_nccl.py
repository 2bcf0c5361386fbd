"""loom.distributed's 'nccl' backend. The error paths run everywhere; the collectives need a
CUDA device and the NCCL library (nvidia-nccl-cu13) and skip naming whichever is absent. One
GPU serves a group of one process (NCCL refuses two ranks on one device), which still runs
every call through NCCL; the two-process test needs two GPUs and mpiexec."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import loom
import loom.distributed as dist
from loom.distributed import ReduceOp

HAVE_GPU = loom.cuda.is_available()
HAVE_NCCL = dist.is_nccl_available()
needs_nccl = pytest.mark.skipif(not (HAVE_GPU and HAVE_NCCL),
                                reason="no CUDA device" if not HAVE_GPU else "no NCCL library (pip install loom[nccl])")


def run(code, **env):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


def test_missing_library_names_the_package():
    p = run("""
        import loom.distributed as dist
        assert not dist.is_nccl_available()
        try:
            dist.init_process_group("nccl", rank=0, world_size=1)
        except RuntimeError as e:
            print(e)
        assert not dist.is_initialized()
        """, LOOM_NCCL_LIBRARY="/nonexistent/libnccl.so.2")
    assert p.returncode == 0, p.stderr
    assert "nvidia-nccl-cu13" in p.stdout and "pip install loom[nccl]" in p.stdout


@pytest.mark.skipif(HAVE_GPU or not HAVE_NCCL, reason="needs the NCCL library and no GPU")
def test_no_gpu_is_a_clear_error():
    with pytest.raises(RuntimeError, match="ProcessGroupNCCL is only supported with GPUs"):
        dist.init_process_group("nccl", rank=0, world_size=1)
    assert not dist.is_initialized()


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown or unsupported backend 'gloo'"):
        dist.init_process_group("gloo")


@pytest.fixture
def group():
    dist.init_process_group("nccl", rank=0, world_size=1)
    try:
        yield
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


def cuda(values, dtype=loom.float32):
    return loom.tensor(values, dtype=dtype).cuda()


@needs_nccl
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8"])
def test_all_reduce_every_op_and_dtype(group, dtype):
    dt = getattr(loom, dtype)
    assert dist.get_backend() == "nccl" and dist.get_rank() == 0 and dist.get_world_size() == 1
    ops = [ReduceOp.SUM, ReduceOp.PRODUCT, ReduceOp.MIN, ReduceOp.MAX] + ([ReduceOp.AVG] if dt.is_floating_point else [])
    for op in ops:
        t = cuda([[1, 2, 3], [4, 5, 6]], dt)
        assert dist.all_reduce(t, op=op) is None
        np.testing.assert_array_equal(t.cpu().float().numpy(), [[1, 2, 3], [4, 5, 6]])


@needs_nccl
def test_collectives_move_the_data(group):
    x = cuda(np.arange(6.0).reshape(2, 3))
    dist.broadcast(x, src=0)
    out = loom.zeros(4, 3).cuda()[:2].contiguous()
    dist.all_gather_into_tensor(out, x)
    np.testing.assert_array_equal(out.cpu().numpy(), x.cpu().numpy())
    parts = [loom.zeros(2, 3).cuda()]
    dist.all_gather(parts, x)
    np.testing.assert_array_equal(parts[0].cpu().numpy(), x.cpu().numpy())
    y = loom.zeros(2, 3).cuda()
    dist.reduce_scatter_tensor(y, x)
    np.testing.assert_array_equal(y.cpu().numpy(), x.cpu().numpy())
    z = loom.zeros(2, 3).cuda()
    dist.reduce_scatter(z, [x])
    np.testing.assert_array_equal(z.cpu().numpy(), x.cpu().numpy())
    r = x.clone()
    dist.reduce(r, dst=0, op=ReduceOp.MAX)
    np.testing.assert_array_equal(r.cpu().numpy(), x.cpu().numpy())
    g = [loom.zeros(2, 3).cuda()]
    dist.gather(x, gather_list=g, dst=0)
    np.testing.assert_array_equal(g[0].cpu().numpy(), x.cpu().numpy())
    s = loom.zeros(2, 3).cuda()
    dist.scatter(s, scatter_list=[x], src=0)
    np.testing.assert_array_equal(s.cpu().numpy(), x.cpu().numpy())
    c = loom.tensor([1 + 2j, 3 - 1j], dtype=loom.complex64).cuda()
    dist.all_reduce(c, op=ReduceOp.AVG)
    np.testing.assert_array_equal(c.cpu().numpy(), [1 + 2j, 3 - 1j])
    b = cuda([True, False], loom.bool)
    dist.all_reduce(b)
    assert b.cpu().tolist() == [True, False]
    work = dist.all_reduce(x, async_op=True)
    assert work.wait() is True
    loom.cuda.synchronize()
    assert work.is_completed()
    dist.barrier()
    objs = [None]
    dist.all_gather_object(objs, {"rank": 0})
    assert objs == [{"rank": 0}]
    sub = dist.new_group([0])
    dist.all_reduce(x, group=sub)
    np.testing.assert_array_equal(x.cpu().numpy(), np.arange(6.0).reshape(2, 3))


@needs_nccl
def test_nccl_errors_name_the_call(group):
    with pytest.raises(RuntimeError, match="all_reduce\\(\\): the 'nccl' backend takes CUDA tensors"):
        dist.all_reduce(loom.ones(3))
    with pytest.raises(ValueError, match="Tensors must be contiguous"):
        dist.all_reduce(loom.ones(3, 4).cuda().t())
    with pytest.raises(TypeError, match="Unsupported data type for NCCL"):
        dist.all_reduce(loom.ones(3, dtype=loom.int16).cuda())
    with pytest.raises(ValueError, match="Cannot use .*BAND.* with NCCL"):
        dist.all_reduce(loom.ones(3, dtype=loom.int32).cuda(), op=ReduceOp.BAND)
    with pytest.raises(ValueError, match="not supported on complex"):
        dist.all_reduce(loom.ones(3, dtype=loom.complex64).cuda(), op=ReduceOp.MAX)
    with pytest.raises(RuntimeError, match="cannot receive from any source"):
        dist.recv(loom.ones(3).cuda())


@needs_nccl
def test_ddp_on_cuda_matches_plain_training(group):
    loom.manual_seed(0)
    model = loom.nn.Sequential(loom.nn.Linear(8, 16), loom.nn.ReLU(), loom.nn.Linear(16, 4)).cuda()
    plain = loom.nn.Sequential(loom.nn.Linear(8, 16), loom.nn.ReLU(), loom.nn.Linear(16, 4)).cuda()
    plain.load_state_dict(model.state_dict())
    ddp = loom.nn.parallel.DistributedDataParallel(model)
    x, y = loom.randn(32, 8).cuda(), loom.randn(32, 4).cuda()
    for m in (ddp, plain):
        loom.nn.functional.mse_loss(m(x), y).backward()
    for p, q in zip(model.parameters(), plain.parameters()):
        assert p.grad.is_cuda
        np.testing.assert_allclose(p.grad.cpu().numpy(), q.grad.cpu().numpy(), rtol=1e-6, atol=1e-7)


MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))


@pytest.mark.skipif(not (HAVE_NCCL and HAVE_GPU and loom.cuda.device_count() >= 2 and MPIEXEC),
                    reason="needs two GPUs, NCCL and mpiexec")
def test_two_ranks_on_two_gpus():
    code = textwrap.dedent("""
        import loom, loom.distributed as dist
        dist.init_process_group("nccl")
        r = dist.get_rank()
        t = loom.full((4,), float(r + 1)).cuda()
        dist.all_reduce(t)
        assert t.cpu().tolist() == [3.0] * 4, t
        out = loom.zeros(8).cuda()
        dist.all_gather_into_tensor(out, loom.full((4,), float(r)).cuda())
        assert out.cpu().tolist() == [0.0] * 4 + [1.0] * 4
        print("rank", r, "ok")
        dist.destroy_process_group()
        """)
    p = subprocess.run([MPIEXEC, "--oversubscribe", "-n", "2", sys.executable, "-c", code], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(p.stdout.split("\n"))[-2:] == ["rank 0 ok", "rank 1 ok"]
