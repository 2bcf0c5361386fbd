"""all_reduce of float32 tensors across local MPI ranks: loom.distributed vs raw mpi4py
Allreduce on NumPy buffers (the ratio is what loom's layer costs), and the DDP digits-CNN
training step at N ranks vs 1.

    python tools/bench/distributed.py [-n 2]        (starts itself under mpiexec)
"""
import os
import subprocess
import sys
import time

SIZES = [("1 KB", 256), ("1 MB", 256 * 1024), ("100 MB", 25 * 1024 * 1024)]


def best(fn, reps, comm, rounds=5):
    return min(_once(fn, reps, comm) for _ in range(rounds))


def _once(fn, reps, comm):
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    comm.Barrier()
    return (time.perf_counter() - t0) / reps


def paired(f, g, reps, comm, rounds=7):
    """Best of rounds for each, the two alternating so that load from other processes on the
    machine falls on both alike."""
    a = b = float("inf")
    for _ in range(rounds):
        a, b = min(a, _once(f, reps, comm)), min(b, _once(g, reps, comm))
    return a, b


def worker():
    import numpy as np
    from mpi4py import MPI

    import loom
    import loom.distributed as dist
    dist.init_process_group("mpi")
    comm, r = MPI.COMM_WORLD, dist.get_rank()
    rows = []
    for name, n in SIZES:
        reps = 200 if n < 1e5 else (20 if n < 1e7 else 3)
        a = np.ones(n, np.float32)
        t = loom.ones(n)
        raw, ours = paired(lambda: comm.Allreduce(MPI.IN_PLACE, a, MPI.SUM), lambda: dist.all_reduce(t), reps, comm)
        rows.append((name, raw, ours))
    step_times = ddp_step(dist, comm)
    if r == 0:
        for name, raw, ours in rows:
            print(f"all_reduce {name:>7}: mpi4py {raw * 1e6:10.1f} us   loom {ours * 1e6:10.1f} us   "
                  f"loom/mpi4py speed {raw / ours:.2f}x")
        print(f"DDP digits-CNN step (global batch 64): {step_times * 1e3:.2f} ms at {dist.get_world_size()} ranks")
    dist.destroy_process_group()


def ddp_step(dist, comm):
    """One training step of the digits CNN at a fixed global batch of 64, split over the ranks."""
    import numpy as np

    import loom
    from loom import nn
    from loom.examples.digits import make_model
    from loom.nn.parallel import DistributedDataParallel
    loom.manual_seed(0)
    n = dist.get_world_size()
    net = DistributedDataParallel(make_model("cnn")) if n > 1 else make_model("cnn")
    opt = loom.optim.Adam(net.parameters(), lr=1e-3)
    rs = np.random.RandomState(dist.get_rank())
    x = loom.from_numpy(rs.randn(64 // n, 1, 8, 8).astype(np.float32))
    y = loom.from_numpy(rs.randint(0, 10, 64 // n).astype(np.int64))

    def step():
        opt.zero_grad()
        nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    for _ in range(10):
        step()
    return best(step, 30, comm)


def main():
    if os.environ.get("OMPI_COMM_WORLD_RANK") is not None or os.environ.get("PMI_RANK") is not None:
        return worker()
    n = int(sys.argv[sys.argv.index("-n") + 1]) if "-n" in sys.argv else 2
    for k in sorted({1, n}):
        subprocess.run([sys.executable, "-m", "loom.distributed.run", "-n", str(k), __file__], check=True)


if __name__ == "__main__":
    main()
