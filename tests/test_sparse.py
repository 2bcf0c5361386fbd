"""Sparse COO tensors against PyTorch's: construction and size inference, coalesce with duplicates,
to_dense/to_sparse, arithmetic, sparse x dense products and their gradients (dense to the dense
operand, sparse with the pattern to the sparse one), sums, sparse embedding gradients and their
accumulation, SparseAdam, init.sparse_, and the errors (PyTorch's messages)."""
import numpy as np
import pytest
torch = pytest.importorskip("torch", reason="PyTorch is not installed: these tests compare with it")

import loom

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")

IDX = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]   # (0, 2) twice
VAL = [3.0, 4.0, 5.0, 1.0, -2.0]


def both(idx=IDX, val=VAL, size=None, **kw):
    args = () if size is None else (size,)
    return (loom.sparse_coo_tensor(loom.tensor(idx), loom.tensor(val), *args, **kw),
            torch.sparse_coo_tensor(torch.tensor(idx), torch.tensor(val), *args, **kw))


def same(a, b, tol=1e-6):
    if isinstance(b, torch.Tensor) and b.is_sparse:
        assert a.is_sparse and tuple(a.shape) == tuple(b.shape)
        a, b = a.to_dense(), b.to_dense()
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def test_construction_infers_size_and_reports_metadata():
    s, t = both()
    assert isinstance(s, loom.Tensor) and s.is_sparse and s.layout is loom.sparse_coo
    assert tuple(s.shape) == tuple(t.shape) == (3, 3) and s.size(1) == 3 and s.dim() == s.ndim == 2
    assert (s._nnz(), s.sparse_dim(), s.dense_dim()) == (5, 2, 0)
    assert s.dtype == loom.float32 and str(s.device) == "cpu" and not s.is_coalesced()
    assert loom.ones(2).layout is loom.strided and not loom.ones(2).is_sparse
    np.testing.assert_array_equal(s._indices().numpy(), t._indices().numpy())
    same(s, t)
    assert loom.sparse_coo_tensor(IDX, VAL, (4, 5)).shape == (4, 5)
    assert loom.sparse_coo_tensor([[0, 1]], [1, 2]).dtype == loom.int64
    assert loom.sparse_coo_tensor(IDX, VAL, dtype=loom.float64).dtype == loom.float64
    empty = loom.sparse_coo_tensor(loom.zeros(2, 0, dtype=loom.int64), loom.zeros(0), (2, 2))
    assert empty._nnz() == 0 and empty.to_dense().abs().sum().item() == 0


def test_hybrid_tensor_to_dense_and_mm_against_torch():
    vals = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    s = loom.sparse_coo_tensor(loom.tensor(IDX), loom.tensor(vals))
    t = torch.sparse_coo_tensor(torch.tensor(IDX), torch.tensor(vals))
    assert tuple(s.shape) == (3, 3, 2) and s.dense_dim() == 1
    same(s, t)
    same(s.coalesce()._values(), t.coalesce()._values())
    same(loom.sparse.sum(s, 1), torch.sparse.sum(t, 1))
    same(loom.sparse.sum(s, (0, 1)), torch.sparse.sum(t, (0, 1)))


def test_coalesce_sums_duplicates_and_sorts():
    s, t = both()
    c, tc = s.coalesce(), t.coalesce()
    assert c.is_coalesced() and c._nnz() == tc._nnz() == 4
    np.testing.assert_array_equal(c.indices().numpy(), tc.indices().numpy())
    np.testing.assert_allclose(c.values().numpy(), tc.values().numpy())
    assert c.coalesce() is c
    with pytest.raises(RuntimeError, match=r"^Cannot get indices on an uncoalesced tensor, please call "
                                           r"\.coalesce\(\) first$"):
        s.indices()
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        s.values()


def test_to_sparse_round_trips_and_carries_gradients():
    x = np.array([[0, 1.5, 0], [2, 0, 0]], np.float32)
    lx = loom.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    ls, ts = lx.to_sparse(), tx.to_sparse()
    assert ls.is_coalesced() and ls._nnz() == 2
    np.testing.assert_array_equal(ls.indices().numpy(), ts.indices().numpy())
    (ls * 3).to_dense().sum().backward()
    (ts * 3).to_dense().sum().backward()
    same(lx.grad, tx.grad)
    y = np.zeros((3, 2, 2), np.float32)
    y[1, 0, 1] = 4
    a, b = loom.tensor(y).to_sparse(1), torch.tensor(y).to_sparse(1)
    assert a.sparse_dim() == 1 and a.dense_dim() == 2 and a._nnz() == b._nnz() == 1
    same(a, b)


