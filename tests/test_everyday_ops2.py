"""The functions of ops/everyday2.yaml (inner, ger, addmv, addr, addbmm, chain_matmul, cross,
diagflat, row_stack, kthvalue, unique, unique_consecutive) and python/loom/_multi.py's
tensor_split, hsplit, vsplit and dsplit against PyTorch: values, dtypes, shapes, gradients, the
error messages of bad arguments, empty inputs and the return forms."""
import re
import warnings

import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float64", seed=0, ints=False):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, size=shape) if ints else rng.standard_normal(shape)
    a = np.asarray(a).astype(dtype)
    return loom.tensor(a), torch.tensor(a)


def _same(got, want, rtol=1e-10, atol=1e-12):
    assert isinstance(got, loom.Tensor), type(got)
    want = want.detach()
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert got.dtype.name == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _same_all(got, want, **kw):
    assert isinstance(got, tuple) and isinstance(want, tuple), (type(got), type(want))
    assert len(got) == len(want), (len(got), len(want))
    for g, w in zip(got, want):
        _same(g, w, **kw)


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


def _grads_as_torch(lfn, tfn, shapes, seed=0):
    pairs = [_pair(s, seed=seed + i) for i, s in enumerate(shapes)]
    la = [p[0].requires_grad_() for p in pairs]
    ta = [p[1].requires_grad_() for p in pairs]
    got, want = lfn(*la), tfn(*ta)
    _same(got, want)
    g = np.random.default_rng(99).standard_normal(tuple(want.shape))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    for a, b in zip(la, ta):
        _same(a.grad, b.grad)


# ---------------------------------------------------------------------------------------- inner

@pytest.mark.parametrize("s1,s2", [((4,), (4,)), ((2, 3), (4, 3)), ((2, 1, 3), (3,)), ((3,), ()), ((), (2, 2)),
                                   ((0, 3), (2, 3)), ((2, 0), (3, 0))])
def test_inner_values_and_gradients(s1, s2):
    _grads_as_torch(loom.inner, torch.inner, [s1, s2])
    a, ta = _pair(s1)
    b, tb = _pair(s2, seed=1)
    _same(a.inner(b), ta.inner(tb))


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32", "complex64"])
def test_inner_dtypes(dtype):
    a, ta = _pair((2, 3), dtype, ints=True)
    b, tb = _pair((3,), dtype, seed=1, ints=True)
    _same(loom.inner(a, b), torch.inner(ta, tb), rtol=1e-6)


def test_inner_errors():
    a, ta = _pair((2, 3))
    b, tb = _pair((4, 5))
    _raises_as_torch(lambda: loom.inner(a, b), lambda: torch.inner(ta, tb))
    c, tc = _pair((3,), "float32")
    _raises_as_torch(lambda: loom.inner(a, c), lambda: torch.inner(ta, tc))


# ------------------------------------------------------------------------------------------ ger

def test_ger_as_outer():
    _grads_as_torch(loom.ger, torch.ger, [(3,), (4,)])
    a, ta = _pair((3,))
    b, tb = _pair((0,), seed=1)
    _same(a.ger(b), ta.ger(tb))
    c, tc = _pair((3, 1))
    _raises_as_torch(lambda: loom.ger(c, a), lambda: torch.ger(tc, ta))
    _raises_as_torch(lambda: loom.ger(a, c), lambda: torch.ger(ta, tc))


# ---------------------------------------------------------------------------------------- addmv

@pytest.mark.parametrize("s_in", [(3,), (1,), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2), (0, -1.5)])
def test_addmv_values_and_gradients(s_in, beta, alpha):
    _grads_as_torch(lambda s, m, v: loom.addmv(s, m, v, beta=beta, alpha=alpha),
                    lambda s, m, v: torch.addmv(s, m, v, beta=beta, alpha=alpha), [s_in, (3, 4), (4,)])


