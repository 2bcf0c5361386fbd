"""The everyday functions of ops/everyday.yaml against PyTorch, in the cases the generated tests
cannot express: einsum equations of several shapes (ellipsis, diagonals, broadcasting, implicit
output) and their gradients, searchsorted's sides and sorter, ties in median and mode, quantile's
interpolation modes and NaN, and the error messages of bad arguments."""
import re

import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")


def _pair(shape, dtype="float64", seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return loom.tensor(a), torch.tensor(a)


def _same(got, want, rtol=1e-10, atol=1e-12):
    want = want.detach()
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert got.dtype.name == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _raises_as_torch(lfn, tfn, exc=RuntimeError):
    """Both raise, and loom's message holds PyTorch's (loom's starts with the op's name)."""
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(exc) as le:
        lfn()
    want = re.sub(r"^(torch\.\w+\(\): |torch\.\w+: |\w+\(\): )", "", str(te.value))
    assert want in str(le.value), (str(le.value), str(te.value))


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),                     # implicit output
    ("ij,kj->ik", [(3, 4), (5, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ii->i", [(4, 4)]),                              # a diagonal
    ("ii", [(4, 4)]),                                 # a trace (implicit)
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),     # ellipsis broadcast against none
    ("...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),      # ellipsis dims broadcast (1 against 5)
    ("i...->...", [(3, 2, 4)]),
    ("b...,b...->b", [(2, 3, 4), (2, 3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("abc,cd,bd->ad", [(2, 3, 4), (4, 5), (3, 5)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),   # bilinear
    ("i,i->i", [(1,), (3,)]),                          # a size-1 label broadcasts
    ("ij,ij->", [(3, 1), (3, 4)]),                     # and is summed on the other side
    ("Ab,bC->AC", [(2, 3), (3, 4)]),
    (" ij , jk -> ik ", [(3, 4), (4, 5)]),
    (",i->i", [(), (3,)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_values_and_gradients_as_torch(eq, shapes):
    pairs = [_pair(s, seed=i) for i, s in enumerate(shapes)]
    la = [p[0].requires_grad_() for p in pairs]
    ta = [p[1].requires_grad_() for p in pairs]
    got, want = loom.einsum(eq, *la), torch.einsum(eq, *ta)
    _same(got, want)
    g = np.random.default_rng(9).standard_normal(tuple(want.shape))
    got.backward(loom.tensor(g))
    want.backward(torch.tensor(g))
    for a, b in zip(la, ta):
        _same(a.grad, b.grad)


def test_einsum_call_forms():
    (a, ta), (b, tb) = _pair((3, 4)), _pair((4, 5), seed=1)
    want = torch.einsum("ij,jk->ik", ta, tb)
    _same(loom.einsum("ij,jk->ik", [a, b]), want)
    _same(loom.einsum(a, [0, 1], b, [1, 2], [0, 2]), torch.einsum(ta, [0, 1], tb, [1, 2], [0, 2]))
    _same(loom.einsum(a, [Ellipsis, 1], b, [1, 2]), torch.einsum(ta, [Ellipsis, 1], tb, [1, 2]))
    out = loom.empty(3, 5, dtype=loom.float64)
    assert loom.einsum("ij,jk->ik", a, b, out=out) is out
    _same(out, want)


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex64"])
def test_einsum_dtypes_as_torch(dtype):
    x = (np.arange(12).reshape(3, 4) - 5).astype(dtype)
    y = (np.arange(20).reshape(4, 5) % 7).astype(dtype)
    _same(loom.einsum("ij,jk->ik", loom.tensor(x), loom.tensor(y)),
          torch.einsum("ij,jk->ik", torch.tensor(x), torch.tensor(y)), rtol=1e-6, atol=1e-5)


BAD_EINSUM = [("ij,jk", [(2, 3)]), ("ij", [(2, 3), (3, 4)]), ("i1,jk", [(2, 3), (3, 4)]),
              ("ij.,jk", [(2, 3), (3, 4)]), ("i...j...", [(2, 3)]), ("ijk,jk", [(2, 3), (3, 4)]),
              ("ij,jk->ii", [(2, 3), (3, 4)]), ("ij,jk->iz", [(2, 3), (3, 4)]), ("ij,ik", [(2, 3), (3, 4)]),
              ("ij,jk->i..", [(2, 3), (3, 4)]), ("ii", [(3, 2)]), ("i...jk", [(2, 3)])]


@pytest.mark.parametrize("eq,shapes", BAD_EINSUM, ids=[e for e, _ in BAD_EINSUM])
def test_einsum_errors_as_torch(eq, shapes):
    ops = [_pair(s) for s in shapes]
    _raises_as_torch(lambda: loom.einsum(eq, *[p[0] for p in ops]), lambda: torch.einsum(eq, *[p[1] for p in ops]))


def test_einsum_mixed_dtypes_refused_as_torch():
    _raises_as_torch(lambda: loom.einsum("ij,jk", loom.ones(2, 3), loom.ones(3, 4, dtype=loom.int64)),
                     lambda: torch.einsum("ij,jk", torch.ones(2, 3), torch.ones(3, 4, dtype=torch.int64)))


@pytest.mark.parametrize("dims,sb", [(2, (4, 2, 5)), (1, (2, 5)), (0, (2, 2)), (([1, 0], [0, 1]), (4, 3, 5)),
                                     (([2], [0]), (2, 5)), ([[1], [0]], (4, 5))])
def test_tensordot_as_torch(dims, sb):
    (a, ta), (b, tb) = _pair((3, 4, 2)), _pair(sb, seed=1)
    a.requires_grad_(), ta.requires_grad_()
    got, want = loom.tensordot(a, b, dims=dims), torch.tensordot(ta, tb, dims=dims)
    _same(got, want)
    got.sum().backward()
    want.sum().backward()
    _same(a.grad, ta.grad)


def test_tensordot_errors_as_torch():
    (a, ta), (b, tb) = _pair((3, 4)), _pair((5, 6))
    _raises_as_torch(lambda: loom.tensordot(a, b, dims=1), lambda: torch.tensordot(ta, tb, dims=1))
    _raises_as_torch(lambda: loom.tensordot(a, b, dims=-1), lambda: torch.tensordot(ta, tb, dims=-1))
    _raises_as_torch(lambda: loom.tensordot(a, b, dims=3), lambda: torch.tensordot(ta, tb, dims=3))
    _raises_as_torch(lambda: loom.tensordot(a, b, dims=(1, 0)), lambda: torch.tensordot(ta, tb, dims=(1, 0)),
                     TypeError)


@pytest.mark.parametrize("sa,sb", [((2, 3), (3, 2)), ((2,), (3, 4)), ((2, 2, 2), (3,)), ((), (2, 3))])
def test_kron_as_torch(sa, sb):
    (a, ta), (b, tb) = _pair(sa), _pair(sb, seed=1)
    _same(loom.kron(a, b), torch.kron(ta, tb))
    _same(a.kron(b), torch.kron(ta, tb))


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, 0.5, float("inf")])
@pytest.mark.parametrize("rows", [(4, 5), (30, 27)])   # above 25 rows p=2 takes the matmul expansion
def test_cdist_as_torch(p, rows):
    (a, ta), (b, tb) = _pair((2, rows[0], 3)), _pair((rows[1], 3), seed=1)
    a.requires_grad_(), ta.requires_grad_()
    got, want = loom.cdist(a, b, p=p), torch.cdist(ta, tb, p=p)
    _same(got, want, rtol=1e-9, atol=1e-9)
    if p not in (0.0, float("inf")):
        got.sum().backward()
        want.sum().backward()
        _same(a.grad, ta.grad, rtol=1e-7, atol=1e-9)


def test_cdist_modes_and_errors_as_torch():
    (a, ta), (b, tb) = _pair((4, 3)), _pair((5, 3), seed=1)
    for mode in ("use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        _same(loom.cdist(a, b, compute_mode=mode), torch.cdist(ta, tb, compute_mode=mode), rtol=1e-9, atol=1e-9)
    # the expansion can round below zero for equal rows: clamped, never NaN
    assert not bool(loom.isnan(loom.cdist(a, a, compute_mode="use_mm_for_euclid_dist")).any())
    _raises_as_torch(lambda: loom.cdist(a[0], b), lambda: torch.cdist(ta[0], tb))
    _raises_as_torch(lambda: loom.cdist(a, b[:, :2]), lambda: torch.cdist(ta, tb[:, :2]))
    _raises_as_torch(lambda: loom.cdist(a, b, p=-1.0), lambda: torch.cdist(ta, tb, p=-1.0))
    _raises_as_torch(lambda: loom.cdist(a.long(), b.long()), lambda: torch.cdist(ta.long(), tb.long()))
    _raises_as_torch(lambda: loom.cdist(a, b, compute_mode="x"), lambda: torch.cdist(ta, tb, compute_mode="x"),
                     ValueError)


def test_bincount_as_torch():
    x = np.array([0, 3, 3, 1, 7, 3])
    w = np.linspace(0, 1, 6)
    for kw in ({}, {"minlength": 10}, {"minlength": 2}):
        _same(loom.bincount(loom.tensor(x), **kw), torch.bincount(torch.tensor(x), **kw))
    for wd in ("float32", "float64", "int64"):
        _same(loom.tensor(x).bincount(loom.tensor(w.astype(wd))), torch.tensor(x).bincount(torch.tensor(w.astype(wd))))
    _same(loom.bincount(loom.tensor(np.array([], dtype="int64")), minlength=3),
          torch.bincount(torch.tensor(np.array([], dtype="int64")), minlength=3))
    _raises_as_torch(lambda: loom.bincount(loom.tensor([-1])), lambda: torch.bincount(torch.tensor([-1])))
    _raises_as_torch(lambda: loom.bincount(loom.tensor([[1]])), lambda: torch.bincount(torch.tensor([[1]])))
    _raises_as_torch(lambda: loom.bincount(loom.tensor([1]), minlength=-1),
                     lambda: torch.bincount(torch.tensor([1]), minlength=-1))
    _raises_as_torch(lambda: loom.bincount(loom.tensor([1]), loom.ones(2)),
                     lambda: torch.bincount(torch.tensor([1]), torch.ones(2)))


SEQ = [1.0, 2.0, 2.0, 2.0, 5.0, 7.0]
VALS = [[0.0, 1.0, 2.0, 3.0], [5.0, 7.0, 8.0, 2.0]]


@pytest.mark.parametrize("kw", [{}, {"right": True}, {"side": "left"}, {"side": "right"}, {"out_int32": True},
                                {"right": False, "side": "right"}])
def test_searchsorted_sides_as_torch(kw):
    _same(loom.searchsorted(loom.tensor(SEQ), loom.tensor(VALS), **kw),
          torch.searchsorted(torch.tensor(SEQ), torch.tensor(VALS), **kw))
    # one sorted row per row of values
    seq2 = [SEQ, [0.0, 0.0, 3.0, 3.0, 3.0, 9.0]]
    _same(loom.searchsorted(loom.tensor(seq2), loom.tensor(VALS), **kw),
          torch.searchsorted(torch.tensor(seq2), torch.tensor(VALS), **kw))


def test_searchsorted_sorter_scalar_and_dtypes_as_torch():
    unsorted = [5.0, 1.0, 7.0, 2.0, 2.0]
    sorter = np.argsort(unsorted, kind="stable")
    for side in ("left", "right"):
        _same(loom.searchsorted(loom.tensor(unsorted), loom.tensor(VALS[0]), side=side, sorter=loom.tensor(sorter)),
              torch.searchsorted(torch.tensor(unsorted), torch.tensor(VALS[0]), side=side,
                                 sorter=torch.tensor(sorter)))
    _same(loom.searchsorted(loom.tensor(SEQ), 2.0), torch.searchsorted(torch.tensor(SEQ), 2.0))
    _same(loom.searchsorted(loom.arange(6), loom.tensor([0.5, 4.0])),
          torch.searchsorted(torch.arange(6), torch.tensor([0.5, 4.0])))
    for side in ("left", "right"):   # NaN values go last
        _same(loom.searchsorted(loom.tensor(SEQ), loom.tensor([float("nan"), 2.0]), side=side),
              torch.searchsorted(torch.tensor(SEQ), torch.tensor([float("nan"), 2.0]), side=side))


def test_searchsorted_errors_as_torch():
    s, v = (loom.tensor(SEQ), torch.tensor(SEQ)), (loom.tensor(VALS), torch.tensor(VALS))
    _raises_as_torch(lambda: loom.searchsorted(s[0], v[0], side="x"), lambda: torch.searchsorted(s[1], v[1], side="x"))
    _raises_as_torch(lambda: loom.searchsorted(s[0], v[0], side="left", right=True),
                     lambda: torch.searchsorted(s[1], v[1], side="left", right=True))
    _raises_as_torch(lambda: loom.searchsorted(loom.ones(2, 3), loom.ones(3, 2)),
                     lambda: torch.searchsorted(torch.ones(2, 3), torch.ones(3, 2)))
    _raises_as_torch(lambda: loom.searchsorted(s[0], v[0], sorter=loom.tensor([0, 1])),
                     lambda: torch.searchsorted(s[1], v[1], sorter=torch.tensor([0, 1])))
    _raises_as_torch(lambda: loom.searchsorted(loom.tensor(1.0), v[0]),
                     lambda: torch.searchsorted(torch.tensor(1.0), v[1]))


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_as_torch(right):
    b = [0.0, 1.0, 2.0, 2.0, 4.0]
    x = [[-1.0, 0.0, 2.0], [2.5, 4.0, 9.0]]
    _same(loom.bucketize(loom.tensor(x), loom.tensor(b), right=right),
          torch.bucketize(torch.tensor(x), torch.tensor(b), right=right))
    _same(loom.bucketize(loom.tensor(x), loom.tensor(b), out_int32=True),
          torch.bucketize(torch.tensor(x), torch.tensor(b), out_int32=True))
    _raises_as_torch(lambda: loom.bucketize(loom.tensor(x), loom.tensor([b, b])),
                     lambda: torch.bucketize(torch.tensor(x), torch.tensor([b, b])))


@pytest.mark.parametrize("kw", [{}, {"bins": 4}, {"bins": 5, "min": -1, "max": 1}, {"bins": 3, "min": 0.5, "max": 0.5}])
def test_histc_as_torch(kw):
    x = [0.0, 0.25, 0.5, 1.0, 1.0, -3.0, 2.0, 0.75]
    _same(loom.histc(loom.tensor(x), **kw), torch.histc(torch.tensor(x), **kw), rtol=0, atol=0)
    _same(loom.tensor([1.0, 1.0]).histc(bins=4), torch.tensor([1.0, 1.0]).histc(bins=4), rtol=0, atol=0)


def test_histc_errors_as_torch():
    _raises_as_torch(lambda: loom.histc(loom.tensor([1.0, 2.0]), bins=0),
                     lambda: torch.histc(torch.tensor([1.0, 2.0]), bins=0))
    _raises_as_torch(lambda: loom.histc(loom.tensor([1.0, 2.0]), min=3, max=1),
                     lambda: torch.histc(torch.tensor([1.0, 2.0]), min=3, max=1))
    _raises_as_torch(lambda: loom.histc(loom.tensor([1.0, float("inf")])),
                     lambda: torch.histc(torch.tensor([1.0, float("inf")])))


TIES = [[3.0, 1.0, 1.0, 3.0, 2.0, 2.0], [5.0, 5.0, 5.0, 1.0, 1.0, 4.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0]]


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_ties_as_torch(fn):
    x = loom.tensor(TIES)
    tx = torch.tensor(TIES)
    _same(getattr(loom, fn)(x), getattr(torch, fn)(tx))
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            got, want = getattr(loom, fn)(x, dim, keepdim), getattr(torch, fn)(tx, dim, keepdim)
            _same(got.values, want.values)
            assert got.indices.shape == want.indices.shape and got.indices.dtype == loom.int64
            # which of equal elements is reported is PyTorch's implementation detail: one holding the value
            picked = loom.gather(x, dim, got.indices if keepdim else got.indices.unsqueeze(dim))
            _same(picked if keepdim else picked.squeeze(dim), want.values)


def test_median_nan_as_torch():
    x = [[1.0, float("nan"), 0.0, 4.0], [float("nan"), float("nan"), 3.0, 2.0],
         [float("nan")] * 4, [3.0, 1.0, 2.0, 0.0]]
    for fn in ("median", "nanmedian"):
        _same(getattr(loom, fn)(loom.tensor(x)), getattr(torch, fn)(torch.tensor(x)))
        got, want = getattr(loom, fn)(loom.tensor(x), 1), getattr(torch, fn)(torch.tensor(x), 1)
        _same(got.values, want.values)
        if fn == "median":   # the first NaN, as PyTorch's
            _same(got.indices, want.indices)
    _same(loom.median(loom.tensor([3, 1, 2, 5])), torch.median(torch.tensor([3, 1, 2, 5])))
    _same(loom.median(loom.tensor(np.zeros(0, "float32"))), torch.median(torch.tensor(np.zeros(0, "float32"))))
    _raises_as_torch(lambda: loom.median(loom.ones(3, 0), 1), lambda: torch.median(torch.ones(3, 0), 1), IndexError)


def test_median_gradient_as_torch():
    (a, ta) = _pair((3, 5))
    a.requires_grad_(), ta.requires_grad_()
    loom.median(a, 1).values.sum().backward()
    torch.median(ta, 1).values.sum().backward()
    _same(a.grad, ta.grad)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_mode_as_torch(dim):
    x = np.array([[3, 1, 1, 3, 2, 2, 0], [5, 5, 5, 1, 1, 4, 4], [2, 2, 2, 2, 2, 2, 2], [0, 9, 8, 7, 6, 5, 4]])
    for data in (x, x.astype("float64"), np.random.default_rng(1).integers(0, 4, (6, 9))):
        for keepdim in (False, True):
            got = loom.mode(loom.tensor(data), dim, keepdim)
            want = torch.mode(torch.tensor(data), dim, keepdim)
            _same(got.values, want.values)
            _same(got.indices, want.indices)
    _same(loom.tensor(x).mode().values, torch.tensor(x).mode().values)
    _raises_as_torch(lambda: loom.mode(loom.ones(0)), lambda: torch.mode(torch.ones(0)), IndexError)


def test_msort_as_torch():
    (a, ta) = _pair((4, 3))
    _same(loom.msort(a), torch.msort(ta))
    _same(a.msort(), ta.msort())


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_interpolation_as_torch(fn, interpolation):
    x = np.random.default_rng(2).standard_normal((4, 7))
    x[1, 2] = x[3, 0] = x[3, 5] = np.nan
    lx, tx = loom.tensor(x), torch.tensor(x)
    q = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
    cases = [(q, {}), (q, {"dim": 1}), (q, {"dim": 0, "keepdim": True}), (0.3, {"dim": 1}), (0.5, {}),
             (0.75, {"keepdim": True}), (q[2:4], {"dim": -1, "keepdim": True})]
    for qv, kw in cases:
        lq = loom.tensor(qv, dtype=loom.float64) if isinstance(qv, list) else qv
        tq = torch.tensor(qv, dtype=torch.float64) if isinstance(qv, list) else qv
        _same(getattr(loom, fn)(lx, lq, interpolation=interpolation, **kw),
              getattr(torch, fn)(tx, tq, interpolation=interpolation, **kw))
    # rounding half to even for nearest, as PyTorch's: ranks 0.5, 1.5, 2.5
    y = [0.0, 1.0, 2.0, 3.0]
    _same(getattr(loom, fn)(loom.tensor(y), loom.tensor([1 / 6, 0.5, 5 / 6], dtype=loom.float32),
                            interpolation=interpolation),
          getattr(torch, fn)(torch.tensor(y), torch.tensor([1 / 6, 0.5, 5 / 6]), interpolation=interpolation),
          rtol=1e-6, atol=1e-6)


def test_quantile_gradient_as_torch():
    (a, ta) = _pair((3, 6))
    a.requires_grad_(), ta.requires_grad_()
    q = [0.2, 0.7]
    loom.quantile(a, loom.tensor(q, dtype=loom.float64), dim=1).sum().backward()
    torch.quantile(ta, torch.tensor(q, dtype=torch.float64), dim=1).sum().backward()
    _same(a.grad, ta.grad)


def test_quantile_errors_as_torch():
    x, tx = loom.ones(4), torch.ones(4)
    _raises_as_torch(lambda: loom.quantile(x, loom.tensor(0.5, dtype=loom.float64)),
                     lambda: torch.quantile(tx, torch.tensor(0.5, dtype=torch.float64)))
    _raises_as_torch(lambda: loom.quantile(x, loom.ones(1, 1)), lambda: torch.quantile(tx, torch.ones(1, 1)))
    _raises_as_torch(lambda: loom.quantile(x, 1.5), lambda: torch.quantile(tx, 1.5))
    _raises_as_torch(lambda: loom.quantile(x, loom.tensor([0.2, 1.2])),
                     lambda: torch.quantile(tx, torch.tensor([0.2, 1.2])))
    _raises_as_torch(lambda: loom.quantile(loom.arange(3), 0.5), lambda: torch.quantile(torch.arange(3), 0.5))
    _raises_as_torch(lambda: loom.quantile(loom.ones(0), 0.5), lambda: torch.quantile(torch.ones(0), 0.5))
    _raises_as_torch(lambda: loom.quantile(x, 0.5, interpolation="x"),
                     lambda: torch.quantile(tx, 0.5, interpolation="x"))
    _raises_as_torch(lambda: loom.nanquantile(x, 1.5), lambda: torch.nanquantile(tx, 1.5))


@pytest.mark.parametrize("fn", ["var_mean", "std_mean"])
def test_var_std_mean_as_torch(fn):
    (a, ta) = _pair((3, 5))
    for args, kw in [((), {}), ((1,), {}), ((1,), {"correction": 0}), (([0, 1],), {"keepdim": True}),
                     ((1, False), {}), ((1, True, True), {})]:
        got, want = getattr(loom, fn)(a, *args, **kw), getattr(torch, fn)(ta, *args, **kw)
        assert isinstance(got, tuple) and len(got) == 2
        _same(got[0], want[0])
        _same(got[1], want[1])


def test_index_and_shape_helpers_as_torch():
    (a, ta) = _pair((3, 4))
    idx = [[0, -1], [5, 11]]
    _same(loom.take(a, loom.tensor(idx)), torch.take(ta, torch.tensor(idx)))
    _raises_as_torch(lambda: loom.take(a, loom.tensor([12])), lambda: torch.take(ta, torch.tensor([12])), IndexError)
    _same(loom.ravel(a.t()), torch.ravel(ta.t()))
    _same(loom.argwhere(a > 0), torch.argwhere(ta > 0))
    for row, col, off in [(4, 5, 0), (4, 5, 2), (5, 3, -1), (0, 3, 0), (3, 3, -5)]:
        _same(loom.tril_indices(row, col, off), torch.tril_indices(row, col, off))
        _same(loom.triu_indices(row, col, off), torch.triu_indices(row, col, off))
    for off, d1, d2 in [(0, -2, -1), (1, -2, -1), (-2, 0, 2), (1, 2, 0)]:
        _same(loom.diag_embed(a, off, d1, d2), torch.diag_embed(ta, off, d1, d2))
    x, t = [1, 5, 3, 3, 8], [3, 8, 9]
    for invert in (False, True):
        _same(loom.isin(loom.tensor(x), loom.tensor(t), invert=invert),
              torch.isin(torch.tensor(x), torch.tensor(t), invert=invert))
    _same(loom.isin(loom.tensor(x), loom.tensor([2.5, 5.0])), torch.isin(torch.tensor(x), torch.tensor([2.5, 5.0])))


def test_blocks_products_and_combinations_as_torch():
    (a, ta), (v, tv) = _pair((2, 3)), _pair((4,), seed=1)
    s, ts = loom.tensor(2.0, dtype=loom.float64), torch.tensor(2.0, dtype=torch.float64)
    _same(loom.block_diag(a, v, s), torch.block_diag(ta, tv, ts))
    _same(loom.block_diag(a, v.long()), torch.block_diag(ta, tv.long()))   # promoted
    _raises_as_torch(lambda: loom.block_diag(loom.ones(1, 1, 1)), lambda: torch.block_diag(torch.ones(1, 1, 1)))
    _same(loom.cartesian_prod(v, v[:2], v[1:]), torch.cartesian_prod(tv, tv[:2], tv[1:]))
    _same(loom.cartesian_prod(v), torch.cartesian_prod(tv))
    for r, rep in [(2, False), (3, False), (2, True), (0, False), (5, False)]:
        _same(loom.combinations(v, r, rep), torch.combinations(tv, r, rep))
    x = loom.tensor(a.numpy(), requires_grad=True)
    loom.block_diag(x, x * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 3.0))


def test_logspace_and_trapezoids_as_torch():
    _same(loom.logspace(-1, 2, 7, dtype=loom.float64), torch.logspace(-1, 2, 7, dtype=torch.float64))
    _same(loom.logspace(0, 3, 4, base=2.0), torch.logspace(0, 3, 4, base=2.0), rtol=1e-6)
    (y, ty), (xs, txs) = _pair((3, 5)), _pair((5,), seed=2)
    xs, txs = xs.cumsum(0), txs.cumsum(0)
    for fn in ("trapezoid", "cumulative_trapezoid"):
        lf, tf = getattr(loom, fn), getattr(torch, fn)
        _same(lf(y), tf(ty))
        _same(lf(y, dx=0.5, dim=0), tf(ty, dx=0.5, dim=0))
        _same(lf(y, xs), tf(ty, txs))
        _same(lf(y, y.cumsum(1)), tf(ty, ty.cumsum(1)))


def test_cov_and_corrcoef_as_torch():
    (a, ta), (v, tv) = _pair((3, 6)), _pair((6,), seed=3)
    fw, afw = loom.tensor([1, 2, 1, 3, 1, 1]), torch.tensor([1, 2, 1, 3, 1, 1])
    aw, taw = v.abs(), tv.abs()
    _same(loom.cov(a), torch.cov(ta))
    _same(a.cov(correction=0), ta.cov(correction=0))
    _same(loom.cov(a, fweights=fw, aweights=aw), torch.cov(ta, fweights=afw, aweights=taw))
    _same(loom.cov(v), torch.cov(tv))
    _same(loom.corrcoef(a), torch.corrcoef(ta))
    _raises_as_torch(lambda: loom.cov(a, fweights=-fw), lambda: torch.cov(ta, fweights=-afw))


def test_index_fill_and_copy_as_torch():
    (a, ta), (src, tsrc) = _pair((3, 5)), _pair((3, 2), seed=4)
    i, ti = loom.tensor([4, 0]), torch.tensor([4, 0])
    _same(loom.index_fill(a, 1, loom.tensor([0, 3, 3]), -2.0), torch.index_fill(ta, 1, torch.tensor([0, 3, 3]), -2.0))
    _same(a.clone().index_fill_(0, loom.tensor([1]), 5), ta.clone().index_fill_(0, torch.tensor([1]), 5))
    _same(loom.index_copy(a, 1, i, src), torch.index_copy(ta, 1, ti, tsrc))
    row, trow = _pair((1, 5), seed=5)
    _same(a.clone().index_copy_(0, loom.tensor([2]), row), ta.clone().index_copy_(0, torch.tensor([2]), trow))
    x = loom.tensor(a.numpy(), requires_grad=True)
    s = loom.tensor(src.numpy(), requires_grad=True)
    (loom.index_copy(x, 1, i, s) * loom.arange(5.0, dtype=loom.float64)).sum().backward()
    tx, ts = ta.clone().requires_grad_(), tsrc.clone().requires_grad_()
    (torch.index_copy(tx, 1, ti, ts) * torch.arange(5.0, dtype=torch.float64)).sum().backward()
    _same(x.grad, tx.grad)
    _same(s.grad, ts.grad)


@pytest.mark.parametrize("call", [lambda: loom.tril_indices(2 ** 31, 2 ** 31), lambda: loom.triu_indices(2 ** 40, 3),
                                  lambda: loom.combinations(loom.arange(100), 50),
                                  lambda: loom.combinations(loom.arange(60), 30, with_replacement=True)])
def test_integer_driven_sizes_fail_fast(call):
    """Sizes set by an integer argument are checked before any work (a scan or a Python loop)."""
    with pytest.raises((ValueError, OverflowError, MemoryError, RuntimeError)):
        call()
