"""native/kernels/vmath_trig.h: float32 sin, cos, tan, atan, asin, acos, atan2 against float64 over the whole
float32 range (every 97th bit pattern, both signs), float64 against long double on a dense sample (huge
arguments and multiples of pi/2 for sin, cos, tan), and the special values C99 fixes (signed zeros,
infinities, NaN, huge arguments)."""
import numpy as np
import pytest

import loom
from test_vmath import HAS_LONG_DOUBLE, _sweep, _ulps, _ulps64

NP = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos}
ODD = {"sin", "tan", "atan", "asin"}


def _sweep_signed(name):
    x = _sweep()
    if name in ("asin", "acos"):
        x = x[x <= 1]
    return np.concatenate([x, -x])


@pytest.mark.parametrize("name", sorted(NP))
def test_float32_within_4_ulp_over_the_range(name):
    x = _sweep_signed(name)
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    ref = NP[name](x.astype(np.float64))
    fin = np.isfinite(ref.astype(np.float32))   # tan near its poles overflows float32 only
    err = _ulps(got[fin], ref[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= 4.0, f"{name}({x[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}: {err[worst]:.2f}"
    if name in ODD:
        half = len(x) // 2
        assert np.array_equal(got[half:].view(np.uint32), (-got[:half]).view(np.uint32)), f"{name} is not odd"


def test_float32_atan2_within_4_ulp():
    rng = np.random.default_rng(5)
    mags = np.exp(rng.uniform(np.log(1e-45), np.log(3e38), (2, 2_000_000))).astype(np.float32)
    y, x = mags * rng.choice([-1, 1], mags.shape).astype(np.float32)
    # ratios close to atan's interval ends and to 1
    x = np.concatenate([x, np.float32(1.0) + rng.random(200_000, dtype=np.float32)])
    y = np.concatenate([y, x[-200_000:] * np.float32(0.4375) * (1 + rng.uniform(-1e-3, 1e-3, 200_000)).astype(np.float32)])
    got = loom.atan2(loom.tensor(y), loom.tensor(x)).numpy()
    ref = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    err = _ulps(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 4.0, f"atan2({y[worst]!r}, {x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}"


def _sample64(name):
    rng = np.random.default_rng(23)
    mags = np.exp(rng.uniform(np.log(5e-324), np.log(1e300), 400_000))
    if name in ("asin", "acos"):
        x = np.concatenate([rng.uniform(-1, 1, 800_000), mags[mags <= 1], 1 - np.ldexp(rng.random(100_000), -30),
                            rng.uniform(0.45, 0.55, 100_000)])
    else:
        x = np.concatenate([rng.uniform(-3, 3, 800_000), mags, rng.uniform(0.4, 2.5, 400_000)])
    if name in ("sin", "cos", "tan"):   # up to DBL_MAX, near multiples of pi/2, and the closest double to one
        k = rng.integers(1, 2**40, 200_000).astype(np.float64)
        x = np.concatenate([x, np.exp(rng.uniform(np.log(1e300), np.log(1.79e308), 100_000)), k * (np.pi / 2),
                            np.nextafter(k * (np.pi / 2), np.inf), [6381956970095103.0 * 2.0**797, 1e22, 1.79e308]])
    return np.concatenate([x, -x])


@pytest.mark.skipif(not HAS_LONG_DOUBLE, reason="long double is double here: no higher-precision reference")
@pytest.mark.parametrize("name", sorted(NP))
def test_float64_within_2_ulp(name):
    x = _sample64(name)
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    ref = NP[name](x.astype(np.longdouble))
    err = _ulps64(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"{name}({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.2f} ulp"


@pytest.mark.skipif(not HAS_LONG_DOUBLE, reason="long double is double here: no higher-precision reference")
def test_float64_atan2_within_2_ulp():
    rng = np.random.default_rng(29)
    y, x = np.exp(rng.uniform(np.log(1e-300), np.log(1e300), (2, 1_000_000))) * rng.choice([-1, 1], (2, 1_000_000))
    u, v = rng.uniform(-3, 3, (2, 1_000_000))
    y, x = np.concatenate([y, u, 0.4375 * (1 + rng.uniform(-1e-6, 1e-6, 100_000))]), \
        np.concatenate([x, v, rng.choice([-1.0, 1.0], 100_000)])
    got = loom.atan2(loom.tensor(y), loom.tensor(x)).numpy()
    ref = np.arctan2(y.astype(np.longdouble), x.astype(np.longdouble))
    err = _ulps64(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"atan2({y[worst]!r}, {x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.2f}"


# zeros, infinities, NaN, subnormals, huge arguments and float multiples of pi/2 far out
F32_SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-38, 1.0, -1.0, 0.5, 1.5707964, 3.1415927,
                        16777216.0, 16777218.0, 1e22, -1e22, 3.4e38, -3.4028235e38, 1.0e30, 2.0**53, 2.0**81, 2.0**109,
                        np.float32(np.pi / 2) * np.float32(2.0**100)], dtype=np.float32)


@pytest.mark.parametrize("name", sorted(NP))
def test_special_values_as_c99(name):
    for dt in (np.float32, np.float64):
        x = F32_SPECIAL.astype(dt)
        got = getattr(loom, name)(loom.tensor(x)).numpy()
        with np.errstate(all="ignore"):
            want = NP[name](x.astype(np.float64)).astype(dt)
        assert np.array_equal(np.isnan(got), np.isnan(want)), (dt, x, got, want)
        ok = ~np.isnan(want)
        close = _ulps(got[ok], want[ok].astype(np.float64)) <= 4 if dt == np.float32 else \
            np.abs(got[ok] - want[ok]) <= 2 * np.spacing(np.abs(want[ok]))
        assert close.all(), (dt, x[ok][~close], got[ok][~close], want[ok][~close])
        zero = want == 0
        assert np.array_equal(np.signbit(got[zero]), np.signbit(want[zero])), (dt, name)


def test_atan2_special_values_as_c99():
    v = [0.0, -0.0, 1.0, -1.0, 1e-310, np.inf, -np.inf, np.nan, 1e308, -1e308]
    y, x = (a.ravel() for a in np.meshgrid(v, v))
    for dt in (np.float32, np.float64):
        with np.errstate(over="ignore"):   # 1e308 is inf in float32
            yd, xd = y.astype(dt), x.astype(dt)
        got = loom.atan2(loom.tensor(yd), loom.tensor(xd)).numpy()
        want = np.arctan2(yd, xd)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))
        np.testing.assert_allclose(got, want, rtol=2 * np.finfo(dt).eps, atol=0)


@pytest.mark.skipif(not HAS_LONG_DOUBLE, reason="long double is double here: no higher-precision reference")
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_float64_short_reduction_within_2_ulp(name):
    # every block below 2^27, so the loop takes the short form: near multiples of pi/2 (where the
    # reduction cancels most), either side of them, and up to the form's bound
    rng = np.random.default_rng(31)
    k = rng.integers(1, int(2**27 / (np.pi / 2)), 300_000).astype(np.float64)
    near = k * (np.pi / 2)
    x = np.concatenate([near, np.nextafter(near, np.inf), np.nextafter(near, -np.inf), rng.uniform(-2**27, 2**27, 300_000),
                        np.nextafter(2.0**27, 0) - np.arange(1000.0)])
    x = np.concatenate([x, -x])
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    err = _ulps64(got, NP[name](x.astype(np.longdouble)))
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"{name}({x[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_short_and_full_forms_give_the_same_bits(name, dt):
    # the same elements in blocks of small values (the short form) and in blocks where one huge
    # value sends the loop to the full reduction
    rng = np.random.default_rng(37)
    bound = 6e4 if dt == np.float16 else 2.0**24
    x = (rng.uniform(-1, 1, 8192) * np.exp(rng.uniform(0, np.log(bound), 8192))).astype(dt)
    mixed = x.copy()
    mixed[::97] = dt(np.inf if dt == np.float16 else 1e30)   # float16's only value past 2^24
    short = getattr(loom, name)(loom.tensor(x)).numpy()
    full = getattr(loom, name)(loom.tensor(mixed)).numpy()
    keep = np.ones(x.size, bool)
    keep[::97] = False
    assert np.array_equal(short[keep].view(np.uint8), full[keep].view(np.uint8))


# ---- sinc (vmath_sinc.h): float64 against mpmath's sincpi, measured max 1.38 ulp; float32 (the double form
# rounded once) against NumPy's float64 sinc over the float32 range; exact zeros at the integers
def test_float64_sinc_within_2_ulp():
    mp = pytest.importorskip("mpmath", reason="mpmath is the float64 reference")
    from test_vmath_erf import _mp_ulps
    rng = np.random.default_rng(97)
    x = np.concatenate([rng.uniform(-5, 5, 8000), rng.uniform(-1e6, 1e6, 3000), np.exp(rng.uniform(np.log(1e-300), np.log(1e15), 3000)),
                        np.arange(-40, 40) * 0.25 + 1e-12])
    got = loom.sinc(loom.tensor(x)).numpy()
    err = _mp_ulps(got, x, lambda v: mp.sincpi(v))
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"sinc({x[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


def test_sinc_float32_and_special_values():
    x = _sweep()
    x = x[x < 1e5]   # beyond, NumPy's rounded pi x leaves no float32 reference (x is an integer from 2^23 on: 0)
    x = np.concatenate([x, -x])
    got = loom.sinc(loom.tensor(x)).numpy()
    ref = np.sinc(x.astype(np.float64))
    ref[x == np.round(x)] = 0.0
    ref[x == 0] = 1.0
    fin = ref.astype(np.float32) != 0
    assert np.array_equal(got[~fin], ref[~fin].astype(np.float32))
    assert _ulps(got[fin], ref[fin]).max() <= 1.0
    v = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 1e300, np.inf, -np.inf, np.nan])
    got = loom.sinc(loom.tensor(v)).numpy()
    assert np.array_equal(got, [1.0, 1.0, 0.0, -0.0, 0.0, -0.0, 0.0, np.nan, np.nan, np.nan], equal_nan=True), got
    assert np.array_equal(np.signbit(got[2:7]), [False, True, False, True, False])