def test_addmv_method_int_beta_zero_and_empty():
    s, ts = _pair((3,), "int64", ints=True)
    m, tm = _pair((3, 4), "int64", seed=1, ints=True)
    v, tv = _pair((4,), "int64", seed=2, ints=True)
    _same(s.addmv(m, v, beta=2, alpha=3), ts.addmv(tm, tv, beta=2, alpha=3))
    _same(loom.addmv(s, m, v, beta=1.5, alpha=2.5), torch.addmv(ts, tm, tv, beta=1.5, alpha=2.5))
    nan = loom.full((3,), float("nan"), dtype=loom.float64)
    _same(loom.addmv(nan, m.double(), v.double(), beta=0), torch.addmv(torch.full((3,), float("nan")).double(),
                                                                        tm.double(), tv.double(), beta=0))
    e, te = _pair((0,))
    em, tem = _pair((0, 4))
    v2, tv2 = _pair((4,))
    _same(loom.addmv(e, em, v2), torch.addmv(te, tem, tv2))
    z, tz = _pair((3, 0))
    zv, tzv = _pair((0,))
    s3, ts3 = _pair((3,))
    _same(loom.addmv(s3, z, zv), torch.addmv(ts3, tz, tzv))


def test_addmv_errors():
    s, ts = _pair((3,))
    m, tm = _pair((3, 4))
    v, tv = _pair((5,))
    _raises_as_torch(lambda: loom.addmv(s, m, v), lambda: torch.addmv(ts, tm, tv))
    s2, ts2 = _pair((2,))
    v4, tv4 = _pair((4,))
    _raises_as_torch(lambda: loom.addmv(s2, m, v4), lambda: torch.addmv(ts2, tm, tv4))
    m3, tm3 = _pair((3, 4, 1))
    _raises_as_torch(lambda: loom.addmv(s, m3, v4), lambda: torch.addmv(ts, tm3, tv4))
    v41, tv41 = _pair((4, 1))
    _raises_as_torch(lambda: loom.addmv(s, m, v41), lambda: torch.addmv(ts, tm, tv41))
    vf, tvf = _pair((4,), "float32")
    _raises_as_torch(lambda: loom.addmv(s, m, vf), lambda: torch.addmv(ts, tm, tvf))


# ----------------------------------------------------------------------------------------- addr

@pytest.mark.parametrize("s_in", [(3, 4), (1, 4), (4,), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2), (0, 3)])
def test_addr_values_and_gradients(s_in, beta, alpha):
    _grads_as_torch(lambda s, a, b: loom.addr(s, a, b, beta=beta, alpha=alpha),
                    lambda s, a, b: torch.addr(s, a, b, beta=beta, alpha=alpha), [s_in, (3,), (4,)])


def test_addr_dtypes_and_method():
    s, ts = _pair((3, 2), "int64", ints=True)
    a, ta = _pair((3,), "int64", seed=1, ints=True)
    b, tb = _pair((2,), "int64", seed=2, ints=True)
    _same(s.addr(a, b, beta=2, alpha=-1), ts.addr(ta, tb, beta=2, alpha=-1))
    f, tf = _pair((3, 2), "float32")
    _same(loom.addr(f, a, b), torch.addr(tf, ta, tb), rtol=1e-6)   # promotes, as PyTorch's
    d, td = _pair((3, 2))
    fa, tfa = _pair((3,), "float32")
    fb, tfb = _pair((2,), "float32")
    _same(loom.addr(d, fa, fb), torch.addr(td, tfa, tfb), rtol=1e-6)
    e, te = _pair((0, 2))
    ea, tea = _pair((0,))
    eb, teb = _pair((2,))
    _same(loom.addr(e, ea, eb), torch.addr(te, tea, teb))


