"""native/kernels/vmath_gamma.h: float64 digamma and trigamma (polygamma(1, x)) against mpmath on dense samples,
float32 (the double forms rounded once) against SciPy's float64, and the special values PyTorch gives.

Below x = 10 both shift to x + 10 (psi(x) = psi(x + 10) - sum 1/(x + j)), so near psi's positive zero (1.4616...)
its error is absolute: counted in ulps of max(1, |psi|). Measured max (the test's ~12k points): digamma 10 ulp
there (PyTorch's and SciPy's recurrences: 119 and 118 on the same points), 1.1 ulp from 10 on; trigamma 6.6 ulp
(SciPy 4.5). The float32 forms in double (lgamma, zeta, igamma, igammac) against SciPy's float64, measured max:
lgamma 0.50 ulp over the sweep below, its zeros included; zeta 0.50; igamma 0.50, igammac 0.53."""
import numpy as np
import pytest

import loom
from test_vmath_erf import _mp_ulps, _ulps

mp = pytest.importorskip("mpmath", reason="mpmath is the float64 reference")
scipy_special = pytest.importorskip("scipy.special", reason="SciPy is the float32 reference")
mp.mp.dps = 40


def _sample():
    rng = np.random.default_rng(101)
    return np.concatenate([rng.uniform(0, 12, 6000), rng.uniform(-10, 0, 3000),
                           np.exp(rng.uniform(np.log(1e-300), np.log(1e300), 3000)), 1.4616321449683623 + rng.uniform(-1e-3, 1e-3, 300)])


def _abs_ulps(got, x, fn):
    """|got - fn(x)| in ulps of max(1, |fn(x)|)"""
    out = np.empty(len(x))
    for i, (g, v) in enumerate(zip(got, x)):
        ref = fn(mp.mpf(float(v)))
        out[i] = float(abs(mp.mpf(float(g)) - ref)) / np.spacing(max(1.0, abs(float(ref))))
    return out


def test_float64_digamma():
    x = _sample()
    got = loom.digamma(loom.tensor(x)).numpy()
    rel = _mp_ulps(got, x, mp.digamma)
    err = np.where(x >= 10, rel, np.minimum(rel, _abs_ulps(got, x, mp.digamma)))
    worst = int(np.argmax(err))
    assert err[worst] <= (2.0 if x[worst] >= 10 else 12.0), f"digamma({x[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


def test_float64_trigamma():
    x = _sample()
    x = x[(x != np.round(x)) & (np.abs(x) > 1e-150)]   # poles below 0; 1/x^2 overflows below 1e-154
    got = loom.special.polygamma(1, loom.tensor(x)).numpy()
    err = _mp_ulps(got, x, lambda v: mp.psi(1, v))
    worst = int(np.argmax(err))
    assert err[worst] <= 8.0, f"polygamma(1, {x[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


def test_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, -1.0, -2.0, inf, -inf, nan, 1.0])
    got = loom.digamma(loom.tensor(x)).numpy()
    assert np.array_equal(got[:7], [-inf, inf, nan, nan, inf, nan, nan], equal_nan=True), got
    assert abs(got[7] + 0.5772156649015329) <= 2.2e-16
    got = loom.special.polygamma(1, loom.tensor(x)).numpy()
    assert np.array_equal(got[:7], [inf, inf, inf, inf, 0.0, inf, nan], equal_nan=True), got
    assert abs(got[7] - 1.6449340668482264) <= 4.5e-16   # pi^2 / 6


@pytest.mark.parametrize("name", ["digamma", "trigamma"])
def test_float32_through_double(name):
    # every 97th bit pattern (every 997th for trigamma, whose SciPy reference goes through zeta: slow)
    x = np.arange(0, 0x7F800000, 97 if name == "digamma" else 997, dtype=np.uint32).view(np.float32)
    x = np.concatenate([x, -x[x < 1e5]])
    x = x[x != np.round(x)] if name == "trigamma" else x[(x > 0) | (x != np.round(x))]
    got = (loom.digamma(loom.tensor(x)) if name == "digamma" else loom.special.polygamma(1, loom.tensor(x))).numpy()
    ref = scipy_special.digamma(x.astype(np.float64)) if name == "digamma" else scipy_special.polygamma(1, x.astype(np.float64))
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    fin = np.isfinite(ref32) & (ref32 != 0)
    err = np.minimum(_ulps(got[fin], ref[fin]), np.abs(got[fin] - ref[fin]) / np.spacing(np.maximum(np.float32(1), np.abs(ref32[fin]))))
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"{name}({x[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}"