def test_arithmetic_transpose_and_conversions_against_torch():
    s, t = both()
    s2, t2 = both([[1, 2], [0, 0]], [7.0, 8.0], (3, 3))
    same(s * 2, t * 2)
    same(2.5 * s, 2.5 * t)
    same(s / 4, t / 4)
    same(-s, -t)
    same(s + s2, t + t2)
    same(s - s2, t - t2)
    same(s.add(s2, alpha=3), t.add(t2, alpha=3))
    same(s + s, t + t)
    same(loom.ones(3, 3) + s, torch.ones(3, 3) + t)
    d = np.arange(9.0, dtype=np.float32).reshape(3, 3)
    same(s * loom.tensor(d), t * torch.tensor(d))
    same(s.t(), t.t())
    same(s.transpose(0, 1), t.transpose(0, 1))
    assert not s.coalesce().t().is_coalesced()
    d64 = s.double()
    assert d64.is_sparse and d64.dtype == loom.float64 and s.to(loom.float16).dtype == loom.float16
    assert "layout=loom.sparse_coo" in repr(s) and "nnz=5" in repr(s) and "size=(3, 3)" in repr(s)
    assert "dtype=loom.float64" in repr(d64)
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported. Use add\(dense, sparse\)"):
        s + loom.ones(3, 3)
    with pytest.raises(RuntimeError, match=r"expected sizes of 'self' and 'other' to match, but \[3, 3\] != \[4, 3\]"):
        s + loom.sparse_coo_tensor(IDX, VAL, (4, 3))
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy"):
        s.numpy()


@pytest.mark.parametrize("fn", ["sparse.mm", "mm", "matmul", "@", "spmm", "method"])
def test_sparse_dense_product_values_and_gradients_against_torch(fn):
    d = np.arange(6.0, dtype=np.float32).reshape(3, 2) - 2
    call = {"sparse.mm": lambda m, a, b: m.sparse.mm(a, b), "mm": lambda m, a, b: m.mm(a, b),
            "matmul": lambda m, a, b: m.matmul(a, b), "@": lambda m, a, b: a @ b,
            "spmm": lambda m, a, b: m.spmm(a, b), "method": lambda m, a, b: a.mm(b)}[fn]
    s, t = both(requires_grad=True)
    ld, td = loom.tensor(d, requires_grad=True), torch.tensor(d, requires_grad=True)
    lo, to = call(loom, s, ld), call(torch, t, td)
    same(lo, to)
    (lo ** 2).sum().backward()
    (to ** 2).sum().backward()
    same(ld.grad, td.grad)
    if fn == "sparse.mm":   # torch.mm's gradient of a sparse input is dense; loom's is always sparse
        assert s.grad.is_sparse and s.grad.is_coalesced()   # torch's is too, though not flagged
        np.testing.assert_array_equal(s.grad._indices().numpy(), t.grad._indices().numpy())
        same(s.grad, t.grad)


def test_products_with_the_dense_operand_first_and_vectors():
    s, t = both()
    d = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    same(loom.tensor(d) @ s, torch.tensor(d) @ t)
    same(loom.mm(loom.tensor(d), s), torch.mm(torch.tensor(d), t))
    same(s @ loom.ones(3), t @ torch.ones(3))
    m = np.ones((3, 2), np.float32)
    same(loom.sparse.addmm(loom.ones(3, 2), s, loom.tensor(m), beta=0.5, alpha=2),
         torch.sparse.addmm(torch.ones(3, 2), t, torch.tensor(m), beta=0.5, alpha=2))


def test_gradients_reach_values_that_built_the_tensor():
    v = np.array(VAL, np.float32)
    lv, tv = loom.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    ls = loom.sparse_coo_tensor(loom.tensor(IDX), lv * 2, (3, 3))
    ts = torch.sparse_coo_tensor(torch.tensor(IDX), tv * 2, (3, 3))
    assert ls.requires_grad and ls.grad_fn is not None and not ls.is_leaf
    w = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    (loom.sparse.mm(ls, loom.tensor(w)) ** 2).sum().backward()
    (torch.sparse.mm(ts, torch.tensor(w)) ** 2).sum().backward()
    same(lv.grad, tv.grad)