def test_addr_errors():
    s, ts = _pair((3, 4))
    a, ta = _pair((3,))
    b, tb = _pair((2,))
    _raises_as_torch(lambda: loom.addr(s, a, b), lambda: torch.addr(ts, ta, tb))
    a2, ta2 = _pair((3, 1))
    _raises_as_torch(lambda: loom.addr(s, a2, b), lambda: torch.addr(ts, ta2, tb))
    _raises_as_torch(lambda: loom.addr(s, a, a2), lambda: torch.addr(ts, ta, ta2))
    i, ti = _pair((3, 2), "int64", ints=True)
    ia, tia = _pair((3,), "int64", ints=True)
    ib, tib = _pair((2,), "int64", ints=True)
    _raises_as_torch(lambda: loom.addr(i, ia, ib, beta=1.5), lambda: torch.addr(ti, tia, tib, beta=1.5))
    _raises_as_torch(lambda: loom.addr(i, ia, ib, alpha=0.5), lambda: torch.addr(ti, tia, tib, alpha=0.5))


# --------------------------------------------------------------------------------------- addbmm

@pytest.mark.parametrize("s_in", [(3, 4), (1, 4), (4,), ()])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2), (0, -1)])
def test_addbmm_values_and_gradients(s_in, beta, alpha):
    _grads_as_torch(lambda s, a, b: loom.addbmm(s, a, b, beta=beta, alpha=alpha),
                    lambda s, a, b: torch.addbmm(s, a, b, beta=beta, alpha=alpha), [s_in, (2, 3, 5), (2, 5, 4)])


def test_addbmm_method_ints_and_empty():
    s, ts = _pair((3, 4), "int64", ints=True)
    a, ta = _pair((2, 3, 5), "int64", seed=1, ints=True)
    b, tb = _pair((2, 5, 4), "int64", seed=2, ints=True)
    _same(s.addbmm(a, b, beta=2, alpha=3), ts.addbmm(ta, tb, beta=2, alpha=3))
    _same(loom.addbmm(s, a, b, beta=1.5, alpha=2.5), torch.addbmm(ts, ta, tb, beta=1.5, alpha=2.5))
    f, tf = _pair((3, 4))
    ea, tea = _pair((0, 3, 5))
    eb, teb = _pair((0, 5, 4))
    _same(loom.addbmm(f, ea, eb), torch.addbmm(tf, tea, teb))
    z, tz = _pair((0, 4))
    za, tza = _pair((2, 0, 5))
    _same(loom.addbmm(z, za, b.double()), torch.addbmm(tz, tza, tb.double()))


def test_addbmm_errors():
    s, ts = _pair((3, 4))
    a, ta = _pair((2, 3, 5))
    b3, tb3 = _pair((3, 5, 4))
    _raises_as_torch(lambda: loom.addbmm(s, a, b3), lambda: torch.addbmm(ts, ta, tb3))
    b6, tb6 = _pair((2, 6, 4))
    _raises_as_torch(lambda: loom.addbmm(s, a, b6), lambda: torch.addbmm(ts, ta, tb6))
    b, tb = _pair((2, 5, 4))
    s3, ts3 = _pair((3,))
    _raises_as_torch(lambda: loom.addbmm(s3, a, b), lambda: torch.addbmm(ts3, ta, tb))
    af, taf = _pair((2, 3, 5), "float32")
    _raises_as_torch(lambda: loom.addbmm(s, af, b), lambda: torch.addbmm(ts, taf, tb))
    sf, tsf = _pair((3, 4), "float32")
    _raises_as_torch(lambda: loom.addbmm(sf, a, b), lambda: torch.addbmm(tsf, ta, tb))
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        loom.addbmm(s, loom.zeros(3, 5, dtype=loom.float64), b)


# --------------------------------------------------------------------------------- chain_matmul