# ---- float32 lgamma (vmath_gamma.h's lm_lgamma_f32, in double): every 61st bit pattern of the float32 range, both
# signs, against SciPy's float64 gammaln; near the zeros at 1, 2 and the negative ones the error is relative still
def _lgamma32_sweep():
    x = np.arange(0, 0x7F800000, 61, dtype=np.uint32).view(np.float32)
    near = np.concatenate([c + np.arange(-300, 301, dtype=np.float32) * np.spacing(np.float32(c)) for c in (1, 2)])
    neg = -x[(x < 2 ** 23) & (x != np.round(x))]
    return np.concatenate([x, near, neg, np.float32(-2.4570247) + np.arange(-300, 301, dtype=np.float32) * np.float32(2.0 ** -22)])


def test_float32_lgamma():
    x = _lgamma32_sweep()
    got = loom.lgamma(loom.tensor(x)).numpy()
    ref = scipy_special.gammaln(x.astype(np.float64))
    with np.errstate(over="ignore"):
        fin = np.isfinite(ref.astype(np.float32))
    err = _ulps(got[fin], ref[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"lgamma({x[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}: {err[worst]:.2f} ulp"
    assert np.all(got[~fin] == np.inf)


def test_float32_lgamma_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, -1.0, -2.0, -2.0 ** 23, -3e38, inf, -inf, nan, 1.0, 2.0, 1e-45, 3e38], np.float32)
    got = loom.lgamma(loom.tensor(x)).numpy()
    want = [inf, inf, inf, inf, inf, inf, inf, inf, nan, 0.0, 0.0, np.float32(103.27893), inf]
    assert np.array_equal(got, np.array(want, np.float32), equal_nan=True), got


def test_float32_lgamma_short_and_full_forms_give_the_same_bits():
    # blocks of positive x take the short form (no reflection); one negative element sends a block to the full one
    x = np.random.default_rng(5).uniform(0, 30, 8192).astype(np.float32)
    mixed = x.copy()
    mixed[::97] = -0.5
    keep = np.ones(x.size, bool)
    keep[::97] = False
    short = loom.lgamma(loom.tensor(x)).numpy()
    full = loom.lgamma(loom.tensor(mixed)).numpy()
    assert np.array_equal(short[keep].view(np.uint32), full[keep].view(np.uint32))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_polygamma_1_short_form_matches_the_strided_loop(dt):
    # contiguous loops take the body's short form for n == 1 (trigamma, no test), strided ones the full body
    x = np.random.default_rng(9).uniform(-20, 20, 2 * 4096).astype(dt)
    t = loom.tensor(x)
    contiguous = loom.special.polygamma(1, loom.tensor(x[::2].copy())).numpy()
    strided = loom.special.polygamma(1, t[::2]).numpy()
    assert np.array_equal(contiguous.view(np.uint8), strided.view(np.uint8))


# ---- float32 zeta(x, q) (vmath_gamma.h's lm_zeta_f32_sum where 1 < x <= 16, 0 < q; special_fns.h's lm_zeta elsewhere)
def _zeta32_sample():
    rng = np.random.default_rng(23)
    x = np.concatenate([rng.uniform(1.0, 16.0, 30000), 1.0 + np.exp(rng.uniform(np.log(1e-6), 0, 3000)),
                        rng.uniform(16.0, 40.0, 2000)]).astype(np.float32)
    q = np.exp(rng.uniform(np.log(1e-4), np.log(1e6), x.size)).astype(np.float32)
    return x, q


