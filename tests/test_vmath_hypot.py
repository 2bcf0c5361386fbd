"""native/kernels/vmath_hypot.h's hypot against mpmath (float64) and float64 (float32): random pairs over
the whole range (both magnitudes spread over every exponent, and near-equal ones), the scaling edges at
2^+-500 and the overflow and subnormal ends; C99's special values exactly (F.10.4.3).
Measured: float64 max 0.83 ulp, float32 max 0.50 ulp."""
import mpmath
import numpy as np
import pytest

import loom

ULP64 = 1.5
ULP32 = 0.51


def _ulps64(got, x, y):
    """|got - hypot(x, y)| in float64 ulps at the exact value (mpmath at 80 bits)"""
    with mpmath.workprec(80):
        ref = [mpmath.sqrt(mpmath.mpf(a) ** 2 + mpmath.mpf(b) ** 2) for a, b in zip(x.tolist(), y.tolist())]
    ref64 = np.array([float(r) for r in ref])
    _, e = np.frexp(ref64)
    ulp = np.ldexp(1.0, np.maximum(e - 53, -1074))
    with mpmath.workprec(80):
        return np.array([float(abs(mpmath.mpf(g) - r)) for g, r in zip(got.tolist(), ref)]) / ulp


def _pairs64(rng, n):
    ex = rng.uniform(-1074, 1023, n)
    ey = np.where(rng.random(n) < 0.5, ex + rng.uniform(-60, 60, n), rng.uniform(-1074, 1023, n))
    x = np.ldexp(rng.uniform(1, 2, n), np.clip(ex, -1074, 1023).astype(int) - 1)
    y = np.ldexp(rng.uniform(1, 2, n), np.clip(ey, -1074, 1023).astype(int) - 1)
    edges = np.ldexp(1.0, np.array([500, 501, -500, -501, 1023, -1022, -1074, 0]))
    x = np.concatenate([x, edges, edges * (1 - 2.0 ** -53), rng.uniform(-1, 1, 2000)])
    y = np.concatenate([y, edges[::-1], edges, rng.uniform(-1, 1, 2000)])
    return x * np.where(rng.random(x.size) < 0.5, -1, 1), y


def test_float64_within_ulp_bound():
    x, y = _pairs64(np.random.default_rng(11), 20000)
    got = loom.hypot(loom.tensor(x), loom.tensor(y)).numpy()
    assert np.isfinite(got).all()
    err = _ulps64(got, x, y)
    worst = int(np.argmax(err))
    assert err[worst] <= ULP64, f"hypot({x[worst]!r}, {y[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


def test_float32_within_ulp_bound():
    rng = np.random.default_rng(12)
    bits = rng.integers(0, 0x7F800000, (2, 400_000), dtype=np.uint32)
    bits[1, ::2] = np.clip(bits[0, ::2].astype(np.int64) + rng.integers(-2 ** 26, 2 ** 26, 200_000), 0,
                           0x7F7FFFFF).astype(np.uint32)
    x, y = bits.view(np.float32)
    x = x * np.where(rng.random(x.size) < 0.5, -1, 1).astype(np.float32)
    got = loom.hypot(loom.tensor(x), loom.tensor(y)).numpy()
    ref = np.hypot(x.astype(np.float64), y.astype(np.float64))
    fin = ref <= np.finfo(np.float32).max
    _, e = np.frexp(ref[fin])
    err = np.abs(got[fin].astype(np.float64) - ref[fin]) / np.ldexp(1.0, np.maximum(e - 24, -149))
    worst = int(np.argmax(err))
    assert err[worst] <= ULP32, f"hypot({x[fin][worst]!r}, {y[fin][worst]!r}) = {got[fin][worst]!r}"
    assert np.isposinf(got[~fin]).all()




@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_special_values_as_c99(dt):
    """hypot(+-inf, y) = +inf for every y, NaN included; NaN with a NaN otherwise; hypot(x, +-0) = |x|;
    the argument order and signs do not matter (NumPy's hypot follows C99)"""
    f = np.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 3.0, -4.0, f.smallest_subnormal, -f.smallest_subnormal, f.max, -f.max,
            np.inf, -np.inf, np.nan]
    x, y = (a.ravel().astype(dt) for a in np.meshgrid(vals, vals))
    got = loom.hypot(loom.tensor(x), loom.tensor(y)).numpy()
    with np.errstate(all="ignore"):
        want = np.hypot(x, y)
    np.testing.assert_array_equal(got, want)
    zero = y == 0
    np.testing.assert_array_equal(got[zero].view(np.uint8), np.abs(x[zero]).view(np.uint8))
    swapped = loom.hypot(loom.tensor(y), loom.tensor(-x)).numpy()
    np.testing.assert_array_equal(swapped, got)