def test_chain_matmul_values_gradients_and_warning():
    shapes = [(2, 3), (3, 4), (4, 5)]
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        _grads_as_torch(lambda *m: loom.chain_matmul(list(m)), lambda *m: torch.chain_matmul(*m), shapes)
    a, ta = _pair((2, 3))
    with pytest.warns(UserWarning):
        one = loom.chain_matmul([a])
    _same(one, ta)
    assert one.data_ptr() != a.data_ptr()   # a copy, as PyTorch's
    i, ti = _pair((2, 3), "int64", ints=True)
    j, tj = _pair((3, 2), "int64", seed=1, ints=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(loom.chain_matmul([i, j]), torch.chain_matmul(ti, tj))
        e, te = _pair((2, 0))
        f, tf = _pair((0, 3))
        _same(loom.chain_matmul([e, f]), torch.chain_matmul(te, tf))


def test_chain_matmul_errors():
    a, ta = _pair((2, 3))
    b, tb = _pair((4, 4))
    v, tv = _pair((3,))
    _raises_as_torch(lambda: loom.chain_matmul([]), lambda: torch.chain_matmul())
    _raises_as_torch(lambda: loom.chain_matmul([v]), lambda: torch.chain_matmul(tv))
    _raises_as_torch(lambda: loom.chain_matmul([a, v]), lambda: torch.chain_matmul(ta, tv))
    _raises_as_torch(lambda: loom.chain_matmul([a, b]), lambda: torch.chain_matmul(ta, tb))
    c, tc = _pair((3, 2), "float32")
    _raises_as_torch(lambda: loom.chain_matmul([a, c]), lambda: torch.chain_matmul(ta, tc))


# ---------------------------------------------------------------------------------------- cross

@pytest.mark.parametrize("s1,s2,dim", [((4, 3), (4, 3), 1), ((3, 4), (3, 4), 0), ((4, 3), (1, 3), -1),
                                       ((2, 3, 5), (2, 3, 5), 1), ((0, 3), (0, 3), 1)])
def test_cross_values_and_gradients(s1, s2, dim):
    _grads_as_torch(lambda a, b: loom.cross(a, b, dim=dim), lambda a, b: torch.cross(a, b, dim=dim), [s1, s2])
    a, ta = _pair(s1)
    b, tb = _pair(s2, seed=1)
    _same(a.cross(b, dim), ta.cross(tb, dim))


def test_cross_default_dim_is_the_first_of_size_3_and_warns():
    for shape in [(3, 4), (4, 3), (3, 3), (2, 3, 3)]:
        a, ta = _pair(shape)
        b, tb = _pair(shape, seed=1)
        with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
            got = loom.cross(a, b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = torch.cross(ta, tb)
        _same(got, want)


@pytest.mark.parametrize("dtype", ["int64", "int32", "float32"])
def test_cross_dtypes(dtype):
    a, ta = _pair((5, 3), dtype, ints=True)
    b, tb = _pair((5, 3), dtype, seed=1, ints=True)
    _same(loom.cross(a, b, dim=1), torch.cross(ta, tb, dim=1), rtol=1e-6)


def test_cross_errors():
    a, ta = _pair((4, 3))
    v, tv = _pair((3,))
    _raises_as_torch(lambda: loom.cross(a, v, dim=1), lambda: torch.cross(ta, tv, dim=1))
    f, tf = _pair((4, 4))
    _raises_as_torch(lambda: loom.cross(f, f), lambda: torch.cross(tf, tf))
    _raises_as_torch(lambda: loom.cross(a, a, dim=0), lambda: torch.cross(ta, ta, dim=0))
    _raises_as_torch(lambda: loom.cross(a, a, dim=2), lambda: torch.cross(ta, ta, dim=2), IndexError)
    b, tb = _pair((4, 3), "float32")
    _raises_as_torch(lambda: loom.cross(a, b, dim=1), lambda: torch.cross(ta, tb, dim=1))
    c, tc = _pair((2, 4))
    d, td = _pair((1, 3))
    _raises_as_torch(lambda: loom.cross(c, d, dim=-1), lambda: torch.cross(tc, td, dim=-1))


# ------------------------------------------------------------------------------------- diagflat

@pytest.mark.parametrize("shape", [(3,), (2, 2), (), (0,), (2, 0)])
@pytest.mark.parametrize("offset", [0, 1, -2])
def test_diagflat_values_and_gradients(shape, offset):
    _grads_as_torch(lambda a: loom.diagflat(a, offset), lambda a: torch.diagflat(a, offset), [shape])
    a, ta = _pair(shape, "int64", ints=True)
    _same(a.diagflat(offset), ta.diagflat(offset))
    b = loom.tensor(np.array([True, False]))
    _same(loom.diagflat(b, offset), torch.diagflat(torch.tensor([True, False]), offset))


# ------------------------------------------------------------------------------------ row_stack

def test_row_stack_as_vstack():
    a, ta = _pair((3,))
    b, tb = _pair((2, 3), seed=1)
    _grads_as_torch(lambda x, y: loom.row_stack([x, y]), lambda x, y: torch.row_stack([x, y]), [(3,), (2, 3)])
    _same(loom.row_stack([a, b, a]), torch.row_stack([ta, tb, ta]))
    _same(loom.row_stack([loom.tensor(1.5, dtype=loom.float64)]), torch.row_stack([torch.tensor(1.5, dtype=torch.float64)]))
    _raises_as_torch(lambda: loom.row_stack([]), lambda: torch.row_stack([]))
    with pytest.raises(TypeError, match="row_stack"):
        loom.row_stack("oops")


# ----------------------------------------------------------------------------- tensor_split & co

TENSOR_SPLITS = [((10,), 3, 0), ((10,), [2, 5], 0), ((10,), [-3, 5], 0), ((10,), [5, 2, 20], 0), ((10,), 12, 0),
                 ((10,), (), 0), ((4, 7), 3, 1), ((4, 7), [1, 1, 6], -1), ((0, 3), 2, 0), ((3, 0), [1], 1),
                 ((6,), 1, 0)]


@pytest.mark.parametrize("shape,ios,dim", TENSOR_SPLITS)
def test_tensor_split_as_torch(shape, ios, dim):
    a, ta = _pair(shape)
    want = torch.tensor_split(ta, ios, dim)
    _same_all(loom.tensor_split(a, ios, dim), want)
    _same_all(a.tensor_split(ios, dim=dim), want)
    tens = torch.tensor(ios) if not isinstance(ios, tuple) else None
    if tens is not None:   # as an int64 tensor: 0-d sections, 1-D indices
        _same_all(loom.tensor_split(a, loom.tensor(ios), dim), torch.tensor_split(ta, tens, dim))


def test_tensor_split_views_and_gradients():
    a, ta = _pair((7, 2))
    parts = loom.tensor_split(a, 3)
    assert [p.data_ptr() for p in parts] == [a.data_ptr() + i * 2 * 8 for i in (0, 3, 5)]   # views
    a.requires_grad_()
    ta.requires_grad_()
    lp, tp = loom.tensor_split(a, [2, 5]), torch.tensor_split(ta, [2, 5])
    (lp[0].sum() * 2 + (lp[2] * lp[2]).sum()).backward()
    (tp[0].sum() * 2 + (tp[2] * tp[2]).sum()).backward()
    _same(a.grad, ta.grad)


def test_tensor_split_errors():
    x, tx = _pair((10,))
    _raises_as_torch(lambda: loom.tensor_split(x, 0), lambda: torch.tensor_split(tx, 0))
    _raises_as_torch(lambda: loom.tensor_split(x, -1), lambda: torch.tensor_split(tx, -1))
    s, ts = _pair(())
    _raises_as_torch(lambda: loom.tensor_split(s, 2), lambda: torch.tensor_split(ts, 2))
    _raises_as_torch(lambda: loom.tensor_split(x, loom.tensor([1.0, 4.0])),
                     lambda: torch.tensor_split(tx, torch.tensor([1.0, 4.0])))
    _raises_as_torch(lambda: loom.tensor_split(x, loom.tensor([[1, 4]])),
                     lambda: torch.tensor_split(tx, torch.tensor([[1, 4]])))
    _raises_as_torch(lambda: loom.tensor_split(x, 2, 1), lambda: torch.tensor_split(tx, 2, 1), IndexError)
    with pytest.raises(TypeError):
        loom.tensor_split(x, 2.5)
    with pytest.raises(TypeError):
        loom.tensor_split(tx, 2)


HVD = [("hsplit", (10,), 5), ("hsplit", (2, 6), 3), ("hsplit", (2, 6), [1, 4]), ("hsplit", (3, 0), 2),
       ("vsplit", (4, 3), 2), ("vsplit", (4, 3), [3]), ("vsplit", (0, 3), 3),
       ("dsplit", (4, 3, 6), [2]), ("dsplit", (2, 1, 6), 3)]


@pytest.mark.parametrize("op,shape,ios", HVD)
def test_hsplit_vsplit_dsplit_as_torch(op, shape, ios):
    a, ta = _pair(shape)
    want = getattr(torch, op)(ta, ios)
    _same_all(getattr(loom, op)(a, ios), want)
    _same_all(getattr(a, op)(ios), want)


def test_hsplit_vsplit_dsplit_errors():
    x, tx = _pair((10,))
    m, tm = _pair((4, 3))
    s, ts = _pair(())
    _raises_as_torch(lambda: loom.hsplit(x, 3), lambda: torch.hsplit(tx, 3))
    _raises_as_torch(lambda: loom.hsplit(s, 1), lambda: torch.hsplit(ts, 1))
    _raises_as_torch(lambda: loom.hsplit(m, 0), lambda: torch.hsplit(tm, 0))
    _raises_as_torch(lambda: loom.vsplit(x, 2), lambda: torch.vsplit(tx, 2))
    _raises_as_torch(lambda: loom.vsplit(m, 3), lambda: torch.vsplit(tm, 3))
    _raises_as_torch(lambda: loom.dsplit(m, 3), lambda: torch.dsplit(tm, 3))


# ------------------------------------------------------------------------------------- kthvalue

KTH = [((6,), 2, -1, False), ((6,), 6, 0, True), ((3, 5), 1, 1, False), ((3, 5), 3, 0, True),
       ((2, 3, 4), 2, 1, False), ((), 1, 0, False), ((), 1, -1, True), ((0, 3), 2, 1, False), ((2, 0), 1, 0, True)]


@pytest.mark.parametrize("shape,k,dim,keepdim", KTH)
def test_kthvalue_values_indices_and_gradients(shape, k, dim, keepdim):
    a, ta = _pair(shape)
    got, want = loom.kthvalue(a, k, dim, keepdim), torch.kthvalue(ta, k, dim, keepdim)
    _same(got.values, want.values)
    _same(got.indices, want.indices)
    _same(got[0], want[0])
    _same_all(tuple(a.kthvalue(k, dim=dim, keepdim=keepdim)), tuple(want))
    if a.numel():
        _grads_as_torch(lambda x: loom.kthvalue(x, k, dim, keepdim).values,
                        lambda x: torch.kthvalue(x, k, dim, keepdim).values, [shape])


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "int8", "int16", "float32", "float16", "bfloat16"])
def test_kthvalue_ties_and_dtypes(dtype):
    """Among equal elements PyTorch's quickselect returns the index of any one (loom's: the k-th in a
    stable sort); the values agree, and loom's index points at an element holding the value."""
    a = np.array([[3, 1, 1, 2], [2, 2, 0, 2], [1, 1, 1, 1]])
    la = loom.tensor(a).to(getattr(loom, dtype))
    ta = torch.tensor(a).to(getattr(torch, dtype))
    for k in range(1, 5):
        got, want = loom.kthvalue(la, k, 1), torch.kthvalue(ta, k, 1)
        assert got.values.dtype.name == dtype
        _same(got.values.float(), want.values.float())
        assert got.indices.dtype == loom.int64
        np.testing.assert_array_equal(np.take_along_axis(a, got.indices.numpy()[:, None], 1)[:, 0],
                                      want.values.float().numpy())
    got = loom.kthvalue(loom.tensor(np.array([3, 1, 2, 1])), 2)
    assert got.indices.item() == 3 and got.values.item() == 1   # the later of the tied 1s


