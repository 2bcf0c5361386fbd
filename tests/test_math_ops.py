"""The math ops of PyTorch's that loom added in one go (trig, hyperbolic, logs,
special functions, binary and ternary pointwise, reductions built from them):
edge values and arguments the generated tests do not reach, against PyTorch."""
import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")

EDGES = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-8, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, -2.5,
         10.0, -10.3, 30.0, 1e4]


def _same(got, want, rtol=1e-6, atol=1e-6):
    want = want.detach().numpy()
    assert str(got.dtype).split(".")[-1] == str(want.dtype), (got.dtype, want.dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("name", ["tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh", "atanh",
                                  "log2", "log10", "exp2", "reciprocal", "lgamma", "digamma", "erfinv", "frac",
                                  "signbit", "isinf", "isposinf", "isneginf", "square"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_edges_as_torch(name, dtype):
    x = np.array(EDGES, dtype=dtype)
    got = getattr(loom, name)(loom.tensor(x))
    want = getattr(torch, name)(torch.tensor(x))
    _same(got, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=0)


@pytest.mark.parametrize("name", ["reciprocal", "exp2", "log2", "lgamma", "digamma", "signbit", "isinf", "square"])
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_unary_integer_and_bool_inputs_as_torch(name, dtype):
    x = np.array([0, 1, 1, 0] if dtype == "bool" else [-3, 0, 1, 7], dtype=dtype)
    _same(getattr(loom, name)(loom.tensor(x)), getattr(torch, name)(torch.tensor(x)), atol=0)


def test_signbit_sees_negative_zero():
    assert loom.signbit(loom.tensor([-0.0, 0.0])).tolist() == [True, False]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_polygamma_as_torch(n):
    # rtol 1e-8: PyTorch's own trigamma is good to ~1e-9 in float64 (loom's matches SciPy's to 1e-15)
    x = np.array([0.1, 0.5, 1.0, 2.5, 7.0, 30.0, -0.5, -2.3, 0.0, float("nan")])
    _same(loom.polygamma(n, loom.tensor(x)), torch.polygamma(n, torch.tensor(x)), rtol=1e-8, atol=0)


def test_polygamma_has_poles_at_non_positive_integers():
    # PyTorch gives 6.6e32 for trigamma(-1) (a rounding artefact); the pole is +inf
    got = loom.polygamma(1, loom.tensor([0.0, -1.0, -4.0], dtype=loom.float64)).tolist()
    assert got == [float("inf")] * 3


def test_polygamma_refuses_negative_n():
    with pytest.raises(RuntimeError, match=r"polygamma\(n, x\) does not support negative n"):
        loom.polygamma(-1, loom.tensor([1.0]))


def test_lgamma_second_derivative_is_trigamma():
    x = loom.tensor([0.7, 3.0], dtype=loom.float64, requires_grad=True)
    (g,) = loom.autograd.grad(loom.lgamma(x).sum(), x, create_graph=True)
    (h,) = loom.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), torch.polygamma(1, torch.tensor([0.7, 3.0], dtype=torch.float64)).numpy(),
                               rtol=1e-8)
