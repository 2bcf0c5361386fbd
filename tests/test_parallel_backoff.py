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


BITS = r"""
import hashlib, loom
F = loom.nn.functional
loom.set_num_threads(2)
g = loom.Generator().manual_seed(5)
a, b = loom.randn(256, 512, generator=g), loom.randn(512, 784, generator=g)
x = loom.randn(3_000_000, generator=g)
img, w = loom.randn(8, 16, 20, 20, generator=g), loom.randn(32, 16, 3, 3, generator=g)
h = loom.randn(256, 784, generator=g).half()
ln = loom.randn(4096, 384, generator=g)
def layer_norm_grads():
    p, q = loom.ones(384, requires_grad=True), loom.zeros(384, requires_grad=True)
    F.layer_norm(ln, (384,), p, q).pow(2).sum().backward()
    return p.grad, q.grad
def conv_weight_grad():
    k = w.clone().requires_grad_()
    F.conv2d(img, k).square().sum().backward()
    return k.grad
def lstm():
    loom.manual_seed(0)
    m = loom.nn.LSTM(200, 300)
    y, _ = m(loom.randn(20, 32, 200, generator=g))
    y.sum().backward()
    return y.detach(), m.weight_hh_l0.grad
def attention():
    q = loom.randn(8, 4, 256, 64, generator=g)
    return loom.nn.functional.scaled_dot_product_attention(q, q, q)
results = {"lstm": lstm(), "attention": attention(), "mm float32": a @ b, "mm float64": a.double() @ b.double(), "sum": x.sum(), "mean over dim": x.view(3000, 1000).mean(0),
           "layer_norm grads": layer_norm_grads(), "conv2d weight grad": conv_weight_grad(),
           "linear_backward float16": loom.linear_backward(a.half(), h, b.half())}
for name, r in results.items():
    r = r if isinstance(r, tuple) else (r,)
    print(name, hashlib.sha256(b"".join(bytes(t.contiguous().numpy().data) for t in r)).hexdigest())
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one CPU: loom never starts a second thread")
def test_bits_do_not_depend_on_the_threads_a_region_gets():
    """At 2 threads, a region that gets one thread (OMP_THREAD_LIMIT=1) or runs inline (the busy-machine
    backoff, forced by LOOM_LATE_US=0) must give the bits two threads give: the split into parts is
    fixed. It was not: a product split in two ran OpenBLAS on each half, whose sums differ in the last
    bit from one call over the whole, a full sum summed one copy instead of two, so the same matmul,
    sum, LSTM or layer_norm gradient gave other bits while the machine was busy."""
    def run(**env):
        out = subprocess.run([sys.executable, "-c", BITS], env=dict(os.environ, **env), capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        return dict(line.rsplit(" ", 1) for line in out.stdout.splitlines())
    two, one, late = run(LOOM_LATE_US=str(10 ** 9)), run(OMP_THREAD_LIMIT="1", LOOM_LATE_US=str(10 ** 9)), run(LOOM_LATE_US="0")
    assert len(two) == 9
    assert {k for k in two if two[k] != one[k]} == set()
    assert {k for k in two if two[k] != late[k]} == set()