def test_kthvalue_nan_is_largest():
    a = np.array([3.0, np.nan, 2.0, 1.0])
    for k in range(1, 5):
        _same_all(tuple(loom.kthvalue(loom.tensor(a), k)), tuple(torch.kthvalue(torch.tensor(a), k)))


def test_kthvalue_errors():
    x, tx = _pair((4,))
    _raises_as_torch(lambda: loom.kthvalue(x, 0), lambda: torch.kthvalue(tx, 0))
    _raises_as_torch(lambda: loom.kthvalue(x, 5), lambda: torch.kthvalue(tx, 5))
    s, ts = _pair(())
    _raises_as_torch(lambda: loom.kthvalue(s, 2), lambda: torch.kthvalue(ts, 2))
    e, te = _pair((0, 3))
    _raises_as_torch(lambda: loom.kthvalue(e, 1, 0), lambda: torch.kthvalue(te, 1, 0), IndexError)
    _raises_as_torch(lambda: loom.kthvalue(x, 1, 2), lambda: torch.kthvalue(tx, 1, 2), IndexError)
    with pytest.raises(TypeError, match="not implemented for dtype bool"):
        loom.kthvalue(loom.tensor([True, False]), 1)


# ------------------------------------------------------------------------------- unique and co.

def _flags():
    return [dict(return_inverse=i, return_counts=c) for i in (False, True) for c in (False, True)]


