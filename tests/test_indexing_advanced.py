"""Advanced indexing (integer tensors, lists, boolean masks, mixed with slices,
None, ... and ints) against NumPy's values and PyTorch's gradients, the
indexing ops' own edge cases, and the errors a bad index gives."""
import numpy as np
import pytest

import loom

A = np.arange(60.0).reshape(3, 4, 5)
I3 = np.array([2, 0, 2, 1])            # along a dim of size 3 (repeats on purpose)
I4 = np.array([[3, 0], [1, 3]])        # along a dim of size 4
MASK = A[:, :, 0] % 20 > 4             # over dims 0 and 1

# keys where NumPy and PyTorch agree (an int next to an array differs: PyTorch applies ints first)
KEYS = {
    "one_array": (I3,),
    "list": ([0, 2, 2],),
    "second_dim": (slice(None), I4),
    "two_broadcast": (I3[:2, None], slice(None), np.array([4, 0, 1])),
    "adjacent_pair": (slice(None), I4, np.array([[0], [4]])),
    "slice_between": (I3, slice(1, 3), np.array([0, 4, 4, 1])),
    "ellipsis": (Ellipsis, np.array([4, 4, 0])),
    "none_first": (None, slice(None), I4),
    "negative": (np.array([-1, -3]),),
    "mask": (MASK,),
    "mask_then_index": (MASK, np.array([1])),
    "mask_1d": (slice(None), A[0, :, 0] > 10),
    "empty_list": ([],),
    "scalar_tensor": (np.array(1),),
    "true": (True,),
}
INT_THEN_ARRAY = (1, slice(None), np.array([0, 4]))   # NumPy: shape (2, 4); PyTorch: (4, 2)


def _lm_key(key):
    return tuple(loom.tensor(k) if isinstance(k, np.ndarray) else k for k in key)


@pytest.mark.parametrize("name", KEYS)
def test_getitem_matches_numpy(name):
    key = KEYS[name]
    got = loom.tensor(A)[_lm_key(key)]
    np.testing.assert_array_equal(got.numpy(), A[key])


@pytest.mark.parametrize("name", KEYS)
def test_getitem_of_a_transposed_view(name):
    base = np.ascontiguousarray(A.transpose(2, 1, 0))
    x = loom.tensor(base).permute(2, 1, 0)   # A's values, non-contiguous
    np.testing.assert_array_equal(x[_lm_key(KEYS[name])].numpy(), A[KEYS[name]])


@pytest.mark.parametrize("name", [n for n in KEYS if n not in ("true",)])
def test_setitem_scalar_and_tensor_match_numpy(name):
    key = KEYS[name]
    x, want = loom.tensor(A), A.copy()
    x[_lm_key(key)] = -1.0
    want[key] = -1.0
    np.testing.assert_array_equal(x.numpy(), want)
    shape = A[key].shape
    if name == "slice_between" or name == "mask_then_index":
        return   # repeated positions: which write wins is unspecified in both
    vals = np.arange(float(np.prod(shape))).reshape(shape)
    x, want = loom.tensor(A), A.copy()
    x[_lm_key(key)] = loom.tensor(vals)
    want[key] = vals
    np.testing.assert_array_equal(x.numpy(), want)


def test_an_int_is_applied_before_the_arrays_as_in_pytorch():
    x = loom.tensor(A)
    got = x[_lm_key(INT_THEN_ARRAY)]
    np.testing.assert_array_equal(got.numpy(), A[1][:, [0, 4]])
    x[_lm_key(INT_THEN_ARRAY)] = loom.zeros(4, 2)
    want = A.copy()
    want[1][:, [0, 4]] = 0
    np.testing.assert_array_equal(x.numpy(), want)


def test_setitem_broadcasts_and_converts_the_value():
    x = loom.zeros(3, 4, dtype=loom.int64)
    x[:, [1, 3]] = loom.tensor([5.0, 6.0])        # float value into an int tensor, broadcast over rows
    assert x.tolist() == [[0, 5, 0, 6]] * 3
    x[x > 5] = loom.tensor([[9]])                  # leading size-1 dims of the value are dropped
    assert x.tolist() == [[0, 5, 0, 9]] * 3


def test_setitem_writes_through_views_and_reads_values_first():
    base = loom.tensor(np.arange(12.0).reshape(3, 4))
    row = base[1]
    row[[0, 2]] = 0.0
    assert base[1].tolist() == [0.0, 5.0, 0.0, 7.0]
    x = loom.arange(5.0)
    x[[1, 2, 3]] = x[[0, 1, 2]]                    # the source is read before it is overwritten
    assert x.tolist() == [0.0, 0.0, 1.0, 2.0, 4.0]


