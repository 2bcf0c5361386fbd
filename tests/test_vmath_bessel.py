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