UNIQUE_INPUTS = [np.array([3, 1, 2, 1, 3, 3]), np.array([[2, 1], [2, 1], [0, 5], [2, 0]]), np.array([], dtype=np.int64),
                 np.array(4), np.array([1.5, -0.0, 0.0, np.nan, 1.5, np.nan]), np.array([True, False, True]),
                 np.zeros((0, 3)), np.array([[1, 1, 2], [1, 1, 2]], dtype=np.int32)]


def _ids(xs):
    return [f"{x.dtype}{list(x.shape)}" for x in xs]


@pytest.mark.parametrize("a", UNIQUE_INPUTS, ids=_ids(UNIQUE_INPUTS))
@pytest.mark.parametrize("flags", _flags(), ids=lambda f: f"inv{int(f['return_inverse'])}cnt{int(f['return_counts'])}")
def test_unique_return_forms_as_torch(a, flags):
    got = loom.unique(loom.tensor(a), **flags)
    want = torch.unique(torch.tensor(a), **flags)
    if isinstance(want, tuple):
        _same_all(got, want)
        _same_all(loom.tensor(a).unique(**flags), want)
    else:
        _same(got, want)
        _same(loom.tensor(a).unique(sorted=True, **flags), want)


@pytest.mark.parametrize("a", UNIQUE_INPUTS, ids=_ids(UNIQUE_INPUTS))
@pytest.mark.parametrize("flags", _flags(), ids=lambda f: f"inv{int(f['return_inverse'])}cnt{int(f['return_counts'])}")
def test_unique_consecutive_return_forms_as_torch(a, flags):
    a = np.concatenate([a.ravel(), a.ravel()[::-1]]) if a.ndim == 1 else a
    got = loom.unique_consecutive(loom.tensor(a), **flags)
    want = torch.unique_consecutive(torch.tensor(a), **flags)
    if isinstance(want, tuple):
        _same_all(got, want)
        _same_all(loom.tensor(a).unique_consecutive(**flags), want)
    else:
        _same(got, want)


