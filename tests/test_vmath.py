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
