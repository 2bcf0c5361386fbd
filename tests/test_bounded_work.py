"""Calls whose cost an integer argument drives, not their inputs' sizes, do bounded work or fail at
once (issue 19's list): a polygamma order of 2^62, a chunk count of 2^62 on an empty dim, a
repeat count no machine can hold, and big blocks that together exceed the machine."""
import os

import numpy as np
import pytest

import loom

PHYS = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize("n", [2 ** 62, 2 ** 31, 1000])
def test_polygamma_of_a_huge_order_is_bounded(n):
    x = loom.tensor([1.0, 2.5, 10.0])
    r = loom.polygamma(n, x)
    assert r.shape == (3,) and bool(loom.isinf(r).all())   # n! / x^(n+1) overflows for each x


def test_polygamma_values_unchanged_for_ordinary_orders():
    scipy_special = pytest.importorskip("scipy.special")
    x = np.array([0.5, 2.0, 7.25])
    for n in (1, 3, 6, 30):
        np.testing.assert_allclose(loom.polygamma(n, loom.tensor(x)).numpy(), scipy_special.polygamma(n, x),
                                   rtol=1e-10)


def test_chunk_count_beyond_memory_on_an_empty_dim_is_refused():
    with pytest.raises(RuntimeError, match="cannot create 4611686018427387904 empty pieces"):
        loom.chunk(loom.zeros(0, dtype=loom.bool), 2 ** 62)
    assert len(loom.chunk(loom.zeros(0), 5)) == 5   # PyTorch's: that many empty pieces


def test_repeat_interleave_beyond_memory_fails_at_once():
    with pytest.raises(MemoryError, match="out of memory allocating"):
        loom.repeat_interleave(2 ** 40)
    with pytest.raises(MemoryError):
        loom.repeat_interleave(loom.ones(2), loom.tensor([2 ** 39, 2 ** 39]))
    assert loom.repeat_interleave(loom.tensor([1, 2, 3]), loom.tensor([2, 0, 1])).tolist() == [1, 1, 3]


def test_big_blocks_that_together_exceed_the_machine_are_refused():
    half = PHYS // 2 + (1 << 30)   # two of these cannot both live
    first = loom.empty(half // 8, dtype=loom.int64)
    with pytest.raises(MemoryError):
        loom.empty(half // 8, dtype=loom.int64)
    del first
    loom.empty(half // 8, dtype=loom.int64)   # the first one's bytes came back


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "complex64", "complex128", "bool", "int8"])
def test_eye_in_every_dtype(dtype):
    e = loom.eye(3, 4, dtype=getattr(loom, dtype))
    ref = np.eye(3, 4)
    got = e.float().numpy() if dtype == "bfloat16" else e.numpy()
    np.testing.assert_array_equal(got, ref.astype(got.dtype))