def test_leaf_gradient_through_to_dense_and_sum_is_sparse_with_the_pattern():
    s, t = both(requires_grad=True)
    (s.to_dense() ** 2).sum().backward()
    (t.to_dense() ** 2).sum().backward()
    same(s.grad, t.grad)
    s, t = both(requires_grad=True)
    loom.sparse.sum(s).backward()
    torch.sparse.sum(t).backward()
    same(s.grad, t.grad)


def test_sparse_sum_against_torch():
    s, t = both()
    same(loom.sparse.sum(s), torch.sparse.sum(t))
    same(s.sum(), t.sum())
    for dim in (0, 1, -1, (0, 1)):
        a, b = loom.sparse.sum(s, dim), torch.sparse.sum(t, dim)
        assert a.is_sparse == b.is_sparse
        same(a, b)
    assert loom.sparse.sum(s, dtype=loom.float64).dtype == loom.float64


def test_construction_errors_are_pytorchs():
    v = loom.tensor(VAL[:2])
    with pytest.raises(RuntimeError, match=r"^indices must be sparse_dim x nnz, but got: \[2\]$"):
        loom.sparse_coo_tensor(loom.tensor([0, 1]), v, (3, 3))
    with pytest.raises(RuntimeError, match=r"^indices and values must have same nnz, but got nnz from indices: 2, "
                                           r"nnz from values: 3$"):
        loom.sparse_coo_tensor([[0, 1], [1, 1]], VAL[:3], (3, 3))
    with pytest.raises(RuntimeError, match=r"^size is inconsistent with indices: for dim 0, size is 3 but found "
                                           r"index 5$"):
        loom.sparse_coo_tensor([[0, 5], [1, 1]], v, (3, 3))
    with pytest.raises(RuntimeError, match=r"^found negative index -1 for dim 0$"):
        loom.sparse_coo_tensor([[0, -1], [1, 1]], v, (3, 3))
    with pytest.raises(RuntimeError, match=r"'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: "
                                           r"len\(size\) = 1, sparse_dim = 2, dense_dim = 0"):
        loom.sparse_coo_tensor(IDX, VAL, (3,))
    with pytest.raises(RuntimeError, match=r"values has incorrect size, expected \[5, 2\], got \[5, 3\]"):
        loom.sparse_coo_tensor(IDX, loom.ones(5, 3), (3, 3, 2))
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        loom.sparse_coo_tensor([[0]], [1], requires_grad=True)


def test_product_errors_are_pytorchs():
    s = loom.sparse_coo_tensor(IDX, VAL)
    with pytest.raises(RuntimeError, match=r"^addmm: Argument #3 \(dense\): Expected dim 0 size 3, got 4$"):
        loom.sparse.mm(s, loom.ones(4, 2))
    with pytest.raises(RuntimeError, match=r"^expected scalar type Float but found Double$"):
        loom.sparse.mm(s, loom.ones(3, 2, dtype=loom.float64))
    with pytest.raises(RuntimeError, match="mv: expected self.size"):
        s @ loom.ones(4)
    with pytest.raises(IndexError, match="Dimension out of range"):
        loom.sparse.mm(s, loom.ones(3))


@pytest.mark.parametrize("call", [lambda s: loom.exp(s), lambda s: s.relu(), lambda s: loom.cat([s, s]),
                                  lambda s: loom.ones(3, 3).add_(s), lambda s: s.reshape(9),
                                  lambda s: loom.nn.functional.linear(s, loom.ones(3, 3))])
def test_a_dense_op_on_a_sparse_tensor_names_the_op_and_refuses(call):
    s = loom.sparse_coo_tensor(IDX, VAL)
    with pytest.raises(NotImplementedError, match=r"Could not run '\w+' with arguments from the 'SparseCPU' "
                                                  r"backend.*\.to_dense\(\)"):
        call(s)


