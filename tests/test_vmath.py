"""The vectorising float32 math of native/kernels/common.h (lm_tanhf, lm_erff) against float64 libm
(Python's math) over the whole float32 range: every 97th bit pattern of the finite positives, the
negatives by oddness, and the special values C99 fixes."""
import math

import numpy as np
import pytest

import loom

ULP_BOUND = 4.0


def _sweep():
    return np.arange(0, 0x7F800000, 97, dtype=np.uint32).view(np.float32)


def _ulps(got, ref):
    """|got - ref| in units of the float32 ulp at ref (subnormal ulp below 2^-126)"""
    _, e = np.frexp(np.abs(ref))
    ulp = np.ldexp(1.0, np.maximum(e - 24, -149))
    return np.abs(got.astype(np.float64) - ref) / ulp


@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_float32_within_ulp_bound_over_the_range(name):
    x = _sweep()
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    ref = np.frompyfunc(getattr(math, name), 1, 1)(x.astype(np.float64)).astype(np.float64)
    err = _ulps(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= ULP_BOUND, f"{name}({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.2f} ulp"
    neg = getattr(loom, name)(loom.tensor(-x)).numpy()
    assert np.array_equal(neg.view(np.uint32), (-got).view(np.uint32)), f"{name} is not odd"


@pytest.mark.parametrize("name", ["tanh", "erf"])
def test_float32_special_values_as_c99(name):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-30, -1e-38], dtype=np.float32)
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    want = np.array([getattr(math, name)(float(v)) if not np.isnan(v) else np.nan for v in x], dtype=np.float32)
    assert np.array_equal(np.signbit(got[:2]), [False, True])
    assert np.array_equal(got, want, equal_nan=True), (got, want)


def test_gelu_float32_matches_float64():
    x = np.concatenate([np.linspace(-12, 12, 100001), [-50.0, 50.0, 0.0, -0.0, 1e-30]]).astype(np.float32)
    for approximate in ("none", "tanh"):
        got = loom.nn.functional.gelu(loom.tensor(x), approximate=approximate).numpy()
        want = loom.nn.functional.gelu(loom.tensor(x.astype(np.float64)), approximate=approximate).numpy()
        # absolute: 1 + erf(x/sqrt 2) cancels for negative x in float32 whatever erf's accuracy
        np.testing.assert_allclose(got, want, rtol=4e-7, atol=1e-6)
        assert (got[x < -40] == 0).all()


# ---- native/kernels/vmath.h: float64 lm_exp, lm_expm1, lm_log, lm_log1p, lm_tanh; float32 lm_expm1f, ... ----
# Against long double (x87's 64-bit significand: its own error is ~2^-11 of a double ulp). tanh's bound
# is documented wider: t / (t + 2) with t = expm1(2|x|) adds the division's rounding to expm1's; so is
# acosh's near 1, log1p(t + sqrt(2t + t^2)) rounding three times before log1p (measured 2.03 and 2.48).
ULP64 = {"exp": 2.0, "expm1": 2.0, "log": 2.0, "log1p": 2.0, "tanh": 2.5, "exp2": 2.0, "log2": 2.0, "log10": 2.0,
         "cosh": 2.0, "sinh": 2.0, "atanh": 2.0, "asinh": 2.0, "acosh": 3.0}
REF64 = {"exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p, "tanh": np.tanh, "exp2": np.exp2,
         "log2": np.log2, "log10": np.log10, "cosh": np.cosh, "sinh": np.sinh, "atanh": np.arctanh,
         "asinh": np.arcsinh, "acosh": np.arccosh}
HAS_LONG_DOUBLE = np.finfo(np.longdouble).nmant >= 63


def _sample64(name):
    """A dense float64 sample of the function's finite range: uniform over the range's middle,
    log-uniform magnitudes down to the subnormals, both signs where the domain has them."""
    rng = np.random.default_rng(17)
    lo, hi = {"exp": (-746.0, 709.78), "expm1": (-45.0, 709.78), "log": (0.0, 1.7e308),
              "log1p": (-1.0, 1.7e308), "tanh": (-25.0, 25.0), "exp2": (-1076.0, 1023.99),
              "log2": (0.0, 1.7e308), "log10": (0.0, 1.7e308), "cosh": (-710.47, 710.47),
              "sinh": (-710.47, 710.47), "atanh": (-1.0, 1.0), "asinh": (-1.7e308, 1.7e308),
              "acosh": (1.0, 1.7e308)}[name]
    mags = np.exp(rng.uniform(np.log(5e-324), np.log(min(hi, 1e300)), 400_000))
    parts = [rng.uniform(max(lo, -2.0), min(hi, 2.0), 400_000), rng.uniform(lo, min(hi, 1e3), 400_000), mags]
    if lo < 0:
        parts.append(-mags[mags < -lo])
    x = np.concatenate(parts)
    if name == "atanh":   # close to +-1 too
        x = np.concatenate([x, 1 - np.ldexp(rng.random(100_000), -30), -1 + np.ldexp(rng.random(100_000), -40)])
    if name == "acosh":   # 1 + the magnitudes, close to 1, and past 2^1000 (where 2x is scaled down)
        x = np.concatenate([x, 1 + mags, rng.uniform(1.0, 3.0, 400_000), 1 + np.ldexp(rng.random(100_000), -40),
                            np.exp(rng.uniform(np.log(2.0 ** 990), np.log(1.7e308), 10_000))])
    return x[(x > lo) & (x < hi)] if not name.startswith("log") or name == "log1p" else x[x > 0]


