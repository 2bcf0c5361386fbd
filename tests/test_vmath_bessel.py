"""native/kernels/vmath_bessel.h: float64 i0, i0e, i1, i1e (and bessel_j0, j1) against mpmath at 40 digits on
dense samples, float32 (the double forms rounded once) against SciPy's float64 over every 97th bit pattern,
the special values, and the short forms' bits against the full forms'."""
import numpy as np
import pytest

import loom
from test_vmath_erf import _mp_ulps, _ulps

mp = pytest.importorskip("mpmath", reason="mpmath is the float64 reference")
scipy_special = pytest.importorskip("scipy.special", reason="SciPy is the float32 reference")
mp.mp.dps = 40

# measured max (the test's ~12k points each): i0 0.70, i0e 0.72, i1 0.80, i1e 1.0 ulp
BESSEL_I = {"i0": lambda x: mp.besseli(0, x), "special_i0e": lambda x: mp.besseli(0, x) * mp.exp(-abs(x)),
            "special_i1": lambda x: mp.besseli(1, x), "special_i1e": lambda x: mp.besseli(1, x) * mp.exp(-abs(x))}


def _fn(name):
    return getattr(loom, name, None) or getattr(loom.special, name[len("special_"):])


def _sample_i(name):
    rng = np.random.default_rng(61)
    top = 1e300 if name.endswith("e") else 713.0   # I0, I1 overflow from 713.98
    x = np.concatenate([rng.uniform(-12, 12, 6000), rng.uniform(-top if top < 1e3 else -700, min(top, 700), 3000),
                        np.exp(rng.uniform(np.log(1e-300), np.log(top), 2000)), 10 + rng.uniform(-1e-3, 1e-3, 500)])
    return np.concatenate([x, -x[:1000]])


@pytest.mark.parametrize("name", sorted(BESSEL_I))
def test_float64_bessel_i_within_2_ulp(name):
    x = _sample_i(name)
    got = _fn(name)(loom.tensor(x)).numpy()
    err = _mp_ulps(got, x, BESSEL_I[name])
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"{name}({x[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


def test_float64_bessel_i_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, inf, -inf, nan, 714.0, -714.0, 5e-324])
    cases = {"i0": [1.0, 1.0, inf, inf, nan, inf, inf, 1.0], "special_i0e": [1.0, 1.0, 0.0, 0.0, nan, None, None, 1.0],
             "special_i1": [0.0, -0.0, inf, -inf, nan, inf, -inf, 0.0],
             "special_i1e": [0.0, -0.0, 0.0, -0.0, nan, None, None, 0.0]}
    for name, want in cases.items():
        got = _fn(name)(loom.tensor(x)).numpy()
        keep = np.array([w is not None for w in want])
        w = np.array([np.nan if v is None else v for v in want])
        assert np.array_equal(got[keep], w[keep], equal_nan=True), (name, got)
        zeros = keep & (w == 0)
        assert np.array_equal(np.signbit(got[zeros]), np.signbit(w[zeros])), (name, got)


@pytest.mark.parametrize("name", sorted(BESSEL_I))
def test_float32_bessel_i_through_double(name):
    x = np.arange(0, 0x7F800000, 97, dtype=np.uint32).view(np.float32)
    x = np.concatenate([x, -x])
    got = _fn(name)(loom.tensor(x)).numpy()
    ref = getattr(scipy_special, name[len("special_"):] if name.startswith("special_") else name)(x.astype(np.float64))
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    fin = np.isfinite(ref32) & (ref32 != 0)
    assert np.array_equal(got[~fin], ref32[~fin], equal_nan=True)
    err = _ulps(got[fin], ref[fin])
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"{name}({x[fin][worst]!r}) = {got[fin][worst]!r}, want {ref[fin][worst]!r}"


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", sorted(BESSEL_I))
def test_short_and_full_forms_give_the_same_bits(name, dt):
    # blocks of |x| < 10 (the series alone) and the same elements in blocks where one large value sends the
    # loop to the full form
    x = np.random.default_rng(67).uniform(-9.99, 9.99, 8192).astype(dt)
    mixed = x.copy()
    mixed[::97] = dt(12.0)
    short, full = _fn(name)(loom.tensor(x)).numpy(), _fn(name)(loom.tensor(mixed)).numpy()
    keep = np.ones(x.size, bool)
    keep[::97] = False
    assert np.array_equal(short[keep].view(np.uint8), full[keep].view(np.uint8))


