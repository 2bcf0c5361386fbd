"""native/core/parallel.c's busy-machine backoff: a threaded region whose calling thread waited long
for the others makes the next regions run inline for a while. Whether a region is late depends on
the machine, so these tests force lateness (LOOM_LATE_US=0: any wait at least the caller's own share
counts) and check what must hold either way: results equal the one-thread ones, and the statistics
add up."""
import os
import subprocess
import sys

import pytest

import loom

SCRIPT = r"""
import loom, numpy as np
from loom._runtime import _parallel_stats
loom.manual_seed(0)
x, a, b = loom.randn(3_000_000), loom.randn(512, 384), loom.randn(384, 512)
def run():
    return [x.exp(), x.sin().sum(), a @ b, loom.nn.functional.layer_norm(a, (384,))]
loom.set_num_threads(1)
ref = run()
loom.set_num_threads(2)
for _ in range(40):
    got = run()
    for r, g in zip(ref, got):
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-5, atol=1e-3)
s = _parallel_stats()
assert 0 <= s["late"] <= s["regions"], s
assert s["inline_ms"] >= 0, s
print(s["regions"], s["late"])
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one CPU: loom never starts a second thread")
@pytest.mark.parametrize("late_us", ["0", "300"])
def test_results_do_not_depend_on_the_backoff(late_us):
    env = dict(os.environ, LOOM_LATE_US=late_us)
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    regions, late = map(int, out.stdout.split())
    assert regions > 0   # threads ran: the backoff did not switch them off for good


def test_stats_are_readable():
    s = loom._runtime._parallel_stats()
    assert set(s) == {"regions", "late", "inline_ms"}
    assert 0 <= s["late"] <= s["regions"]


TIMED = r"""
import loom, numpy as np
from loom._runtime import _parallel_stats
F = loom.nn.functional
loom.manual_seed(0)
loom.set_num_threads(2)
img, q = loom.randn(64, 32, 26, 26), loom.randn(8, 4, 128, 64)
ops = {"max_pool2d": lambda: F.max_pool2d(img, 2), "avg_pool2d": lambda: F.avg_pool2d(img, 2),
       "adaptive_max_pool2d": lambda: F.adaptive_max_pool2d(img, 5), "sum": lambda: img.sum(),
       "batch_norm": lambda: F.batch_norm(img, None, None, training=True),
       "attention": lambda: F.scaled_dot_product_attention(q, q, q),
       "conv2d, one sample": lambda: F.conv2d(loom.randn(1, 32, 40, 40), loom.randn(16, 32, 4, 4)),
       "inv": lambda: loom.linalg.inv(loom.randn(64, 60, 60))}
for name, op in ops.items():
    before = _parallel_stats()["regions"]
    op()
    print(name, _parallel_stats()["regions"] - before)
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one CPU: loom never starts a second thread")
def test_threaded_kernels_are_timed():
    """The kernels that opened OpenMP regions of their own (pooling, private-copy reductions, attention,
    im2col's channel split, batched LAPACK) now go through parallel.c, so their regions count (and can
    trigger the backoff). LOOM_LATE_US far above any wait keeps the backoff from running them inline."""
    env = dict(os.environ, LOOM_LATE_US=str(10 ** 9))
    out = subprocess.run([sys.executable, "-c", TIMED], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    counts = {line.rsplit(" ", 1)[0]: int(line.rsplit(" ", 1)[1]) for line in out.stdout.splitlines()}
    assert len(counts) == 8 and all(n >= 1 for n in counts.values()), counts
