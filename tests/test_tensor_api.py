"""The hand-written Tensor surface beyond test_tensor.py: construction precision,
views generated from the schema's alias annotations, NumPy exchange of strided
memory, random basic indexing against NumPy, repr, and Python protocols."""
import copy
import gc
import pickle

import numpy as np
import pytest

import loom
from helpers import DTYPES, call_function, ldt, op_id
from opinputs import MODEL, make_inputs


# ---- construction


def test_tensor_with_float64_dtype_keeps_double_precision():
    """Python floats default to float32 only when no dtype is given."""
    assert loom.tensor([0.1], dtype=loom.float64).item() == 0.1
    assert loom.tensor(0.1, dtype=loom.float64).item() == 0.1
    assert loom.tensor([[1e300]], dtype=float).item() == 1e300
    assert loom.tensor([0.1]).dtype == loom.float32


@pytest.mark.parametrize("data,dtype,shape", [
    ([1, 2.5], "float32", (2,)), ([True, 2], "int64", (2,)), ([], "float32", (0,)), ([[]], "float32", (1, 0)),
    ([[1, 2], [3, 4]], "int64", (2, 2)), (np.float64(1.5), "float64", ()), (np.int32(3), "int32", ()),
    (np.arange(3, dtype=np.uint8), "uint8", (3,)), (True, "bool", ()), (7, "int64", ()),
])
def test_tensor_infers_dtype_and_shape(data, dtype, shape):
    t = loom.tensor(data)
    assert t.dtype == ldt(dtype) and t.shape == shape
    np.testing.assert_array_equal(t.numpy(), np.asarray(data, dtype=dtype))


def test_tensor_of_tensors_and_copies():
    a = loom.tensor([1.0, 2.0])
    b = loom.tensor(a)
    b[0] = 9
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [9.0, 2.0]
    assert loom.tensor([loom.tensor(1.0), loom.tensor(2.0)]).tolist() == [1.0, 2.0]
    assert loom.tensor(a, dtype=loom.int32).dtype == loom.int32


@pytest.mark.parametrize("dt", DTYPES)
def test_pickle_and_deepcopy_round_trip(dt):
    t = loom.tensor(np.arange(6).reshape(2, 3) % 3).to(ldt(dt)).T
    for u in (pickle.loads(pickle.dumps(t)), copy.deepcopy(t)):
        assert u.dtype == t.dtype and u.shape == t.shape and u.tolist() == t.tolist()
        assert u.data_ptr() != t.data_ptr()


# ---- views, from the schema's Tensor(a) annotations

ALIAS_OPS = [op for op in MODEL.ops if op.schema.returns and op.schema.returns[0].type.alias
             and not op.mutating and op.test.get("ref")]
FRESH_OPS = [op for op in MODEL.ops if op.kind in ("kernel", "composite", "pointwise") and not op.mutating
             and op.inputs and not any(r.type.alias for r in op.schema.returns) and op.test.get("ref")
             and not op.test.get("nondeterministic")]


def _contiguous_case(op, dtype="float64"):
    listed = op.test.get("dtypes", op.dtypes)
    dtype = dtype if dtype in listed else listed[-1]
    made = make_inputs(op, dtype, "contiguous")
    assert made is not None, op_id(op)
    return made[1]


def _call(op, args):
    if "function" in op.variants:
        return call_function(op, args)
    pos = [args[a.name] for a in op.schema.args if not a.kwonly]
    return getattr(pos[0], op.name)(*pos[1:])


@pytest.mark.parametrize("op", ALIAS_OPS, ids=op_id)
def test_alias_ops_return_views(op):
    """`-> Tensor(a)`: on a contiguous input the result shares self's memory, both ways."""
    args = _contiguous_case(op)
    self = args["self"]
    r = _call(op, args)
    assert np.shares_memory(np.asarray(r), np.asarray(self))
    if r.numel() == self.numel() and r.numel() and r.dtype == self.dtype:   # one-to-one: writes go both ways
        r[...] = -7
        assert (self == -7).all().item()
        self[...] = 3
        assert (r == 3).all().item()


