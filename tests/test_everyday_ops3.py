"""The functions of ops/everyday3.yaml (masked_scatter, scatter_reduce, index_reduce, ...) against
PyTorch: values, dtypes, shapes, gradients, the error messages of bad arguments and empty inputs."""
import re
import warnings

import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float64", seed=0, ints=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=shape) if ints else rng.standard_normal(shape)
    if dtype == "bfloat16":   # (NumPy has none)
        a = np.asarray(a).astype("float32")
        return loom.tensor(a).to(loom.bfloat16), torch.tensor(a).to(torch.bfloat16)
    a = np.asarray(a).astype(dtype)
    return loom.tensor(a), torch.tensor(a)


def _same(got, want, rtol=1e-10, atol=1e-12):
    assert isinstance(got, loom.Tensor), type(got)
    want = want.detach()
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert got.dtype.name == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    if want.dtype == torch.bfloat16:
        got, want = got.float(), want.float()
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _raises_as_torch(lfn, tfn, exc=RuntimeError):
    """Both raise, and loom's message holds PyTorch's (loom's starts with the op's name)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as te:
            tfn()
        with pytest.raises(exc) as le:
            lfn()
    want = re.sub(r"^(torch\.\w+\(\): |torch\.\w+: |\w+\(\): )", "", str(te.value))
    want = re.sub(r" \(Triggered internally at .*", "", want, flags=re.S)
    assert want in str(le.value), (str(le.value), str(te.value))


def _both(x):
    return loom.tensor(np.asarray(x)), torch.tensor(np.asarray(x))


# --------------------------------------------------------------------------------- masked_scatter

MS_CASES = [((2, 3), (3,)), ((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 1, 3), (4, 1)), ((), (2,)), ((0, 3), (3,))]


@pytest.mark.parametrize("s_self,s_mask", MS_CASES)
def test_masked_scatter_values_and_gradients(s_self, s_mask):
    rng = np.random.default_rng(1)
    mask = rng.random(s_mask) < 0.5
    lm, tm = _both(mask)
    n = int(np.broadcast_to(mask, np.broadcast_shapes(s_self, s_mask)).sum())
    a, ta = _pair(s_self)
    src, tsrc = _pair((n + 2,), seed=3)
    for x in (a, ta, src, tsrc):
        x.requires_grad_()
    got, want = loom.masked_scatter(a, lm, src), torch.masked_scatter(ta, tm, tsrc)
    _same(got, want)
    g = np.random.default_rng(9).standard_normal(tuple(want.shape))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    _same(a.grad, ta.grad)
    _same(src.grad, tsrc.grad)


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "float32", "float16", "complex64"])
def test_masked_scatter_dtypes_method_and_inplace(dtype):
    mask = np.array([[True, False, True], [False, False, True]])
    lm, tm = _both(mask)
    a, ta = _pair((2, 3), dtype, ints=True)
    s, ts = _pair((2, 4), dtype, seed=2, ints=True)
    _same(a.masked_scatter(lm, s), ta.masked_scatter(tm, ts))
    lm1, tm1 = _both(mask[1])
    r = a.masked_scatter_(lm1, s)
    assert r is a
    _same(a, ta.masked_scatter_(tm1, ts))


def test_masked_scatter_inplace_gradient_and_source_shape():
    mask = np.array([True, False, True, True])
    lm, tm = _both(mask)
    w, tw = _pair((2, 4))
    src, tsrc = _pair((3, 3), seed=1)
    for x in (w, tw, src, tsrc):
        x.requires_grad_()
    y, ty = w * 2, tw * 2
    y.masked_scatter_(lm, src)
    ty.masked_scatter_(tm, tsrc)
    _same(y, ty)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    _same(w.grad, tw.grad)
    _same(src.grad, tsrc.grad)


def test_masked_scatter_errors():
    a, ta = _pair((2, 3), "float32")
    s, ts = _pair((10,), "float32")
    m, tm = _both([True, False, True])
    _raises_as_torch(lambda: a.masked_scatter(m, s[:3]), lambda: ta.masked_scatter(tm, ts[:3]))
    _raises_as_torch(lambda: a.masked_scatter(m.to(loom.uint8), s), lambda: ta.masked_scatter(tm.to(torch.uint8), ts))
    _raises_as_torch(lambda: a.masked_scatter(m.float(), s), lambda: ta.masked_scatter(tm.float(), ts))
    _raises_as_torch(lambda: a.masked_scatter(m, s.double()), lambda: ta.masked_scatter(tm, ts.double()))
    m4, tm4 = _both([True] * 4)
    _raises_as_torch(lambda: a.masked_scatter(m4, s), lambda: ta.masked_scatter(tm4, ts))
    _raises_as_torch(lambda: a.masked_scatter_(m4, s), lambda: ta.masked_scatter_(tm4, ts))
    m23, tm23 = _both(np.ones((2, 3), bool))
    _raises_as_torch(lambda: a[0].masked_scatter_(m23, s), lambda: ta[0].masked_scatter_(tm23, ts))
    # no true element: an empty source is fine
    z, tz = _both(np.zeros(3, bool))
    _same(a.masked_scatter(z, s[:0]), ta.masked_scatter(tz, ts[:0]))


# --------------------------------------------------------------------------------- scatter_reduce

REDUCES = ["sum", "prod", "mean", "amax", "amin"]


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scatter_reduce_values(reduce, include_self, dim):
    rng = np.random.default_rng(4)
    a, ta = _pair((4, 5))
    s, ts = _pair((5, 6), seed=1)
    idx = rng.integers(0, 4 if dim == 0 else 5, size=(3, 4))
    li, ti = _both(idx)
    _same(a.scatter_reduce(dim, li, s, reduce, include_self=include_self),
          ta.scatter_reduce(dim, ti, ts, reduce, include_self=include_self))
    _same(loom.scatter_reduce(a, dim, li, s, reduce=reduce, include_self=include_self),
          torch.scatter_reduce(ta, dim, ti, ts, reduce=reduce, include_self=include_self))


@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_gradients_as_torch(reduce, include_self):
    # ties among the maxima (2.0 scattered twice to one place, and equal to self there) share the gradient
    a_np = np.array([[2.0, -1.0, 0.5, 3.0], [1.5, 0.0, -2.0, 4.0]])
    s_np = np.array([[2.0, 0.25, -3.0, 2.0], [0.0, 5.0, 0.0, -1.0]])   # (PyTorch refuses a src larger than index)
    idx = np.array([[0, 1, 2, 0], [1, 1, 3, 2]])
    a, ta = _both(a_np)
    s, ts = _both(s_np)
    li, ti = _both(idx)
    for x in (a, ta, s, ts):
        x.requires_grad_()
    got = a.scatter_reduce(1, li, s, reduce, include_self=include_self)
    want = ta.scatter_reduce(1, ti, ts, reduce, include_self=include_self)
    _same(got, want)
    g = np.random.default_rng(9).standard_normal((2, 4))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    _same(a.grad, ta.grad)
    _same(s.grad, ts.grad)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
def test_scatter_reduce_gradcheck(reduce):
    a = loom.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    s = loom.tensor(np.random.default_rng(1).standard_normal((3, 5)), requires_grad=True)
    idx = loom.tensor([[0, 1, 3, 1, 0], [2, 2, 2, 0, 3], [1, 3, 0, 1, 2]])
    for inc in (True, False):
        assert loom.autograd.gradcheck(lambda x, y: x.scatter_reduce(1, idx, y, reduce, include_self=inc), (a, s))


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8", "float32", "float16", "bfloat16", "bool"])
@pytest.mark.parametrize("reduce", REDUCES)
def test_scatter_reduce_dtypes(dtype, reduce):
    if dtype == "bool" and reduce == "mean":
        pytest.skip("PyTorch refuses a bool mean")
    a, ta = _pair((3, 4), dtype, ints=True)
    s, ts = _pair((3, 4), dtype, seed=1, ints=True)
    idx = np.random.default_rng(2).integers(0, 4, size=(3, 4))
    li, ti = _both(idx)
    for inc in (True, False):
        _same(a.scatter_reduce(1, li, s, reduce, include_self=inc),
              ta.scatter_reduce(1, ti, ts, reduce, include_self=inc), rtol=1e-2, atol=1e-2)


def test_scatter_reduce_integer_mean_rounds_down_and_nan_wins():
    a, ta = _both(np.array([-7, 3, 0, 5]))
    s, ts = _both(np.array([-2, 4, 1, -1, 2]))
    li, ti = _both(np.array([0, 0, 1, 2, 2]))
    for inc in (True, False):
        _same(a.scatter_reduce(0, li, s, "mean", include_self=inc), ta.scatter_reduce(0, ti, ts, "mean", include_self=inc))
    f, tf = _both(np.array([1.0, np.nan, 2.0]))
    sf, tsf = _both(np.array([np.nan, 5.0, 0.0]))
    lj, tj = _both(np.array([0, 1, 2]))
    for r in ("amax", "amin"):
        _same(f.scatter_reduce(0, lj, sf, r), tf.scatter_reduce(0, tj, tsf, r))


def test_scatter_reduce_inplace_out_and_empty():
    a, ta = _pair((3, 4))
    s, ts = _pair((3, 4), seed=1)
    li, ti = _both(np.array([[0, 1], [3, 3], [2, 0]]))
    r = a.scatter_reduce_(1, li, s, "prod")
    assert r is a
    _same(a, ta.scatter_reduce_(1, ti, ts, "prod"))
    e, te = _both(np.zeros((3, 0), np.int64))
    _same(a.scatter_reduce(1, e, s, "amax", include_self=False), ta.scatter_reduce(1, te, ts, "amax", include_self=False))


def test_scatter_reduce_errors():
    a, ta = _pair((4,), "float32")
    s, ts = _pair((6,), "float32")
    li, ti = _both(np.array([0, 1, 0, 1, 2, 1]))
    _raises_as_torch(lambda: a.scatter_reduce(0, li, s.double(), "sum"), lambda: ta.scatter_reduce(0, ti, ts.double(), "sum"))
    _raises_as_torch(lambda: a.scatter_reduce(0, li + 5, s, "sum"), lambda: ta.scatter_reduce(0, ti + 5, ts, "sum"),
                     IndexError)
    _raises_as_torch(lambda: a.scatter_reduce(0, li, s[:3], "sum"), lambda: ta.scatter_reduce(0, ti, ts[:3], "sum"))
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got max"):
        a.scatter_reduce(0, li, s, "max")   # (PyTorch 2.13 returns self unchanged)
    with pytest.raises(IndexError, match="Dimension out of range"):
        a.scatter_reduce(1, li, s, "sum")


# ---------------------------------------------------------------------------------- index_reduce

@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dim", [0, 1])
def test_index_reduce_values_and_gradients(reduce, include_self, dim):
    a, ta = _pair((4, 3))
    src_shape = (5, 3) if dim == 0 else (4, 5)
    s, ts = _pair(src_shape, seed=1)
    idx = np.array([0, 2, 0, 1, 2])
    li, ti = _both(idx)
    for x in (a, ta, s, ts):
        x.requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ta.index_reduce(dim, ti, ts, reduce, include_self=include_self)
    got = a.index_reduce(dim, li, s, reduce, include_self=include_self)
    _same(got, want)
    g = np.random.default_rng(9).standard_normal(tuple(want.shape))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    _same(a.grad, ta.grad)
    _same(s.grad, ts.grad)


def test_index_reduce_inplace_ints_and_int32_index():
    a, ta = _pair((4,), "int64", ints=True)
    s, ts = _pair((6,), "int64", seed=1, ints=True)
    li, ti = _both(np.array([0, 1, 0, 1, 2, 1], np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = ta.index_reduce_(0, ti, ts, "mean")
    assert a.index_reduce_(0, li, s, "mean") is a
    _same(a, want)


def test_index_reduce_errors():
    a, ta = _pair((4,), "float32")
    s, ts = _pair((6,), "float32")
    li, ti = _both(np.array([0, 1, 0, 1, 2, 1]))
    _raises_as_torch(lambda: a.index_reduce(0, li, s, "sum"), lambda: ta.index_reduce(0, ti, ts, "sum"))
    _raises_as_torch(lambda: a.index_reduce(0, li, s[:3], "amax"), lambda: ta.index_reduce(0, ti, ts[:3], "amax"))
    _raises_as_torch(lambda: a.index_reduce(0, li.float(), s, "amax"), lambda: ta.index_reduce(0, ti.float(), ts, "amax"))
    _raises_as_torch(lambda: a.index_reduce(0, li.reshape(2, 3), s, "amax"),
                     lambda: ta.index_reduce(0, ti.reshape(2, 3), ts, "amax"), IndexError)
    b, tb = _pair((4, 2), "float32")
    o, to = _pair((6, 3), "float32")
    _raises_as_torch(lambda: b.index_reduce(0, li, o, "amax"), lambda: tb.index_reduce(0, ti, to, "amax"))
    _raises_as_torch(lambda: a.index_reduce(0, li, s.double(), "amax"), lambda: ta.index_reduce(0, ti, ts.double(), "amax"))
    _raises_as_torch(lambda: a.index_reduce(0, li + 5, s, "amax"), lambda: ta.index_reduce(0, ti + 5, ts, "amax"), IndexError)
    _raises_as_torch(lambda: a.index_reduce(0, li - 5, s, "amax"), lambda: ta.index_reduce(0, ti - 5, ts, "amax"), IndexError)


# ------------------------------------------------------------------------------------ Tensor.unfold

@pytest.mark.parametrize("shape,args", [((2, 5), (1, 2, 2)), ((2, 5), (1, 5, 1)), ((2, 5), (1, 0, 1)), ((2, 5), (-1, 3, 2)),
                                        ((4, 3), (0, 2, 1)), ((3, 4, 5), (1, 2, 3)), ((), (0, 1, 1)), ((0, 3), (1, 2, 1))])
def test_unfold_is_a_view_with_torch_values_strides_and_gradients(shape, args):
    a, ta = _pair(shape)
    got, want = a.unfold(*args), ta.unfold(*args)
    _same(got, want)
    assert tuple(got.stride()) == tuple(want.stride())
    assert got.data_ptr() == a.data_ptr() or got.numel() == 0   # a view: no copy
    a.requires_grad_()
    ta.requires_grad_()
    g = np.random.default_rng(9).standard_normal(tuple(want.shape))
    a.unfold(*args).backward(loom.tensor(g))
    ta.unfold(*args).backward(torch.tensor(g))
    _same(a.grad, ta.grad)


def test_unfold_writes_through_and_gradcheck():
    a = loom.zeros(6)
    a.unfold(0, 2, 2)[:, 0] = 1.0
    assert a.tolist() == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    x = loom.tensor(np.random.default_rng(0).standard_normal((3, 7)), requires_grad=True)
    assert loom.autograd.gradcheck(lambda t: t.unfold(1, 3, 2) * 2, (x,))
    assert loom.autograd.gradgradcheck(lambda t: t.unfold(1, 3, 1) ** 2, (x,))


def test_unfold_errors():
    a, ta = _pair((2, 5))
    for args in [(1, 6, 1), (1, 2, 0), (1, -1, 1)]:
        _raises_as_torch(lambda: a.unfold(*args), lambda: ta.unfold(*args))
    _raises_as_torch(lambda: a.unfold(2, 1, 1), lambda: ta.unfold(2, 1, 1), IndexError)
    s, ts = _pair(())
    _raises_as_torch(lambda: s.unfold(0, 2, 1), lambda: ts.unfold(0, 2, 1))


# ------------------------------------------------------------------------------- cheap composites

def test_frexp_as_torch():
    v = np.array([0.0, -0.0, 1.0, 0.75, -3.5, 1e-310, np.inf, -np.inf, np.nan, 1024.0, 0.4999999999, 2.0 ** -1074,
                  1.7e308, -2.0 ** 0.5, 3.0e-39])
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        a, ta = _pair((15,), dtype)
        a, ta = a * 0 + loom.tensor(v).to(a.dtype), ta * 0 + torch.tensor(v).to(ta.dtype)
        (m, e), (tm_, te) = loom.frexp(a), torch.frexp(ta)
        _same(m, tm_)
        _same(e, te)
        m2, e2 = a.frexp()
        _same(m2, tm_)
    _raises_as_torch(lambda: loom.frexp(loom.arange(3)), lambda: torch.frexp(torch.arange(3)))


def test_ldexp_values_dtypes_and_inplace():
    a, ta = _pair((3, 4))
    e, te = _pair((3, 4), "int64", ints=True)
    _same(loom.ldexp(a, e), torch.ldexp(ta, te))
    _same(a.ldexp(e), ta.ldexp(te))
    i, ti = _pair((4,), "int32", ints=True)
    _same(loom.ldexp(i, e[0]), torch.ldexp(ti, te[0]))    # int * 2**int: float32
    f, tf = _pair((4,), "float16")
    _same(loom.ldexp(f, e[0]), torch.ldexp(tf, te[0]))
    assert a.ldexp_(e) is a
    _same(a, ta.ldexp_(te))
    x, tx = _pair((3,))
    y, ty = _pair((3,), seed=1)
    for p in (x, tx, y, ty):
        p.requires_grad_()
    loom.ldexp(x, y).sum().backward()
    torch.ldexp(tx, ty).sum().backward()
    _same(x.grad, tx.grad)
    _same(y.grad, ty.grad)


@pytest.mark.parametrize("N", [None, 0, 1, 4])
@pytest.mark.parametrize("increasing", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint8", "bool"])
def test_vander_as_torch(N, increasing, dtype):
    a, ta = _pair((4,), dtype, ints=True)
    _same(loom.vander(a, N=N, increasing=increasing), torch.vander(ta, N=N, increasing=increasing), rtol=1e-6)


def test_vander_gradients_and_errors():
    # (PyTorch 2.13's own vander cannot be differentiated: its cumprod writes in place on a saved output)
    x = np.array([0.5, -2.0, 0.0, 3.0])
    a = loom.tensor(x, requires_grad=True)
    loom.vander(a, 4).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), 1 + 2 * x + 3 * x ** 2)
    b = loom.tensor(x[[0, 1, 3]], requires_grad=True)
    assert loom.autograd.gradcheck(lambda t: loom.vander(t, 3, increasing=True), (b,))
    _raises_as_torch(lambda: loom.vander(loom.zeros(2, 2)), lambda: torch.vander(torch.zeros(2, 2)))
    _raises_as_torch(lambda: loom.vander(loom.zeros(2), N=-1), lambda: torch.vander(torch.zeros(2), N=-1))


@pytest.mark.parametrize("shape", [(2, 3), 6, (2, 1, 3), (5,), ()])
def test_unravel_index_as_torch(shape):
    n = int(np.prod(shape))
    idx = np.array([[0, n - 1], [1 % max(n, 1), -1], [n, -n - 1]])
    li, ti = _both(idx)
    got, want = loom.unravel_index(li, shape), torch.unravel_index(ti, shape)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        _same(g, w)
    g32 = loom.unravel_index(li.to(loom.int32), shape)
    for g, w in zip(g32, want):
        _same(g, w)


def test_unravel_index_errors():
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype, but got loom.float32"):
        loom.unravel_index(loom.tensor([1.0]), (2, 3))   # (PyTorch's names torch.float32)
    _raises_as_torch(lambda: loom.unravel_index(loom.tensor([1]), (2, -3)),
                     lambda: torch.unravel_index(torch.tensor([1]), (2, -3)), ValueError)


@pytest.mark.parametrize("p,dim,maxnorm", [(2, 0, 5.0), (1, 1, 3.0), (3.5, -1, 1.0), (2, 0, 0.0), (float("inf"), 1, 2.0)])
def test_renorm_values_and_gradients(p, dim, maxnorm):
    a, ta = _pair((3, 4, 2))
    a, ta = (a * 3).requires_grad_(), (ta * 3).requires_grad_()
    got, want = loom.renorm(a, p, dim, maxnorm), torch.renorm(ta, p, dim, maxnorm)
    _same(got, want)
    _same(a.renorm(p, dim, maxnorm), ta.renorm(p, dim, maxnorm))
    g = np.random.default_rng(9).standard_normal((3, 4, 2))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    _same(a.grad, ta.grad, rtol=1e-8)


def test_renorm_inplace_and_errors():
    a, ta = _pair((3, 4))
    assert a.renorm_(2, 0, 1.0) is a
    _same(a, ta.renorm_(2, 0, 1.0))
    _raises_as_torch(lambda: a.renorm(-1, 0, 5), lambda: ta.renorm(-1, 0, 5))
    _raises_as_torch(lambda: a.renorm(2, 0, -5), lambda: ta.renorm(2, 0, -5))


def test_narrow_copy_is_a_copy():
    a, ta = _pair((3, 5))
    got = loom.narrow_copy(a, 1, 1, 3)
    _same(got, torch.narrow_copy(ta, 1, 1, 3))
    got[0, 0] = 100.0
    assert float(a[0, 1]) != 100.0
    _same(a.narrow_copy(0, -2, 2), ta.narrow_copy(0, -2, 2))
    _raises_as_torch(lambda: loom.narrow_copy(a, 1, 3, 3), lambda: torch.narrow_copy(ta, 1, 3, 3))


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_values_gradients_and_inplace(accumulate):
    a, ta = _pair((3, 4))
    idx = np.array([[1, -1], [5, 5 if accumulate else 6]])
    li, ti = _both(idx)
    s, ts = _pair((2, 2), seed=1)
    for x in (a, ta, s, ts):
        x.requires_grad_()
    got, want = loom.put(a, li, s, accumulate), torch.put(ta, ti, ts, accumulate)
    _same(got, want)
    g = np.random.default_rng(9).standard_normal((3, 4))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    _same(a.grad, ta.grad)
    _same(s.grad, ts.grad)
    b, tb = _pair((3, 4), "int64", ints=True)
    sb, tsb = _pair((4,), "int64", seed=1, ints=True)
    assert b.put_(li.reshape(-1), sb, accumulate=accumulate) is b
    _same(b, tb.put_(ti.reshape(-1), tsb, accumulate=accumulate))


def test_put_errors():
    a, ta = _pair((2, 5), "float32")
    one, tone = _both(np.array([1.0], np.float32))
    _raises_as_torch(lambda: a.put(loom.tensor([11]), one), lambda: ta.put(torch.tensor([11]), tone), IndexError)
    _raises_as_torch(lambda: a.put(loom.tensor([-11]), one), lambda: ta.put(torch.tensor([-11]), tone), IndexError)
    _raises_as_torch(lambda: a.put(loom.tensor([1, 2]), one), lambda: ta.put(torch.tensor([1, 2]), tone), IndexError)
    _raises_as_torch(lambda: a.put(loom.tensor([1.0]), one), lambda: ta.put(torch.tensor([1.0]), tone))
    _raises_as_torch(lambda: a.put(loom.tensor([1]), loom.tensor([1])), lambda: ta.put(torch.tensor([1]), torch.tensor([1])))


def test_as_strided_views_the_storage_as_torch():
    torch = pytest.importorskip("torch")
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    x, t = loom.tensor(base), torch.tensor(base)
    for args in [((3, 2), (1, 2)), ((2, 2), (6, 1), 7), ((4,), (0,)), ((2, 3), (1, 1), None), ((0, 5), (1, 1))]:
        np.testing.assert_array_equal(x.as_strided(*args).numpy(), t.as_strided(*args).numpy())
    v = x.as_strided((2, 2), (6, 1), 7)
    v.fill_(-1.0)   # a view: the write reaches the base
    assert float(x[1, 1]) == -1.0 and float(x[2, 2]) == -1.0
    xs = x.t()   # from a transposed tensor: strides count in its storage, as PyTorch's
    np.testing.assert_array_equal(xs.as_strided((3,), (5,), 1).numpy(), t.t().as_strided((3,), (5,), 1).numpy())


@pytest.mark.parametrize("args, msg", [
    (((2, 2), (1, 1), 100), "out of bounds for storage of size 96"),
    (((2,), (1, 2)), "mismatch in length of strides and shape"),
    (((2, 2), (-1, 1)), "Negative strides are not supported"),
    (((2,), (1,), -1), "invalid storage offset -1"),
])
def test_as_strided_errors(args, msg):
    with pytest.raises(RuntimeError, match=msg):
        loom.arange(24.0).as_strided(*args)


def test_as_strided_gradient_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for make, size, stride, off in [(lambda a: a, (3, 3), (1, 1), None), (lambda a: a.t(), (2, 3), (1, 2), 1),
                                    (lambda a: a, (4,), (0,), 2)]:
        a = rng.standard_normal((4, 3)).astype(np.float32)
        xl, xt = loom.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        yl, yt = make(xl).as_strided(size, stride, off), make(xt).as_strided(size, stride, off)
        g = rng.standard_normal(size).astype(np.float32)
        yl.backward(loom.tensor(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_short_char_cfloat_cdouble():
    x = loom.tensor([1.5, -2.0])
    assert x.char().dtype == loom.int8 and x.short().dtype == loom.int16
    assert x.cfloat().dtype == loom.complex64 and x.cdouble().dtype == loom.complex128
    assert x.short().tolist() == [1, -2]