def _ulps64(got, ref):
    """|got - ref| in units of the float64 ulp at ref (subnormal ulp below 2^-1022)"""
    _, e = np.frexp(np.abs(ref).astype(np.float64))
    ulp = np.ldexp(1.0, np.maximum(e - 53, -1074)).astype(np.longdouble)
    return (np.abs(got.astype(np.longdouble) - ref) / ulp).astype(np.float64)


@pytest.mark.skipif(not HAS_LONG_DOUBLE, reason="long double is double here: no higher-precision reference")
@pytest.mark.parametrize("name", sorted(ULP64))
def test_float64_within_ulp_bound(name):
    x = _sample64(name)
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    ref = REF64[name](x.astype(np.longdouble))
    err = _ulps64(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= ULP64[name], f"{name}({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.2f} ulp"
    if name in ("expm1", "tanh", "log1p", "sinh", "atanh", "asinh"):   # odd, or near-odd at 0: tiny x exactly x
        tiny = x[np.abs(x) < 1e-17]
        assert np.array_equal(getattr(loom, name)(loom.tensor(tiny)).numpy(), tiny)


SPECIAL64 = [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, -1.0, -2.0,
             0.5, 1.0, 2.0, 709.782712893384, 709.7827128933839, 710.0, -745.1332191019411, -745.1332191019412,
             -746.0, -40.0, -37.5, 22.5, 1.7976931348623157e308]


@pytest.mark.parametrize("name", sorted(ULP64))
def test_float64_special_values_as_c99(name):
    """exact: NaN (any sign), signed zeros, infinities, overflow/underflow at C99's thresholds"""
    x = np.array(SPECIAL64)
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    with np.errstate(all="ignore"):
        want = REF64[name](x.astype(np.longdouble)).astype(np.float64)
    for v, g, w in zip(x, got, want):
        if np.isnan(w):
            assert np.isnan(g), f"{name}({v!r}) = {g!r}, want NaN"
        elif np.isinf(w) or w == 0:
            assert g == w and np.signbit(g) == np.signbit(w), f"{name}({v!r}) = {g!r}, want {w!r}"
        else:
            assert _ulps64(np.array([g]), np.array([w], dtype=np.longdouble))[0] <= ULP64[name], (name, v, g, w)


# vmath.h's and vmath_f32.h's float forms against float64, measured max ulp over the sweep: expm1 1.2, log1p 1.4,
# log 0.8, exp2 0.9, log2 1.6, log10 1.8, cosh 1.3, sinh 1.5, atanh 1.9, asinh 1.9; acosh 2.2 (documented wider,
# as its double form: t + sqrt(2t + t^2) rounds three times before log1p near 1)
ULP32 = {"expm1": 2.0, "log1p": 2.0, "log": 2.0, "exp2": 2.0, "log2": 2.0, "log10": 2.0, "cosh": 2.0, "sinh": 2.0,
         "atanh": 2.0, "asinh": 2.0, "acosh": 2.5}


@pytest.mark.parametrize("name", sorted(ULP32))
def test_float32_forms(name):
    """the float forms over the float32 range within ULP32; overflow, NaN, +-0 and +-inf exactly as C99"""
    x = _sweep()
    if name in ("expm1", "exp2", "cosh", "sinh", "asinh"):
        x = np.concatenate([x, -x])
    elif name in ("log1p", "atanh"):
        x = np.concatenate([x[x <= 1], -x[x <= 1]]) if name == "atanh" else np.concatenate([x, -x[x < 1]])
    got = getattr(loom, name)(loom.tensor(x)).numpy()
    with np.errstate(all="ignore"):
        ref = REF64[name](x.astype(np.float64))
        fin = np.isfinite(ref.astype(np.float32))   # beyond FLT_MAX float32 overflows, as it should
    err = _ulps(got[fin], ref[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= ULP32[name], f"{name}({x[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}"
    with np.errstate(over="ignore"):
        assert np.array_equal(got[~fin], ref[~fin].astype(np.float32), equal_nan=True)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, 1e-45, 100.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        want = REF64[name](sp.astype(np.float64))
        want32 = want.astype(np.float32)
    g = getattr(loom, name)(loom.tensor(sp)).numpy()
    exact = ~np.isfinite(want32) | (want32 == 0)
    assert np.array_equal(g[exact], want32[exact], equal_nan=True)
    with np.errstate(all="ignore"):
        assert (_ulps(g[~exact], want[~exact]) <= ULP32[name]).all(), (g, want)
    assert np.isnan(want[:2]).all() or np.array_equal(np.signbit(g[:2]), np.signbit(want[:2]))   # +-0


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_exp_short_and_full_forms_give_the_same_bits(dt):
    # blocks whose every x is in e^x's finite range take the form without clamps and selects; one
    # NaN, +-inf or out-of-range value in a block sends it to the full form: the same bits either way
    rng = np.random.default_rng(41)
    lo, hi = (-103.9, 88.7) if dt == np.float32 else (-745.9, 709.7)
    x = np.concatenate([rng.uniform(lo, hi, 6000), rng.standard_normal(6000),
                        np.array([lo, hi, 0.0, -0.0, 1e-30])]).astype(dt)
    mixed = x.copy()
    mixed[::97] = np.array([np.nan, np.inf, -np.inf, 2 * hi, 2 * lo], dtype=dt)[np.arange(x[::97].size) % 5]
    short, full = loom.exp(loom.tensor(x)).numpy(), loom.exp(loom.tensor(mixed)).numpy()
    keep = np.ones(x.size, bool)
    keep[::97] = False
    assert np.array_equal(short[keep].view(np.uint8), full[keep].view(np.uint8))
    want = np.array([np.nan, np.inf, 0.0, np.inf, 0.0], dtype=dt)[np.arange(x[::97].size) % 5]
    np.testing.assert_array_equal(full[::97], want)
