"""native/kernels/vmath_pow.h's pow against float64 (float32) over a 2-D sweep: bit patterns of x across
the whole float32 range, both signs, times a spread of exponents (integers, halves, tiny and large ones),
and random (x, y) pairs; tensor ** tensor and tensor ** Python number; C99's special-value table exactly.
Measured: float32 max 0.5001 ulp (the double intermediate's error is ~2^-36, then one rounding). float64
against mpmath over random pairs spread over the whole result range (measured: max 0.58 ulp down to 1e-307,
1.0 ulp at the bottom of the normal range and in subnormal results), and C99's table; its log table is
tools/gen_pow_table.py's output."""
import importlib.util
from pathlib import Path

import mpmath
import numpy as np
import pytest

import loom

ULP32 = 0.51


def _ulps(got, ref):
    """|got - ref| in units of the float32 ulp at ref (subnormal ulp below 2^-126)"""
    _, e = np.frexp(np.abs(ref))
    ulp = np.ldexp(1.0, np.maximum(e - 24, -149))
    return np.abs(got.astype(np.float64) - ref) / ulp


def _check32(x, y, got):
    with np.errstate(all="ignore"):
        ref = np.power(x.astype(np.float64), y.astype(np.float64))
        ref32 = ref.astype(np.float32)
    fin = np.isfinite(ref32) & (ref32 != 0)   # 0 and inf: where float32 underflows and overflows, exactly
    err = _ulps(got[fin], ref[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= ULP32, f"pow({x[fin][worst]!r}, {y[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}"
    same = (got[~fin].view(np.uint32) == ref32[~fin].view(np.uint32)) | (np.isnan(got[~fin]) & np.isnan(ref32[~fin]))
    assert same.all(), list(zip(x[~fin][~same][:5], y[~fin][~same][:5], got[~fin][~same][:5]))


@pytest.mark.parametrize("y", [0.5, 2.5, -1.7, 2.0, 3.0, -3.0, 0.1, 1e-3, 7.123, 100.5, -0.33, 1e-7, -151.0, 255.0])
def test_float32_tensor_scalar_sweep(y):
    x = np.arange(0, 0x7F800000, 2053, dtype=np.uint32).view(np.float32)
    x = np.concatenate([x, -x])
    got = (loom.tensor(x) ** y).numpy()
    _check32(x, np.full_like(x, y), got)


def test_float32_tensor_tensor_random():
    rng = np.random.default_rng(5)
    n = 1_000_000
    x = np.concatenate([rng.uniform(0, 4, n), np.exp(rng.uniform(-100, 88, n)), -rng.integers(0, 40, n) * 0.25])
    y = np.concatenate([rng.uniform(-60, 60, n), rng.uniform(-2, 2, n), rng.integers(-30, 30, n)])
    x, y = x.astype(np.float32), y.astype(np.float32)
    got = loom.pow(loom.tensor(x), loom.tensor(y)).numpy()
    _check32(x, y, got)


SPECIAL_X = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38]
SPECIAL_Y = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 1e10, -1e10,
             16777215.0, -16777215.0, 16777216.0, 3e38]


def test_float32_special_values_as_c99():
    """C99 F.10.4.4 (NumPy's float32 power follows it): x^+-0 = 1 and 1^y = 1 even for NaN, (-1)^+-inf = 1,
    signed zeros and infinities by the parity of integer y, NaN for a non-integer power of a finite negative"""
    x, y = (a.ravel().astype(np.float32) for a in np.meshgrid(SPECIAL_X, SPECIAL_Y))
    got = loom.pow(loom.tensor(x), loom.tensor(y)).numpy()
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    exact = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1) | (np.abs(x) <= 2) & (np.abs(y) <= 3)
    same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
    assert same[exact].all(), list(zip(x[exact & ~same], y[exact & ~same], got[exact & ~same], want[exact & ~same]))
    _check32(x[~exact], y[~exact], got[~exact])


# ---- float64 (lm_powd): log |x| and y log |x| as pairs, then e^t; against mpmath ----
ULP64 = 1.0


def _ulps64(got, x, y):
    with mpmath.workprec(120):
        ref = [mpmath.power(mpmath.mpf(a), mpmath.mpf(b)) for a, b in zip(x.tolist(), y.tolist())]
        ref64 = np.array([float(r) for r in ref])
        _, e = np.frexp(np.abs(ref64))
        ulp = np.ldexp(1.0, np.maximum(e - 53, -1074))
        return np.array([float(abs(mpmath.mpf(g) - r)) for g, r in zip(got.tolist(), ref)]) / ulp