DIM_INPUTS = [(np.array([[2, 1], [2, 1], [0, 5], [2, 0]]), 0), (np.array([[2, 1], [2, 1], [0, 5], [2, 0]]), 1),
              (np.array([[[1, 2], [1, 2]], [[0, 0], [1, 2]], [[1, 2], [1, 2]]]), 0),
              (np.array([[[1, 2], [1, 2]], [[0, 0], [1, 2]], [[1, 2], [1, 2]]]), -1),
              (np.array([[1, 1, 2], [1, 1, 2]], dtype=np.float32), 1), (np.zeros((0, 3)), 0), (np.array([5, 5, 1]), 0)]


@pytest.mark.parametrize("a,dim", DIM_INPUTS, ids=[f"{a.shape}-{d}" for a, d in DIM_INPUTS])
@pytest.mark.parametrize("flags", _flags(), ids=lambda f: f"inv{int(f['return_inverse'])}cnt{int(f['return_counts'])}")
def test_unique_and_consecutive_with_dim_as_torch(a, dim, flags):
    for lfn, tfn in [(loom.unique, torch.unique), (loom.unique_consecutive, torch.unique_consecutive)]:
        got = lfn(loom.tensor(a), dim=dim, **flags)
        want = tfn(torch.tensor(a), dim=dim, **flags)
        if isinstance(want, tuple):
            _same_all(got, want)
        else:
            _same(got, want)