def test_getitem_copies():
    x = loom.zeros(3)
    y = x[[0, 1]]
    y[0] = 5.0
    assert x.tolist() == [0.0, 0.0, 0.0]


# ---- errors: never a crash, an IndexError naming the problem


@pytest.mark.parametrize("key, match", [
    ((np.array([3]),), r"index 3 is out of bounds for dimension 0 with size 3"),
    ((slice(None), np.array([0, -5])), r"index -5 is out of bounds for dimension 1 with size 4"),
    ((np.array([0, 1]), slice(None), np.array([0, 1, 2])), r"could not be broadcast"),
    ((np.ones((3, 5), dtype=bool),), r"shape of the mask \[3, 5\] at index 0 does not match"),
    ((np.array([0.5]),), r"must be long, int, byte or bool"),
    ((np.array([0]),) * 4, r"too many indices"),
])
def test_bad_indices_raise_index_error(key, match):
    x = loom.tensor(A)
    with pytest.raises(IndexError, match=match):
        x[_lm_key(key)]
    with pytest.raises(IndexError, match=match):
        x[_lm_key(key)] = 1.0
    np.testing.assert_array_equal(x.numpy(), A)


def test_bad_value_shape_for_setitem():
    x = loom.zeros(3, 4)
    with pytest.raises(RuntimeError, match="shape mismatch: value tensor of shape"):
        x[[0, 1]] = loom.ones(3)


def test_op_errors():
    x = loom.tensor(A)
    with pytest.raises(IndexError, match="out of bounds"):
        x.gather(0, loom.tensor(np.full((1, 4, 5), 3)))
    with pytest.raises(TypeError, match="Expected dtype int32 or int64 for index"):
        x.gather(0, loom.zeros(1, 4, 5))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        x.scatter(0, loom.tensor([0]), 1.0)
    with pytest.raises(IndexError, match="out of bounds"):
        x.index_select(2, loom.tensor([5]))
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(6)
    with pytest.raises(RuntimeError, match="boolean masks"):
        x.masked_fill(loom.ones(5), 0.0)
    with pytest.raises(IndexError, match="out of range"):
        loom.embedding(loom.ones(3, 2), loom.tensor([3]))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        loom.one_hot(loom.tensor([0, 4]), 3)
    with pytest.raises(RuntimeError, match="dtypes match"):
        loom.zeros(3).index_put_([loom.tensor([0])], loom.ones(1, dtype=loom.float64))


# ---- the ops' own semantics


def test_sort_is_stable_and_puts_nan_last():
    x = loom.tensor([3.0, float("nan"), 1.0, 3.0, 1.0])
    v, i = x.sort()
    assert i.tolist() == [2, 4, 0, 3, 1] and np.isnan(v.numpy()[-1])
    v, i = x.sort(descending=True)
    assert i.tolist() == [1, 0, 3, 2, 4]
    assert loom.argsort(x, descending=True).tolist() == [1, 0, 3, 2, 4]


def test_topk_smallest_and_ties():
    x = loom.tensor([[4, 1, 4, 0], [2, 2, 2, 9]])
    assert x.topk(2, largest=False).indices.tolist() == [[3, 1], [0, 1]]
    assert x.topk(2).indices.tolist() == [[0, 2], [3, 0]]


def test_cumsum_dtypes():
    assert loom.cumsum(loom.tensor([True, True, False]), 0).dtype == loom.int64
    assert loom.cumsum(loom.tensor([1, 2]), 0, dtype=loom.float64).tolist() == [1.0, 3.0]


def test_one_hot_infers_classes():
    assert loom.one_hot(loom.tensor([2, 0])).tolist() == [[0, 0, 1], [1, 0, 0]]


def test_scatter_inplace_overloads_and_index_add_inplace():
    x = loom.zeros(2, 3)
    assert x.scatter_(1, loom.tensor([[2], [0]]), 5.0) is x
    x.scatter_(1, loom.tensor([[0], [1]]), loom.tensor([[1.0], [2.0]]))
    assert x.tolist() == [[1.0, 0.0, 5.0], [5.0, 2.0, 0.0]]
    x.index_add_(0, loom.tensor([1, 1]), loom.ones(2, 3))
    assert x.tolist() == [[1.0, 0.0, 5.0], [7.0, 4.0, 2.0]]


# ---- gradients against PyTorch


def _grads(fn_loom, fn_torch, *arrays):
    torch = pytest.importorskip("torch")
    lx = [loom.tensor(a, requires_grad=True) for a in arrays]
    tx = [torch.tensor(a, requires_grad=True) for a in arrays]
    lo, to = fn_loom(*lx), fn_torch(torch, *tx)
    seed = np.random.default_rng(0).standard_normal(tuple(to.shape))
    lo.backward(loom.tensor(seed))
    to.backward(torch.tensor(seed))
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy())
    for a, b in zip(lx, tx):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def _torch_key(torch, key):
    return tuple(torch.tensor(k) if isinstance(k, np.ndarray) else k for k in key)


