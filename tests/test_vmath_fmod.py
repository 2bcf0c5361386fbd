"""native/kernels/vmath_fmod.h: fmod, remainder and floor_divide's short forms (a - n b in one fma) give the bits
of the full forms (libm's fmod) in every block they are taken, and both give NumPy's and PyTorch's results bit for
bit, signed zeros included; nextafter by its bits as C99's."""
import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch", reason="PyTorch is the remainder and floor_divide reference")

NP = {"fmod": np.fmod, "remainder": lambda a, b: torch.remainder(torch.from_numpy(a), torch.from_numpy(b)).numpy(),
      # float32 // computes in double and rounds once (PyTorch's in float differs past quotients of 2^24)
      "floor_divide": lambda a, b: torch.floor_divide(torch.from_numpy(a.astype(np.float64)),
                                                      torch.from_numpy(b.astype(np.float64))).numpy().astype(a.dtype)}


def _pairs(dt, n=20_000):
    """quotients across the short forms' range (|a / b| up to 2^60), exact multiples, signed zeros, subnormals"""
    rng = np.random.default_rng(79)
    b = rng.uniform(0.1, 5, n) * rng.choice([-1, 1], n)
    a = b * np.exp(rng.uniform(-40, np.log(2.0 ** 60), n)) * rng.choice([-1, 1], n)
    k = rng.integers(-1000, 1000, 2000).astype(np.float64)
    a = np.concatenate([a, k * 0.1, k * 3.0, [0.0, -0.0, 5e-324, -5e-324, 1e-300, 7.0, -7.0]])
    b = np.concatenate([b, np.full(2000, 0.1), np.full(2000, 3.0), [1.0, 1.0, 3.0, -3.0, 1e300, 0.5, 0.5]])
    with np.errstate(over="ignore", under="ignore"):
        return a.astype(dt), b.astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(NP))
def test_matches_reference_bits(name, dt):
    a, b = _pairs(dt)
    got = getattr(loom, name)(loom.tensor(a), loom.tensor(b)).numpy()
    want = NP[name](a, b)
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), name


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("name", sorted(NP))
def test_short_and_full_forms_give_the_same_bits(name, dt):
    # blocks of admitted pairs (|a / b| < 2^23) and the same pairs in blocks where one pair (a zero divisor, an
    # infinite dividend) sends the loop to libm's fmod
    rng = np.random.default_rng(83)
    b = (rng.uniform(0.5, 5, 8192) * rng.choice([-1, 1], 8192)).astype(dt)
    a = (rng.uniform(-1000, 1000, 8192)).astype(dt)
    a2, b2 = a.copy(), b.copy()
    b2[::97] = 0.0
    a2[50::97] = np.inf
    fn = getattr(loom, name)
    short, full = fn(loom.tensor(a), loom.tensor(b)).numpy(), fn(loom.tensor(a2), loom.tensor(b2)).numpy()
    keep = np.ones(a.size, bool)
    keep[::97] = keep[50::97] = False
    assert np.array_equal(short[keep].view(np.uint8), full[keep].view(np.uint8))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_nextafter_matches_numpy_bits(dt):
    info = np.finfo(dt)
    v = np.array([0.0, -0.0, 1.0, -1.0, info.max, -info.max, info.tiny, -info.tiny, info.smallest_subnormal,
                  -info.smallest_subnormal, np.inf, -np.inf, np.nan, 3.5, -2.25], dtype=dt)
    x, y = np.repeat(v, v.size), np.tile(v, v.size)
    rng = np.random.default_rng(89)
    r = (rng.standard_normal((2, 20_000)) * np.exp(rng.uniform(-30, 30, (2, 20_000)))).astype(dt)
    x, y = np.concatenate([x, r[0]]), np.concatenate([y, r[1]])
    got = loom.nextafter(loom.tensor(x), loom.tensor(y)).numpy()
    with np.errstate(over="ignore"):
        want = np.nextafter(x, y)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got[~np.isnan(got)]), np.signbit(want[~np.isnan(want)]))