def test_float32_zeta():
    x, q = _zeta32_sample()
    got = loom.special.zeta(loom.tensor(x), loom.tensor(q)).numpy()
    ref = scipy_special.zeta(x.astype(np.float64), q.astype(np.float64))
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    fin = np.isfinite(ref32) & (ref32 != 0)
    err = _ulps(got[fin], ref[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"zeta({x[fin][worst]!r}, {q[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}"
    assert np.array_equal(got[~fin], ref32[~fin])


def test_float32_zeta_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([1.0, 0.5, 2.0, 2.0, 2.0, 3.0, 2.0, nan, 2.0], np.float32)
    q = np.array([1.0, 1.0, 0.0, -1.0, inf, -0.5, nan, 1.0, 1e-30], np.float32)
    got = loom.special.zeta(loom.tensor(x), loom.tensor(q)).numpy()
    want = scipy_special.zeta(x.astype(np.float64), q.astype(np.float64))
    with np.errstate(over="ignore"):
        assert np.array_equal(got, want.astype(np.float32), equal_nan=True), (got, want)


def test_float32_zeta_short_and_full_forms_give_the_same_bits():
    # blocks the short form admits whole, and the same elements where one x = 20 per 97 sends the block to the full form
    x, q = _zeta32_sample()
    x, q = x[:8192].copy(), q[:8192]
    mixed = x.copy()
    mixed[::97] = 20.0
    keep = np.ones(x.size, bool)
    keep[::97] = False
    short = loom.special.zeta(loom.tensor(x), loom.tensor(q)).numpy()
    full = loom.special.zeta(loom.tensor(mixed), loom.tensor(q)).numpy()
    assert np.array_equal(short[keep].view(np.uint32), full[keep].view(np.uint32))


# ---- float32 igamma, igammac (vmath_gamma.h's fixed-depth series and fraction where 0 < a <= 12, 0 <= x <= 64;
# special_fns.h's forms elsewhere) against SciPy's float64 gammainc, gammaincc
def _igamma32_sample():
    rng = np.random.default_rng(29)
    n = 60000
    a = np.concatenate([np.exp(rng.uniform(np.log(1e-3), np.log(12), n)), rng.uniform(12, 40, 3000)]).astype(np.float32)
    x = np.concatenate([np.exp(rng.uniform(np.log(1e-4), np.log(64), n)), rng.uniform(0, 80, 3000)]).astype(np.float32)
    near = np.arange(1, 13, dtype=np.float32)   # x = a + 1, where the two forms meet
    return np.concatenate([a, near, near]), np.concatenate([x, near + 1, np.nextafter(near + 1, np.float32(0))])


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_float32_igamma(name):
    a, x = _igamma32_sample()
    got = getattr(loom, name)(loom.tensor(a), loom.tensor(x)).numpy()
    ref = (scipy_special.gammainc if name == "igamma" else scipy_special.gammaincc)(a.astype(np.float64), x.astype(np.float64))
    nz = ref.astype(np.float32) != 0
    err = _ulps(got[nz], ref[nz])
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"{name}({a[nz][worst]!r}, {x[nz][worst]!r}) = {got[nz][worst]!r}, want {ref[nz][worst]!r}"
    assert np.all(np.abs(got[~nz]) <= 1e-45)


def test_float32_igamma_special_values():
    inf, nan = np.inf, np.nan
    a = np.array([1.0, 1.0, 2.0, 0.0, -1.0, nan, 1.0, 12.0], np.float32)
    x = np.array([0.0, inf, -1.0, 1.0, 1.0, 1.0, nan, 64.0], np.float32)
    for name, fn in (("igamma", scipy_special.gammainc), ("igammac", scipy_special.gammaincc)):
        got = getattr(loom, name)(loom.tensor(a), loom.tensor(x)).numpy()
        want = fn(a.astype(np.float64), x.astype(np.float64)).astype(np.float32)
        assert np.allclose(got, want, rtol=2e-7, atol=0, equal_nan=True), (name, got, want)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_float32_igamma_short_and_full_forms_give_the_same_bits(name):
    # blocks the fixed-depth form admits whole, and the same elements where one a = 20 per 97 sends the block
    # to the full form
    a, x = _igamma32_sample()
    a, x = a[:8192].copy(), x[:8192]
    mixed = a.copy()
    mixed[::97] = 20.0
    keep = np.ones(a.size, bool)
    keep[::97] = False
    fn = getattr(loom, name)
    short = fn(loom.tensor(a), loom.tensor(x)).numpy()
    full = fn(loom.tensor(mixed), loom.tensor(x)).numpy()
    assert np.array_equal(short[keep].view(np.uint32), full[keep].view(np.uint32))