@pytest.mark.parametrize("name", [n for n in KEYS if n not in ("empty_list",)] + ["int_then_array"])
def test_getitem_gradient_matches_pytorch(name):
    key = KEYS.get(name, INT_THEN_ARRAY)
    _grads(lambda x: x[_lm_key(key)] * 2, lambda torch, x: x[_torch_key(torch, key)] * 2, A.copy())


@pytest.mark.parametrize("name", ["one_array", "second_dim", "adjacent_pair", "mask", "int_then_array"])
def test_setitem_on_a_graph_tensor_matches_pytorch(name):
    key = KEYS.get(name, INT_THEN_ARRAY)
    shape = A[key].shape if name != "int_then_array" else (4, 2)
    v = np.random.default_rng(1).standard_normal(shape)

    def lf(x, val):
        y = x * 3
        y[_lm_key(key)] = val * val
        return y

    def tf(torch, x, val):
        y = x * 3
        y[_torch_key(torch, key)] = val * val
        return y
    _grads(lf, tf, A.copy(), v)


def test_index_put_accumulate_gradients_match_pytorch():
    idx = np.array([0, 2, 0])
    _grads(lambda x, v: loom.index_put(x, [loom.tensor(idx)], v, accumulate=True),
           lambda torch, x, v: torch.index_put(x, (torch.tensor(idx),), v, accumulate=True),
           A[:, 0, :].copy(), np.ones((3, 5)))


def test_masked_fill_tensor_value_gradient():
    m = A[0] > 7
    _grads(lambda x, v: x.masked_fill(loom.tensor(m), v), lambda torch, x, v: x.masked_fill(torch.tensor(m), v),
           A[0].copy(), np.array(2.0))


def test_embedding_padding_row_gets_no_gradient():
    idx = np.array([[0, 2], [2, 1]])
    _grads(lambda w: loom.embedding(w, loom.tensor(idx), 2), lambda torch, w: torch.embedding(w, torch.tensor(idx), 2),
           A[:, :, 0].copy())


@pytest.mark.parametrize("padding_idx", [-1, 2])
def test_embedding_scale_grad_by_freq_gradient_matches_pytorch(padding_idx):
    idx = np.array([[0, 2, 2], [2, 1, 0], [3, 2, 3]])   # row 2 four times, 0 and 3 twice, 1 once
    _grads(lambda w: loom.embedding(w, loom.tensor(idx), padding_idx, True),
           lambda torch, w: torch.embedding(w, torch.tensor(idx), padding_idx, True), A[0].copy())


def test_embedding_forward_mode_matches_pytorch():
    """The tangent is the lookup of the weight's tangent; the padding row and the frequency scaling concern
    only the gradient."""
    torch = pytest.importorskip("torch")
    from loom.autograd import forward_ad as fw
    import torch.autograd.forward_ad as tfw
    idx, w, t = np.array([1, 1, 2, 0]), A[:, :, 0].copy(), A[:, :, 1].copy()
    with fw.dual_level():
        got = fw.unpack_dual(loom.embedding(fw.make_dual(loom.tensor(w), loom.tensor(t)), loom.tensor(idx), 1,
                                            True)).tangent
    with tfw.dual_level():
        want = tfw.unpack_dual(torch.embedding(tfw.make_dual(torch.tensor(w), torch.tensor(t)), torch.tensor(idx),
                                               1, True)).tangent
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_second_order_through_gather_and_index():
    x = loom.tensor(A[0], requires_grad=True)
    idx = loom.tensor([[1, 1], [0, 3], [2, 2]])
    assert loom.autograd.gradgradcheck(lambda t: (t.gather(1, idx) ** 2), (x,))
    assert loom.autograd.gradgradcheck(lambda t: t[[0, 0, 2]] ** 2, (x,))


@pytest.mark.parametrize("alpha", [True, False, 1, 2, 0])
def test_index_add_of_bool_is_or_as_in_pytorch(alpha):
    """PyTorch's index_add serves bool: adding is or, repeats accumulate, a zero alpha adds nothing."""
    torch = pytest.importorskip("torch")
    self, index, source = [[False, True, False], [True, False, False]], [2, 0, 2], [[True, False, True]] * 2
    got = loom.tensor(self).index_add(1, loom.tensor(index), loom.tensor(source), alpha=alpha)
    want = torch.tensor(self).index_add(1, torch.tensor(index), torch.tensor(source), alpha=alpha)
    assert got.dtype == loom.bool and got.tolist() == want.tolist()
