"""Run under mpiexec by tests/test_distributed.py: DistributedDataParallel against a
single-process run of the same global batch, no_sync, find_unused_parameters, and
DistributedSampler's split of uneven data. Any failure raises (the job exits non-zero)."""
import sys

import numpy as np

import loom
import loom.distributed as dist
from loom import nn
from loom.nn.parallel import DistributedDataParallel as DDP
from loom.utils.data.distributed import DistributedSampler


def make(dtype):
    return nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).to(dtype)


def batch(dtype, n, seed):
    rs = np.random.RandomState(seed)
    return loom.from_numpy(rs.randn(n, 5)).to(dtype), loom.from_numpy(rs.randn(n, 3)).to(dtype)


def params(m):
    return [np.asarray(p.detach()).copy() for p in m.parameters()]


def check_equivalence(r, n, dtype, tol):
    loom.manual_seed(100 + r)   # different on every rank: DDP must broadcast rank 0's
    local = make(dtype)
    ref = make(dtype)
    ddp = DDP(local, bucket_cap_mb=0.0001)   # tiny buckets: several all-reduces in flight
    ref.load_state_dict(local.state_dict())
    opt, ref_opt = loom.optim.SGD(ddp.parameters(), lr=0.1), loom.optim.SGD(ref.parameters(), lr=0.1)
    per = 4
    for step in range(5):
        x, y = batch(dtype, per * n, step)
        opt.zero_grad()
        nn.functional.mse_loss(ddp(x[r * per:(r + 1) * per]), y[r * per:(r + 1) * per]).backward()
        opt.step()
        ref_opt.zero_grad()
        nn.functional.mse_loss(ref(x), y).backward()
        ref_opt.step()
    for a, b in zip(params(local), params(ref)):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol, err_msg=f"DDP vs one process, {dtype}")
    # no_sync: the first micro-batch accumulates locally, the second backward averages the sum
    x, y = batch(dtype, per * n * 2, 99)
    opt.zero_grad()
    ref_opt.zero_grad()
    for k in range(2):
        xs, ys = x[k * per * n:(k + 1) * per * n], y[k * per * n:(k + 1) * per * n]
        if k == 0:
            with ddp.no_sync():
                nn.functional.mse_loss(ddp(xs[r * per:(r + 1) * per]), ys[r * per:(r + 1) * per]).backward()
            mine = params(local)
        else:
            nn.functional.mse_loss(ddp(xs[r * per:(r + 1) * per]), ys[r * per:(r + 1) * per]).backward()
        nn.functional.mse_loss(ref(xs), ys).backward()
    for p, q in zip(local.parameters(), ref.parameters()):
        np.testing.assert_allclose(np.asarray(p.grad), np.asarray(q.grad), rtol=tol, atol=tol, err_msg="no_sync")
    assert all(np.array_equal(a, b) for a, b in zip(mine, params(local)))
    assert ddp.module is local


class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.used, self.unused = nn.Linear(4, 2), nn.Linear(4, 2)

    def forward(self, x):
        return self.used(x)


def check_unused(r, n):
    loom.manual_seed(0)
    m = DDP(Branchy(), find_unused_parameters=True)
    x = loom.full((2, 4), float(r + 1))
    for _ in range(2):
        m.zero_grad()
        m(x).sum().backward()
    want = np.full((2, 4), 2.0 * np.mean(np.arange(1, n + 1)))
    np.testing.assert_allclose(np.asarray(m.module.used.weight.grad), want, rtol=1e-6)
    strict = DDP(Branchy())
    strict(x).sum().backward()
    try:
        strict(x)
        raise AssertionError("an unused parameter without find_unused_parameters must raise")
    except RuntimeError as e:
        assert "find_unused_parameters" in str(e)


def check_sampler(r, n):
    for size, drop in ((7, False), (7, True), (12, False)):
        s = DistributedSampler(list(range(size)), shuffle=True, seed=3, drop_last=drop)
        s.set_epoch(1)
        got = [None] * n
        dist.all_gather_object(got, list(s))
        assert all(len(g) == len(s) for g in got)
        flat = sorted(i for g in got for i in g)
        if drop:
            assert len(flat) == (size // n) * n and len(set(flat)) == len(flat)
        else:
            assert set(flat) == set(range(size)) and len(flat) == -(-size // n) * n
        s.set_epoch(2)
        assert list(s) != got[r] or size < 4
    # uneven data through a DataLoader: every rank runs the same number of steps, so no rank hangs
    loader = loom.utils.data.DataLoader(list(range(7)), batch_size=2,
                                        sampler=DistributedSampler(list(range(7)), shuffle=False))
    steps = [None] * n
    dist.all_gather_object(steps, len(list(loader)))
    assert len(set(steps)) == 1


def main():
    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    assert n == int(sys.argv[1])
    check_equivalence(r, n, loom.float64, 1e-10)
    check_equivalence(r, n, loom.float32, 2e-6)
    check_unused(r, n)
    check_sampler(r, n)
    dist.destroy_process_group()
    print(f"rank {r}/{n} ddp ok", flush=True)


if __name__ == "__main__":
    main()
