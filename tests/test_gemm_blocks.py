"""lm_gemm (native/cpu/gemm.c, gemm_avx512.c) at the edges of its blocking: register tiles of
12 rows x 2 vectors (10 or 8 rows for products of few rows: 20, 30, 64), K blocks of 256, row
blocks of 144, column blocks of 3072; transposed,
strided and sliced operands; accumulation (addmm); one thread and the split over two. Checked
against NumPy in float64, whichever kernels this host runs."""
import itertools

import numpy as np
import pytest

import loom

rng = np.random.default_rng(7)
SHAPES = [(1, 1, 1), (12, 32, 256), (13, 33, 257), (11, 15, 3), (145, 70, 20), (25, 3100, 40),
          (300, 31, 513), (20, 1024, 256), (3, 7, 600), (30, 50, 70), (64, 40, 300)]


def operand(shape, transposed, dtype):
    x = rng.standard_normal(shape[::-1] if transposed else shape).astype(dtype)
    return (x.T if transposed else x), (loom.tensor(x).t() if transposed else loom.tensor(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("M, N, K", SHAPES)
def test_matmul_layouts(M, N, K, threads, dtype):
    before = loom.get_num_threads()
    loom.set_num_threads(threads)
    try:
        for ta, tb in itertools.product([False, True], repeat=2):
            a, la = operand((M, K), ta, dtype)
            b, lb = operand((K, N), tb, dtype)
            ref = a.astype(np.float64) @ b.astype(np.float64)
            tol = 2e-5 if dtype == np.float32 else 1e-12
            got = (la @ lb).numpy()
            assert got.dtype == dtype
            np.testing.assert_allclose(got, ref, rtol=tol, atol=tol * np.sqrt(K) * 4)
    finally:
        loom.set_num_threads(before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_accumulate_strided_and_nonfinite(dtype):
    x = rng.standard_normal((50, 600)).astype(dtype)
    y = rng.standard_normal((600, 90)).astype(dtype)
    c = rng.standard_normal((50, 90)).astype(dtype)
    got = loom.addmm(loom.tensor(c), loom.tensor(x), loom.tensor(y)).numpy()
    np.testing.assert_allclose(got, c + x.astype(np.float64) @ y, rtol=1e-4, atol=1e-3)
    # every other row, every third column: neither operand has a unit stride
    got = (loom.tensor(x)[::2, ::3] @ loom.tensor(y)[::3][:200]).numpy()
    np.testing.assert_allclose(got, x[::2, ::3].astype(np.float64) @ y[::3][:200], rtol=1e-4, atol=1e-3)
    # a NaN or inf in one row of A reaches only that row of C; an uninitialised output is never read
    x[3, 5] = np.nan
    x[7, 1] = np.inf
    got = (loom.tensor(x) @ loom.tensor(y)).numpy()
    assert np.isnan(got[3]).all() and not np.isfinite(got[7]).any()
    rows = [r for r in range(50) if r not in (3, 7)]
    assert np.isfinite(got[rows]).all()
