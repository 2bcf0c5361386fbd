"""loom.distributed on real MPI process groups, started with mpiexec (each run bounded by a
timeout so that a hang fails the test instead of the suite)."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
try:
    import mpi4py  # noqa: F401
    HAVE_MPI4PY = True
except ImportError:
    HAVE_MPI4PY = False

needs_mpi = pytest.mark.skipif(not (HAVE_MPI4PY and MPIEXEC),
                               reason="no mpi4py or no mpiexec (install with `pip install loom[distributed]`)")


def mpirun(n, args, timeout=30):
    cmd = [MPIEXEC, "--oversubscribe", "-n", str(n)]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONUNBUFFERED="1")
    return subprocess.run(cmd + [sys.executable] + args, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=HERE)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_every_collective_against_numpy(n):
    p = mpirun(n, [os.path.join(HERE, "distributed_worker.py"), str(n)])
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(line for line in p.stdout.splitlines() if line.startswith("rank")) == \
        [f"rank {k}/{n} ok" for k in range(n)]


@needs_mpi
def test_float16_on_an_mpi_library_without_it():
    """float16 moves as its bits and reduces through float32 where MPI has no float16 datatype"""
    p = mpirun(2, [os.path.join(HERE, "distributed_worker.py"), "2", "no-float16"])
    assert p.returncode == 0, p.stdout + p.stderr
    assert sorted(line for line in p.stdout.splitlines() if line.startswith("rank")) == ["rank 0/2 ok", "rank 1/2 ok"]


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_ddp_equals_one_process_and_the_sampler_splits_uneven_data(n):
    p = mpirun(n, [os.path.join(HERE, "distributed_ddp_worker.py"), str(n)])
    assert p.returncode == 0, p.stdout + p.stderr
    assert sum(line.endswith("ddp ok") for line in p.stdout.splitlines()) == n


def test_distributed_sampler_matches_torchs_split():
    from loom.utils.data.distributed import DistributedSampler
    # PyTorch's padding: the first indices repeat so that every replica gets ceil(n / replicas)
    parts = [list(DistributedSampler(range(7), num_replicas=3, rank=k, shuffle=False)) for k in range(3)]
    assert parts == [[0, 3, 6], [1, 4, 0], [2, 5, 1]]
    parts = [list(DistributedSampler(range(7), num_replicas=3, rank=k, shuffle=False, drop_last=True))
             for k in range(3)]
    assert parts == [[0, 3], [1, 4], [2, 5]]
    a = DistributedSampler(range(10), num_replicas=2, rank=0, seed=5)
    first = list(a)
    assert first == list(DistributedSampler(range(10), num_replicas=2, rank=0, seed=5))
    a.set_epoch(1)
    assert sorted(first + list(DistributedSampler(range(10), num_replicas=2, rank=1, seed=5))) == list(range(10))
    assert list(a) != first
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(range(4), num_replicas=2, rank=2)


@needs_mpi
def test_a_rank_that_raises_fails_the_job_instead_of_hanging(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text(textwrap.dedent("""
        import loom, loom.distributed as dist
        dist.init_process_group("mpi")
        if dist.get_rank() == 1:
            raise RuntimeError("rank 1 gives up")
        dist.all_reduce(loom.ones(3))   # rank 0 would wait here forever
        dist.barrier()
    """))
    p = mpirun(2, [str(script)], timeout=30)
    assert p.returncode != 0
    assert "rank 1 gives up" in p.stderr


def test_without_mpi4py_init_names_the_package_and_the_install_command(tmp_path):
    shim = tmp_path / "block_mpi4py.py"
    shim.write_text(textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "mpi4py" or name.startswith("mpi4py."):
                    raise ImportError("No module named 'mpi4py'")
        sys.meta_path.insert(0, Block())
        import loom.distributed as dist
        assert dist.is_available() and not dist.is_mpi_available()
        try:
            dist.init_process_group("mpi")
        except ImportError as e:
            print("ERR", e)
    """))
    p = subprocess.run([sys.executable, str(shim)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "mpi4py" in p.stdout and "pip install loom[distributed]" in p.stdout


def test_unknown_backend_and_no_group():   # (the nccl backend: tests/test_distributed_nccl.py)
    import loom.distributed as dist
    with pytest.raises(ValueError, match="backend"):
        dist.init_process_group("bogus")
    assert not dist.is_initialized()
    with pytest.raises(RuntimeError, match="init_process_group"):
        dist.get_rank()


def test_launcher_command_adds_oversubscribe_and_passes_arguments_through():
    from loom.distributed.run import command
    cmd = command(["-n", "3", "--mpiexec", sys.executable, "train.py", "--epochs", "2"])
    assert cmd[:3] == [sys.executable, "-n", "3"] and cmd[-3:] == ["train.py", "--epochs", "2"]
    with pytest.raises(SystemExit):
        command(["-n", "0", "x.py"])


@needs_mpi
def test_launcher_starts_the_ranks(tmp_path):
    script = tmp_path / "hello.py"
    script.write_text("import sys, loom.distributed as d\nd.init_process_group('mpi')\n"
                      "print('hello', d.get_rank(), d.get_world_size(), sys.argv[1:])\n")
    p = subprocess.run([sys.executable, "-m", "loom.distributed.run", "-n", "2", str(script), "a", "--b"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert sorted(p.stdout.split("\n")[:2]) == ["hello 0 2 ['a', '--b']", "hello 1 2 ['a', '--b']"]