def test_unique_gives_no_gradient():
    a = loom.tensor([1.0, 2.0, 1.0], requires_grad=True)
    assert not loom.unique(a).requires_grad
    assert not loom.unique_consecutive(a).requires_grad


def test_unique_errors():
    e, te = _pair((0, 3))
    _raises_as_torch(lambda: loom.unique(e, dim=1), lambda: torch.unique(te, dim=1))
    m, tm = _pair((2, 3))
    _raises_as_torch(lambda: loom.unique(m, dim=2), lambda: torch.unique(tm, dim=2), IndexError)
    _raises_as_torch(lambda: loom.unique_consecutive(m, dim=-3), lambda: torch.unique_consecutive(tm, dim=-3), IndexError)
    s, ts = _pair(())
    _raises_as_torch(lambda: loom.unique(s, dim=0), lambda: torch.unique(ts, dim=0), IndexError)
    with pytest.raises(TypeError):
        loom.unique([1, 2, 1])


def test_unique_sorted_false_sorts_as_torch_on_cpu():
    a = np.array([3, 1, 2, 1, 7, 0, 100])
    _same_all(loom.unique(loom.tensor(a), sorted=False, return_inverse=True),
              torch.unique(torch.tensor(a), sorted=False, return_inverse=True))


def test_fmax_fmin_gcd_lcm_match_torch_at_the_edges():
    nan = float("nan")
    a, b = [1.0, nan, 3.0, nan, 2.0, -0.0], [2.0, 1.0, nan, nan, 2.0, 0.0]
    for f in ("fmax", "fmin"):
        got, want = getattr(loom, f)(loom.tensor(a), loom.tensor(b)), getattr(torch, f)(torch.tensor(a), torch.tensor(b))
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert np.array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))   # ties go to self
        p, q = loom.tensor(a, requires_grad=True), loom.tensor(b, requires_grad=True)
        tp, tq = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        getattr(loom, f)(p, q).sum().backward()
        getattr(torch, f)(tp, tq).sum().backward()
        np.testing.assert_array_equal(p.grad.numpy(), tp.grad.numpy())
        np.testing.assert_array_equal(q.grad.numpy(), tq.grad.numpy())
    x, y = [12, -18, 0, 0, -(2 ** 63), 7, -4], [18, 12, 0, 5, 0, -21, -6]
    for dt in ("int64", "int32", "int8"):
        xs, ys = (x, y) if dt == "int64" else ([v for v in x if abs(v) < 100], [v for i, v in enumerate(y) if abs(x[i]) < 100])
        for f in ("gcd", "lcm"):
            got = getattr(loom, f)(loom.tensor(xs, dtype=getattr(loom, dt)), loom.tensor(ys, dtype=getattr(loom, dt)))
            want = getattr(torch, f)(torch.tensor(xs, dtype=getattr(torch, dt)), torch.tensor(ys, dtype=getattr(torch, dt)))
            if f == "lcm" and dt == "int64":
                got, want = got[:4], want[:4]   # (lcm with the most negative value overflows)
            assert got.dtype.name == dt and got.tolist() == want.tolist(), (f, dt)
    g = loom.tensor([4, 6])
    g.gcd_(loom.tensor([6, 9]))
    assert g.tolist() == [2, 3]
    with pytest.raises(TypeError):
        loom.gcd(loom.tensor([1.5]), loom.tensor([2.0]))