@pytest.mark.parametrize("op", FRESH_OPS, ids=op_id)
def test_other_ops_return_new_memory(op):
    """No alias annotation: the result never shares memory with an input (copy=True where the op takes it)."""
    args = _contiguous_case(op)
    if op.schema.arg("copy"):
        args["copy"] = True
    r = _call(op, args)
    for res in (r if isinstance(r, tuple) else (r,)):
        for a in op.inputs:
            vals = args[a.name] if a.type.is_list else [args[a.name]]
            for v in vals:
                assert not np.shares_memory(np.asarray(res), np.asarray(v)), f"result shares {a.name}'s memory"


def test_to_same_dtype_without_copy_shares_memory():
    """ops.yaml's doc for to.dtype: 'self itself when it already is, unless copy=True'."""
    x = loom.arange(4.0)
    assert x.to(loom.float32).data_ptr() == x.data_ptr() and x.contiguous().data_ptr() == x.data_ptr()
    assert x.to(loom.float32, copy=True).data_ptr() != x.data_ptr()


def test_to_same_dtype_returns_the_same_object_like_pytorch():
    x = loom.arange(4.0)
    assert x.to(loom.float32) is x and x.contiguous() is x and x.to("cpu") is x


# ---- NumPy exchange of strided memory


def test_numpy_of_strided_views_is_zero_copy():
    t = loom.arange(24, dtype=loom.int32).reshape(2, 3, 4)
    for v in (t.transpose(0, 2), t[:, ::2, 1:], t[1], t.unsqueeze(1), t[..., None]):
        a = np.asarray(v)
        assert np.shares_memory(a, np.asarray(t)) and a.shape == tuple(v.shape)
        assert a.strides == tuple(s * 4 for s in v.stride())
        np.testing.assert_array_equal(a, v.numpy())
    v = t.transpose(0, 2)
    np.asarray(v)[1, 2, 0] = -5
    assert t[0, 2, 1].item() == -5


def test_from_numpy_of_strided_arrays_is_zero_copy():
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    for a in (base[:, 1:3, ::2], base.transpose(2, 0, 1), base[1], base[..., 3], np.asfortranarray(base)):
        t = loom.from_numpy(a)
        assert t.stride() == tuple(s // 8 for s in a.strides) and t.shape == a.shape
        np.testing.assert_array_equal(t.numpy(), a)
        if np.shares_memory(a, base):
            t[(0,) * a.ndim] = -1.0
            assert a[(0,) * a.ndim] == -1.0
    assert loom.from_numpy(np.array(2.5)).shape == () and loom.from_numpy(np.zeros((0, 3))).shape == (0, 3)


def test_array_keeps_a_strided_view_alive():
    t = loom.arange(12, dtype=loom.float32).reshape(3, 4)
    a = np.asarray(t.T[1:])
    del t
    gc.collect()
    loom.ones(3, 4) + 1   # reuse freed memory if it had been freed
    np.testing.assert_array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4).T[1:])


# ---- random basic indexing against NumPy

hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies
SHAPE = (4, 3, 5)


@st.composite
def keys(draw):
    parts, dims = [], 0
    ellipsis = draw(st.booleans())
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["int", "slice", "none"] + (["ellipsis"] if ellipsis else [])))
        if kind == "ellipsis":
            parts.append(Ellipsis)
            ellipsis = False
        elif kind == "none":
            parts.append(None)
        elif dims < len(SHAPE):
            n = SHAPE[dims]
            if kind == "int":
                parts.append(draw(st.integers(-n, n - 1)))
            else:
                parts.append(slice(draw(st.none() | st.integers(-6, 6)), draw(st.none() | st.integers(-6, 6)),
                                   draw(st.none() | st.integers(1, 3))))
            dims += 1
    return tuple(parts) if len(parts) != 1 or draw(st.booleans()) else parts[0]


@hypothesis.settings(max_examples=150, deadline=None, database=None)
@hypothesis.given(key=keys(), transposed=st.booleans())
def test_basic_indexing_matches_numpy(key, transposed):
    a = np.arange(60, dtype=np.int64).reshape(SHAPE if not transposed else SHAPE[::-1])
    t = loom.from_numpy(a.copy())
    if transposed:
        a, t = a.transpose(2, 1, 0), t.permute(2, 1, 0)
    try:
        want = a[key]
    except IndexError:   # NumPy refuses the key (an index past the end): so must loom
        with pytest.raises(IndexError, match=r"^__getitem__\(\): "):
            t[key]
        return
    got = t[key]
    np.testing.assert_array_equal(got.numpy(), want)
    assert np.shares_memory(got.numpy(), t.numpy()) or got.numel() == 0
    b, u = a.copy(), loom.from_numpy(a.copy())
    b[key] = -1
    u[key] = -1
    np.testing.assert_array_equal(u.numpy(), b)


