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


BINARY_EDGES = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 1e3]


@pytest.mark.parametrize("name", ["atan2", "hypot", "copysign", "logaddexp", "logaddexp2", "xlogy"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_binary_edges_as_torch(name, dtype):
    a = np.array(BINARY_EDGES, dtype=dtype)
    x, y = np.meshgrid(a, a)
    got = getattr(loom, name)(loom.tensor(x), loom.tensor(y))
    want = getattr(torch, name)(torch.tensor(x), torch.tensor(y))
    if name.startswith("logaddexp"):   # torch's vector path: logaddexp2(-1, -1) = -1.06e-8, not 0
        want = torch.from_numpy(getattr(np, name)(x, y))
    _same(got, want, rtol=1e-5 if dtype == "float32" else 1e-12, atol=0)


def test_integer_inputs_promote_as_torch():
    a, b = np.array([3, -2, 0]), np.array([0, 4, -1])
    for name in ("atan2", "copysign", "xlogy", "float_power", "true_divide"):
        _same(getattr(loom, name)(loom.tensor(a), loom.tensor(b)), getattr(torch, name)(torch.tensor(a), torch.tensor(b)))
    _same(loom.rsub(loom.tensor(a), 5, alpha=2), torch.rsub(torch.tensor(a), 5, alpha=2))


def test_heaviside_as_torch_and_its_refusals():
    x, v = np.array([float("nan"), -1.0, 0.0, -0.0, 2.0]), np.array([0.5])
    _same(loom.heaviside(loom.tensor(x), loom.tensor(v)), torch.heaviside(torch.tensor(x), torch.tensor(v)))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        loom.heaviside(loom.tensor([1.0]), loom.tensor([1]))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'self'"):
        loom.heaviside(loom.tensor([1.0], requires_grad=True), loom.tensor([1.0]))


def _grads_as_torch(f_loom, f_torch, *arrays, rtol=1e-7):
    """Values and gradients of the sum of f's result against PyTorch's, in float64."""
    lx = [loom.tensor(a, dtype=loom.float64, requires_grad=True) for a in arrays]
    tx = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    lr, tr = f_loom(*lx), f_torch(*tx)
    _same(lr, tr, rtol=rtol, atol=1e-12)
    lr.sum().backward()
    tr.sum().backward()
    for a, b in zip(lx, tx):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=1e-12)


RNG = np.random.default_rng(0)
M34, M34b, M34c, V4 = (RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.uniform(0.5, 2, (3, 4)),
                       RNG.standard_normal(4))


@pytest.mark.parametrize("case", [
    ("lerp_scalar", lambda m, a: m.lerp(a, 0.3), M34, M34b),
    ("lerp_tensor", lambda m, a, w: m.lerp(a, w), M34, M34b, M34c),
    ("addcmul", lambda m, a, b: m.addcmul(a, b, value=0.5), M34, M34b, M34c),
    ("addcdiv", lambda m, a, b: m.addcdiv(a, b, value=-2), M34, M34b, M34c),
    ("float_power", lambda m, a: m.float_power(a), M34c, M34c),
    ("clamp_min", lambda m: m.clamp_min(0.1), M34),
    ("clamp_max", lambda m: m.clamp_max(0.1), M34),
    ("diff", lambda m: m.diff(n=2, dim=0, append=m[:1]), M34),
    ("outer", lambda m, a: m.outer(a), V4, V4),
    ("dot", lambda m, a: m.dot(a), V4, V4),
    ("addmm", lambda m, a, b: m.addmm(a, b.t(), beta=0.5, alpha=2), M34[:, :3], M34b, M34c),
    ("baddbmm", lambda m, a, b: m.baddbmm(a, b, alpha=-1), M34[None, :, :3], M34b[None], M34c.T[None, :, :3]),
    ("nansum", lambda m: m.nansum(1), np.where(M34 > 1, np.nan, M34)),
    ("nanmean", lambda m: m.nanmean(0), np.where(M34 > 1, np.nan, M34)),
    ("logaddexp", lambda m, a: m.logaddexp(a), M34, M34b),
    ("norm_fro", lambda m: m.norm(), M34),
    ("norm_p3_dim", lambda m: m.norm(p=3, dim=1, keepdim=True), M34),
    ("norm_inf", lambda m: m.norm(p=float("inf"), dim=0), M34),
    ("norm_zero_vector", lambda m: (m * 0).norm(dim=1), M34),
], ids=lambda c: c[0])
def test_composite_values_and_gradients_as_torch(case):
    _, f, *arrays = case
    _grads_as_torch(f, f, *arrays)


@pytest.mark.parametrize("ord_", ["fro", 1, -1, float("inf"), float("-inf")])
def test_matrix_norm_as_torch(ord_):
    a = RNG.standard_normal((2, 3, 4))
    _same(loom.linalg.matrix_norm(loom.tensor(a), ord_), torch.linalg.matrix_norm(torch.tensor(a), ord_), rtol=1e-12)
    _same(loom.linalg.norm(loom.tensor(a), ord_, dim=(0, 2), keepdim=True),
          torch.linalg.norm(torch.tensor(a), ord_, dim=(0, 2), keepdim=True), rtol=1e-12)


@pytest.mark.parametrize("ord_", [2, 1, 0, 3.5, float("inf"), float("-inf")])
def test_vector_norm_as_torch(ord_):
    a = np.where(M34 > 1, 0.0, M34)
    _same(loom.linalg.vector_norm(loom.tensor(a), ord_, dim=1), torch.linalg.vector_norm(torch.tensor(a), ord_, dim=1),
          rtol=1e-12)
    _same(loom.linalg.vector_norm(loom.tensor(a), ord_), torch.linalg.vector_norm(torch.tensor(a), ord_), rtol=1e-12)


def test_aminmax_count_nonzero_isclose_as_torch():
    a = np.array([[1.0, 0.0, float("inf")], [float("nan"), 1e-9, -2.0]])
    b = np.array([[1.0 + 1e-6, 0.0, float("inf")], [float("nan"), 0.0, float("-inf")]])
    la, ta = loom.tensor(a), torch.tensor(a)
    for keepdim in (False, True):
        got, want = loom.aminmax(la[:, :2], dim=1, keepdim=keepdim), torch.aminmax(ta[:, :2], dim=1, keepdim=keepdim)
        _same(got.min, want.min)
        _same(got.max, want.max)
    _same(loom.count_nonzero(la, dim=[1]), torch.count_nonzero(ta, dim=1))
    for equal_nan in (False, True):
        _same(loom.isclose(la, loom.tensor(b), equal_nan=equal_nan),
              torch.isclose(ta, torch.tensor(b), equal_nan=equal_nan))
    _same(loom.isclose(loom.tensor([1, 5]), loom.tensor([1, 6]), atol=1), torch.isclose(torch.tensor([1, 5]), torch.tensor([1, 6]), atol=1))
    assert loom.allclose(la, la, equal_nan=True) and not loom.allclose(la, la)
    assert loom.tensor([1.0]).allclose(loom.tensor([1.0 + 1e-9]))


@pytest.mark.parametrize("call, match", [
    (lambda: loom.dot(loom.ones([2]), loom.ones([2], dtype=loom.float64)), "expected both vectors to have same dtype"),
    (lambda: loom.dot(loom.ones([2, 2]), loom.ones([2, 2])), "1D tensors expected, but got 2D and 2D tensors"),
    (lambda: loom.dot(loom.ones([2]), loom.ones([3])), "inconsistent tensor size"),
    (lambda: loom.outer(loom.ones([2, 2]), loom.ones([2])), "Expected 1-D argument self, but got 2-D"),
    (lambda: loom.isclose(loom.ones([2]), loom.ones([2], dtype=loom.float64)), "float32 did not match float64"),
    (lambda: loom.isclose(loom.ones([2]), loom.ones([2]), rtol=-1), "rtol must be greater than or equal to zero"),
    (lambda: loom.aminmax(loom.ones([0])), "cannot compute aminmax over an empty dimension"),
    (lambda: loom.diff(loom.ones([3]), n=-1), "order must be non-negative but got -1"),
    (lambda: loom.lerp(loom.ones([2]), loom.ones([2], dtype=loom.float64), 0.5), "expected dtype float32 for `end`"),
    (lambda: loom.addcdiv(loom.ones([2]), loom.ones([2], dtype=loom.int64), loom.ones([2], dtype=loom.int64)),
     "Integer division with addcdiv is no longer supported"),
    (lambda: loom.linalg.vector_norm(loom.ones([2], dtype=loom.int64)), "Expected a floating point or complex tensor"),
    (lambda: loom.linalg.matrix_norm(loom.ones([2])), "must have at least 2 dimensions"),
])
def test_refusals_name_the_problem(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


def test_composite_inplace_refuses_a_cast_and_writes_nothing():
    x = loom.tensor([1, 5])
    with pytest.raises(TypeError, match=r"^clamp_min_\(\): result type float32 can't be cast to the desired output type int64"):
        x.clamp_min_(2.5)
    assert x.tolist() == [1, 5]
    assert x.clamp_min_(3).tolist() == [3, 5]


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_cummax_cummin_ties_and_nan_as_torch(name, dtype):
    a = np.array([[1, 3, 3, float("nan"), 5, float("nan")], [2, 2, 0, 0, 7, 1]])
    a = np.nan_to_num(a).astype(dtype) if dtype != "float64" else a
    got, want = getattr(loom, name)(loom.tensor(a), 1), getattr(torch, name)(torch.tensor(a), 1)
    _same(got.values, want.values)
    assert got.indices.tolist() == want.indices.tolist()


def test_scan_gradients_as_torch():
    a = np.array([[0.5, -2.0, 0.0, 3.0, 0.0], [1.5, 0.7, -0.3, 2.0, 1.1]])
    _grads_as_torch(lambda m: m.cumprod(1), lambda m: m.cumprod(1), a)          # zeros: the explicit path
    _grads_as_torch(lambda m: m.cumprod(0), lambda m: m.cumprod(0), a[1:] + 0)  # no zeros: the quotient
    _grads_as_torch(lambda m: m.cummax(1).values, lambda m: m.cummax(1).values, a)
    _grads_as_torch(lambda m: m.cummin(0).values * 3, lambda m: m.cummin(0).values * 3, a)
    _grads_as_torch(lambda m: m.logcumsumexp(1) * m, lambda m: m.logcumsumexp(1) * m, a)


def test_cumprod_second_derivative_with_zeros():
    x = loom.tensor([[0.5, 0.0, 2.0, -1.0]], dtype=loom.float64, requires_grad=True)
    assert loom.autograd.gradgradcheck(lambda t: t.cumprod(1), (x,))


def test_logcumsumexp_is_stable_far_apart_and_at_minus_inf():
    a = np.array([-1000.0, 0.0, float("-inf"), 1000.0, float("inf"), float("nan")])
    _same(loom.logcumsumexp(loom.tensor(a), 0), torch.logcumsumexp(torch.tensor(a), 0))
    x = np.array([float("-inf"), float("-inf"), -1000.0, 0.0, 5.0])
    _grads_as_torch(lambda m: m.logcumsumexp(0), lambda m: m.logcumsumexp(0), x)


@pytest.mark.parametrize("kwargs", [{}, {"nan": 1.5}, {"posinf": 9.0, "neginf": -9.0}, {"nan": -1.0, "posinf": 2.0}])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_nan_to_num_as_torch(kwargs, dtype):
    a = np.array([float("nan"), float("inf"), float("-inf"), 1.5, -0.0]) if dtype != "int64" else np.array([1, -5, 0])
    a = a.astype(dtype)
    _same(loom.nan_to_num(loom.tensor(a), **kwargs), torch.nan_to_num(torch.tensor(a), **kwargs), rtol=0, atol=0)


@pytest.mark.parametrize("eps", [None, 1e-6, 0.2])
def test_logit_as_torch(eps):
    a = np.array([0.0, 1e-8, 0.1, 0.5, 0.9, 1.0])
    _same(loom.logit(loom.tensor(a), eps), torch.logit(torch.tensor(a), eps), rtol=1e-12)
    _grads_as_torch(lambda m: m.logit(eps), lambda m: m.logit(eps), a[1:-1])
    _same(loom.logit(loom.tensor([0, 1])), torch.logit(torch.tensor([0, 1])))


def test_erfinv_near_one_is_accurate():
    """erfinv's tail (1 - 1e-16 .. 1 - 1e-2): Newton on log erfc, where erf(y) rounds to 1."""
    special = pytest.importorskip("scipy.special", reason="SciPy is the reference")
    x = 1 - np.logspace(-16, -2, 200)
    x = np.concatenate([x, -x, [1 - np.finfo(np.float64).epsneg]])
    got = loom.erfinv(loom.tensor(x)).numpy()
    np.testing.assert_allclose(got, special.erfinv(x), rtol=4e-16 * 4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_extreme_values_as_torch(dtype):
    """The largest finite values, the smallest normal and subnormal ones through the everyday unary ops,
    against torch (log1p of a subnormal, where torch flushes to 0, is checked against the exact x)."""
    fi = np.finfo(dtype)
    x = np.array([fi.smallest_subnormal, -fi.smallest_subnormal, fi.tiny, -fi.tiny, fi.max, -fi.max, fi.eps,
                  1 - fi.epsneg], dtype=dtype)
    for name in ["abs", "neg", "exp", "expm1", "log", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan",
                 "tanh", "sinh", "cosh", "asinh", "atan", "sigmoid", "erf", "erfc", "erfinv", "lgamma",
                 "reciprocal", "square", "floor", "ceil", "round", "trunc", "frac", "sign", "exp2"]:
        _same(getattr(loom, name)(loom.tensor(x)), getattr(torch, name)(torch.tensor(x)),
              rtol=1e-5 if dtype == "float32" else 1e-12, atol=0)
    np.testing.assert_array_equal(loom.log1p(loom.tensor(x[:2])).numpy(), x[:2])