# ---- J0, J1: relative below |x| = 5 (their zeros there factored out); from 5 on the error at a zero of J is
# absolute, so it counts in ulps of the envelope sqrt(2 / (pi x)) where that is smaller. Measured max: j0 0.97
# and 1.31 (envelope), j1 1.28 and 1.47.
def _j_err(got, x, nu):
    rel = _mp_ulps(got, x, lambda v: mp.besselj(nu, v))
    env = np.sqrt(2 / (np.pi * np.maximum(np.abs(x), 5.0)))
    absolute = np.array([float(abs(mp.mpf(float(g)) - mp.besselj(nu, mp.mpf(float(v))))) for g, v in zip(got, x)])
    return np.where(np.abs(x) < 5, rel, np.minimum(rel, absolute / np.spacing(env)))


@pytest.mark.parametrize("nu", [0, 1])
def test_float64_bessel_j_within_2_ulp(nu):
    rng = np.random.default_rng(71 + nu)
    zeros = np.array([float(mp.besseljzero(nu, k)) for k in range(1, 40)])
    x = np.concatenate([rng.uniform(-5, 5, 5000), rng.uniform(-80, 80, 4000), np.exp(rng.uniform(np.log(1e-300), np.log(1e300), 2000)),
                        zeros, np.nextafter(zeros, 0), 5 + rng.uniform(-1e-3, 1e-3, 300), [2.0 ** 27 * 1.5, 1e22]])
    got = _fn(f"special_bessel_j{nu}")(loom.tensor(x)).numpy()
    err = _j_err(got, x, nu)
    worst = int(np.argmax(err))
    assert err[worst] <= 2.0, f"j{nu}({x[worst]!r}) = {got[worst]!r}: {err[worst]:.2f} ulp"


def test_float64_bessel_j_special_values():
    inf, nan = np.inf, np.nan
    x = np.array([0.0, -0.0, inf, -inf, nan, 5e-324])
    got = loom.special.bessel_j0(loom.tensor(x)).numpy()
    assert np.array_equal(got, [1.0, 1.0, nan, nan, nan, 1.0], equal_nan=True), got   # NaN at +-inf: PyTorch's
    got = loom.special.bessel_j1(loom.tensor(x)).numpy()
    assert np.array_equal(got, [0.0, -0.0, nan, nan, nan, 0.0], equal_nan=True), got   # 5e-324 / 2 ties to 0
    assert np.array_equal(np.signbit(got[:2]), [False, True])


@pytest.mark.parametrize("nu", [0, 1])
def test_float32_bessel_j_through_double(nu):
    # float32 rounds the double forms once: within 1 ulp of SciPy's float64, or of the envelope at the zeros;
    # up to 1e6 only, where SciPy's (Cephes') rounded x - pi/4 still leaves it a float32 reference (the float64
    # test covers larger x against mpmath)
    x = np.arange(0, 0x7F800000, 97, dtype=np.uint32).view(np.float32)
    x = x[x < 1e6]
    x = np.concatenate([x, -x])
    got = _fn(f"special_bessel_j{nu}")(loom.tensor(x)).numpy()
    ref = getattr(scipy_special, f"j{nu}")(x.astype(np.float64))
    ok = ref.astype(np.float32) != 0
    env = np.sqrt(2 / (np.pi * np.maximum(np.abs(x[ok].astype(np.float64)), 5.0))).astype(np.float32)
    err = np.minimum(_ulps(got[ok], ref[ok]), np.abs(got[ok] - ref[ok]) / np.spacing(env))
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"j{nu}({x[ok][worst]!r}) = {got[ok][worst]!r}, want {ref[ok][worst]!r}"
    assert (np.abs(got[~ok]) <= np.float32(1e-37)).all()


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("nu", [0, 1])
def test_bessel_j_short_and_full_forms_give_the_same_bits(nu, dt):
    x = np.random.default_rng(73).uniform(-4.99, 4.99, 8192).astype(dt)
    mixed = x.copy()
    mixed[::97] = dt(7.0)
    fn = _fn(f"special_bessel_j{nu}")
    short, full = fn(loom.tensor(x)).numpy(), fn(loom.tensor(mixed)).numpy()
    keep = np.ones(x.size, bool)
    keep[::97] = False
    assert np.array_equal(short[keep].view(np.uint8), full[keep].view(np.uint8))