@pytest.mark.parametrize("key", [1.0, "a", [0, 2], loom.tensor([0.0]), loom.ones(2, 4, dtype=loom.bool_), (0, 0, 0, 0),
                                 (..., ...)], ids=repr)
def test_invalid_indices_raise_index_errors_naming_getitem(key):
    t = loom.zeros(2, 3, 4)
    with pytest.raises(IndexError, match=r"^__getitem__\(\): "):
        t[key]
    with pytest.raises(IndexError, match=r"^__setitem__\(\): "):
        t[key] = 0


def test_setitem_converts_and_broadcasts():
    t = loom.zeros(2, 3, dtype=loom.int64)
    t[0] = 1.7   # float into int truncates, as PyTorch
    t[1] = loom.tensor([[4, 5, 6]])   # leading size-1 dims of the value are dropped
    t[:, 0] = loom.tensor([7, 8])
    assert t.tolist() == [[7, 1, 1], [8, 5, 6]]
    with pytest.raises(ValueError, match="must match"):
        t[0] = loom.ones(4)


# ---- repr and Python protocols


@pytest.mark.parametrize("make,want", [
    (lambda: loom.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: loom.tensor(3.0), "tensor(3.)"),
    (lambda: loom.tensor([[1, 2], [3, 4]]), "tensor([[1, 2],\n        [3, 4]])"),
    (lambda: loom.tensor([1, 2], dtype=loom.uint8), "tensor([1, 2], dtype=loom.uint8)"),
    (lambda: loom.tensor([1.0, 2.0], dtype=loom.float64), "tensor([1., 2.], dtype=loom.float64)"),
    (lambda: loom.tensor(True), "tensor(True)"),
    (lambda: loom.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: loom.tensor([], dtype=loom.int64), "tensor([], dtype=loom.int64)"),
    (lambda: loom.zeros(2, 0, dtype=loom.int32), "tensor([], size=(2, 0), dtype=loom.int32)"),
    (lambda: loom.zeros(0), "tensor([])"),
    (lambda: loom.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
    (lambda: loom.tensor([0.25], dtype=loom.float64), "tensor([0.2500], dtype=loom.float64)"),
], ids=lambda x: x if isinstance(x, str) else "")
def test_repr_like_pytorch(make, want):
    assert repr(make()) == want


def test_contains_like_pytorch():
    """`x in t` is (t == x).any() for any number of dims, as PyTorch's Tensor.__contains__."""
    assert 2 in loom.tensor([1, 2]) and 5 not in loom.tensor([1, 2])
    assert 3 in loom.tensor([[1, 2], [3, 4]]) and 9 not in loom.tensor([[1, 2], [3, 4]])


def test_python_protocols():
    t = loom.tensor([[1, 2], [3, 4]])
    assert len(t) == 2 and [r.tolist() for r in t] == [[1, 2], [3, 4]]
    assert int(loom.tensor([[7]])) == 7 and float(loom.tensor([2.5])) == 2.5
    assert bool(loom.tensor([0.5])) and not bool(loom.tensor(False))
    assert list(range(10))[loom.tensor(3)] == 3 and list(range(10))[t[0, 1]] == 2
    for bad in (lambda: len(loom.tensor(1)), lambda: iter(loom.tensor(1)),
                lambda: list(range(3))[loom.tensor(1.0)]):
        with pytest.raises(TypeError):
            bad()
    for bad in (lambda: bool(loom.zeros(0)), lambda: int(loom.ones(2)), lambda: float(loom.ones(2))):
        with pytest.raises(RuntimeError):
            bad()
    assert isinstance(loom.tensor(2).item(), int) and isinstance(loom.tensor(True).item(), bool)
    assert isinstance(loom.tensor(2.0).item(), float) and loom.tensor(5).tolist() == 5