def test_float64_random_pairs_against_mpmath():
    # y log x spread over the whole finite range of the result (|t| to 745, subnormal results included),
    # x near 1 with large y (where log x's own error counts most), the benchmark's domain, integer powers
    rng = np.random.default_rng(23)
    n = 4000
    x1 = np.exp(rng.uniform(-740, 709, n))
    y1 = rng.uniform(-744, 709, n) / np.log(x1)
    x2 = 1 + rng.uniform(-0.3, 0.3, n) * np.exp(rng.uniform(-30, 0, n))
    y2 = rng.uniform(-700, 700, n) / np.log(x2)
    x3, y3 = rng.uniform(0.5, 2, n), rng.uniform(-2, 2, n)
    x4, y4 = -rng.integers(1, 60, n) * 0.5, rng.integers(-40, 40, n).astype(float)
    x5 = np.ldexp(rng.uniform(1, 2, n), rng.integers(-1074, -1022, n))   # subnormal x
    y5 = rng.uniform(-0.4, 1, n)
    x, y = np.concatenate([x1, x2, x3, x4, x5]), np.concatenate([y1, y2, y3, y4, y5])
    got = loom.pow(loom.tensor(x), loom.tensor(y)).numpy()
    with np.errstate(all="ignore"):
        fin = np.isfinite(np.power(x, y))
    assert np.isfinite(got[fin]).all()
    err = _ulps64(got[fin], x[fin], y[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= ULP64, f"pow({x[fin][worst]!r}, {y[fin][worst]!r}) = {got[fin][worst]!r}: {err[worst]:.3f} ulp"


SPECIAL64_X = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324,
               1.7e308, -1.7e308]
SPECIAL64_Y = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 10.0, 0.5, -0.5, np.inf, -np.inf, np.nan, 1e300, -1e300,
               2.0 ** 53 - 1, -(2.0 ** 53 - 1), 2.0 ** 53, 1075.0, -1075.0]


def test_float64_special_values_as_c99():
    """C99 F.10.4.4 (NumPy's float64 power is libm's pow): as float32's, and small integer powers of small
    integers exact"""
    x, y = (a.ravel() for a in np.meshgrid(SPECIAL64_X, SPECIAL64_Y))
    got = loom.pow(loom.tensor(x), loom.tensor(y)).numpy()
    with np.errstate(all="ignore"):
        want = np.power(x, y)
    exact = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1) | (np.abs(x) <= 3) & (np.abs(y) <= 10)
    same = (got.view(np.uint64) == want.view(np.uint64)) | (np.isnan(got) & np.isnan(want))
    assert same[exact].all(), list(zip(x[exact & ~same], y[exact & ~same], got[exact & ~same], want[exact & ~same]))
    assert (_ulps64(got[~exact], x[~exact], y[~exact]) <= ULP64).all()


def test_float64_log_table_is_the_scripts_output():
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("gen_pow_table", root / "tools/gen_pow_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert (root / "native/kernels/vmath_pow_table.h").read_text() == mod.header()


@pytest.mark.parametrize("dtype", [loom.float32, loom.float64], ids=str)
@pytest.mark.parametrize("n", [1, 7, 2999, 3001, 10007])
def test_broadcast_value_paths_match_the_elementwise_one(dtype, n):
    """A single-element operand runs blocks of the contiguous loop against copies of it (LM_WIDE_BLOCK):
    every block edge gives the same bits as the full tensor ** tensor loop, in place too."""
    g = loom.Generator().manual_seed(n)
    x = (loom.rand(n, generator=g, dtype=dtype) * 3).requires_grad_(False)
    for v in (2.5, -1.25, 3.0):
        full = loom.full((n,), v, dtype=dtype)
        np.testing.assert_array_equal((x ** v).numpy(), loom.pow(x, full).numpy())   # NaNs alike
        np.testing.assert_array_equal((v ** x).numpy(), loom.pow(full, x).numpy())
        inplace = x.clone()
        inplace.pow_(v)
        np.testing.assert_array_equal(inplace.numpy(), loom.pow(x, full).numpy())