def test_sparse_embedding_gradient_and_accumulation_against_torch():
    w = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    le = loom.nn.Embedding(6, 3, sparse=True, padding_idx=2)
    te = torch.nn.Embedding(6, 3, sparse=True, padding_idx=2)
    with loom.no_grad():
        le.weight.copy_(loom.tensor(w))
    with torch.no_grad():
        te.weight.copy_(torch.tensor(w))
    idx = np.array([[1, 2, 1], [4, 0, 1]])
    for e, lib in ((le, loom), (te, torch)):
        (e(lib.tensor(idx)) * lib.arange(3.0)).sum().backward()
        e(lib.tensor([5])).sum().backward()   # sparse + sparse: entries concatenated
    assert le.weight.grad.is_sparse and le.weight.grad._nnz() == te.weight.grad._nnz() == 6
    np.testing.assert_array_equal(le.weight.grad._indices().numpy(), te.weight.grad._indices().numpy())
    same(le.weight.grad, te.weight.grad)
    for e, lib in ((le, loom), (te, torch)):   # sparse + dense: dense
        (e.weight * 2).sum().backward()
    assert not le.weight.grad.is_sparse
    same(le.weight.grad, te.weight.grad)
    for e, lib in ((le, loom), (te, torch)):   # both in one backward, in either order
        e.weight.grad = None
        ((e.weight ** 2).sum() + e(lib.tensor([3, 3])).sum()).backward()
    same(le.weight.grad, te.weight.grad)


def test_sparse_embedding_refuses_scale_grad_by_freq_as_torch():
    for lib in (loom, torch):
        e = lib.nn.Embedding(5, 2, sparse=True, scale_grad_by_freq=True)
        with pytest.raises(RuntimeError, match="^embedding_backward: scale_grad_by_freq not supported with sparse "
                                               "gradients$"):
            e(lib.tensor([1, 1, 3, 1])).sum().backward()


def test_sparse_adam_matches_torch_and_refuses_dense_gradients():
    w = np.random.default_rng(1).standard_normal((7, 3)).astype(np.float32)
    batches = [np.array([1, 2, 1]), np.array([6, 2]), np.array([0, 0, 5, 1])]
    out = []
    for lib in (loom, torch):
        e = lib.nn.Embedding(7, 3, sparse=True)
        with lib.no_grad():
            e.weight.copy_(lib.tensor(w))
        opt = lib.optim.SparseAdam(e.parameters(), lr=0.1, betas=(0.8, 0.9), maximize=True)
        for b in batches:
            opt.zero_grad()
            (e(lib.tensor(b)) ** 2).sum().backward()
            opt.step()
        out.append(e.weight.detach().numpy().copy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6, atol=1e-6)
    p = loom.nn.Parameter(loom.ones(2))
    p.grad = loom.ones(2)
    with pytest.raises(RuntimeError, match="^SparseAdam does not support dense gradients, please consider Adam "
                                           "instead$"):
        loom.optim.SparseAdam([p]).step()
    with pytest.raises(ValueError, match="Invalid learning rate"):
        loom.optim.SparseAdam([p], lr=0)


def test_other_optimizers_and_sparse_gradients():
    e = loom.nn.Embedding(4, 2, sparse=True)
    e(loom.tensor([1, 1])).sum().backward()
    with pytest.raises(RuntimeError, match="^Adam does not support sparse gradients, please consider SparseAdam"):
        loom.optim.Adam(e.parameters()).step()
    with pytest.raises(RuntimeError, match="^RMSprop does not support sparse gradients$"):
        loom.optim.RMSprop(e.parameters()).step()
    before = e.weight.detach().clone()
    loom.optim.SGD(e.parameters(), lr=0.5).step()   # SGD takes them, as PyTorch's
    expect = before.numpy().copy()
    expect[1] -= 0.5 * 2
    np.testing.assert_allclose(e.weight.detach().numpy(), expect)
    assert e.weight.grad.is_sparse


def test_init_sparse_zeroes_that_many_per_column():
    loom.manual_seed(0)
    w = loom.empty(10, 6)
    assert loom.nn.init.sparse_(w, 0.25, std=0.5) is w
    zeros = (w == 0).sum(0).numpy()
    np.testing.assert_array_equal(zeros, np.full(6, 3))   # ceil(0.25 * 10)
    assert 0.2 < w[w != 0].std().item() < 1.0
    g = loom.Generator().manual_seed(3)
    a = loom.nn.init.sparse_(loom.empty(8, 4), 0.5, generator=g)
    assert ((a == 0).sum(0).numpy() == 4).all()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        loom.nn.init.sparse_(loom.empty(3, 4, 5), 0.1)
