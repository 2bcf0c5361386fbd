"""The hand-written Python surface: construction, NumPy exchange, indexing, promotion."""
import gc
import subprocess
import sys

import numpy as np
import pytest

import loom


def test_tensor_infers_dtypes_like_pytorch():
    assert loom.tensor([1.0, 2.0]).dtype == loom.float32
    assert loom.tensor([1, 2]).dtype == loom.int64
    assert loom.tensor([True, False]).dtype == loom.bool
    assert loom.tensor(3.5).shape == () and loom.tensor(3.5).item() == 3.5
    assert loom.tensor(np.zeros(2, np.float64)).dtype == loom.float64
    assert loom.tensor([[1, 2], [3, 4]], dtype=loom.float64).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert loom.tensor([1, 2], dtype=float).dtype == loom.float64
    with pytest.raises(ValueError):
        loom.tensor([[1, 2], [3]])
    with pytest.raises(TypeError):
        loom.tensor(["a"])


def test_tensor_copies_but_from_numpy_shares():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    copied, shared = loom.tensor(a), loom.from_numpy(a)
    a[0, 0] = 100
    assert copied[0, 0].item() == 0 and shared[0, 0].item() == 100
    shared[1, 2] = -1
    assert a[1, 2] == -1
    assert shared.data_ptr() == a.__array_interface__["data"][0]


def test_numpy_views_share_memory_and_keep_it_alive():
    t = loom.arange(12, dtype=loom.float64).reshape(3, 4)
    n = t.numpy()
    assert np.shares_memory(n, np.asarray(t))
    n[0, 1] = 42
    assert t[0, 1].item() == 42
    col = np.asarray(t.T[1])
    del t, n
    gc.collect()
    assert col.tolist() == [42.0, 5.0, 9.0]


def test_from_numpy_keeps_the_array_alive():
    t = loom.from_numpy(np.arange(5, dtype=np.int32) * 2)
    gc.collect()
    assert t.tolist() == [0, 2, 4, 6, 8]
    v = t[1:4]
    del t
    gc.collect()
    assert v.tolist() == [2, 4, 6]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_dlpack_shares_memory_both_ways(dtype):
    a = (np.arange(12) % 3).astype(dtype).reshape(3, 4)[:, 1:]   # strided
    t = loom.from_dlpack(a)
    assert t.dtype.name == dtype and t.shape == (3, 3) and t.stride() == (4, 1)
    assert t.data_ptr() == a.__array_interface__["data"][0]
    back = np.from_dlpack(t)
    assert back.__array_interface__["data"][0] == t.data_ptr() and np.array_equal(back, a)
    assert t.__dlpack_device__() == (1, 0)
    capsule = loom.from_dlpack(loom.from_numpy(a).__dlpack__())   # a bare capsule, as older producers give
    assert capsule.data_ptr() == t.data_ptr()
    del a, back
    gc.collect()
    assert t.tolist() == capsule.tolist()


def test_dlpack_with_torch():
    torch = pytest.importorskip("torch")
    src = torch.arange(6.0).reshape(2, 3)
    t = loom.from_dlpack(src)
    t[0, 0] = 50
    assert src[0, 0].item() == 50
    back = torch.from_dlpack(loom.arange(4))
    back[1] = 7
    assert back.dtype == torch.int64 and back.tolist() == [0, 7, 2, 3]
    with pytest.raises(RuntimeError, match="require gradient"):
        torch.from_dlpack(loom.ones(2, requires_grad=True))


def test_dlpack_errors():
    with pytest.raises(TypeError, match="from_dlpack.*list"):
        loom.from_dlpack([1, 2])
    with pytest.raises(BufferError, match="DLPack"):   # NumPy exports no DLPack of its long double
        loom.from_dlpack(np.ones(2, np.longdouble))
    x = loom.ones(2)
    assert loom.from_dlpack(x).data_ptr() == x.data_ptr()


def test_a_numpy_backed_tensor_freed_while_an_exception_unwinds():
    """Freeing storage lent by NumPy calls back into Python; with an exception in flight that
    callback failed (SystemError) and the interpreter crashed. In a child: a crash must not take
    the test run with it."""
    code = ("import loom, numpy as np\n"
            "try:\n    loom.from_numpy(np.ones(3)) + {}.missing\nexcept AttributeError as e:\n    print(e)\n"
            "try:\n    loom.tensor(5) + {}.missing\nexcept AttributeError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("has no attribute 'missing'") == 2 and "Exception ignored" not in r.stderr, r.stderr


def test_tensors_freed_while_an_exception_is_in_flight():
    """list() drops the tensors it collected while the generator's exception is in flight; freeing one that
    lends a NumPy array runs Python code, which must neither see nor swallow that exception."""
    def stream():
        yield loom.from_numpy(np.arange(3))
        yield loom.tensor([1.0, 2.0])
        raise KeyError("from the stream")
    with pytest.raises(KeyError, match="from the stream"):
        list(stream())
    with pytest.raises(KeyError, match="from the stream"):
        [t + 1 for t in stream()]


def test_read_only_arrays_are_copied():
    a = np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8)
    t = loom.from_numpy(a)
    t += 1   # would crash if it wrote into the read-only bytes object
    assert t.tolist() == [2, 3, 4, 5] and a.tolist() == [1, 2, 3, 4]


def test_metadata():
    t = loom.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, loom.Size) and t.shape.numel() == 24
    assert t.ndim == 3 and t.dim() == 3 and t.numel() == 24 and len(t) == 2
    assert t.size(1) == 3 and t.size(-1) == 4 and t.stride() == (12, 4, 1)
    assert t.device == loom.device("cpu") and str(t.device) == "cpu" and t.dtype.itemsize == 4
    assert t.transpose(0, 2).stride() == (1, 4, 12) and not t.transpose(0, 2).is_contiguous()


def test_repr_looks_like_pytorch():
    assert repr(loom.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(loom.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(loom.tensor([1, 2], dtype=loom.int32)) == "tensor([1, 2], dtype=loom.int32)"
    assert repr(loom.tensor([True])) == "tensor([True])"
    assert repr(loom.tensor(2.5, dtype=loom.float64)) == "tensor(2.5000, dtype=loom.float64)" or \
        repr(loom.tensor(2.5, dtype=loom.float64)).startswith("tensor(2.5")
    assert "size=(0, 3)" in repr(loom.zeros(0, 3))


KEYS = [0, -1, 2, slice(None), slice(1, None), slice(None, None, 2), slice(-3, -1), slice(5, 1),
        (1, 2), (slice(None), 1), (Ellipsis, 0), (None, 1), (0, None, slice(None, None, 3)),
        (slice(1, 3), slice(None, None, -1) if False else slice(2)), (Ellipsis,), (1, Ellipsis, None)]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_getitem_matches_numpy(key):
    a = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
    t = loom.from_numpy(a)
    np.testing.assert_array_equal(t[key].numpy(), a[key])
    np.testing.assert_array_equal(t.transpose(0, 2)[key].numpy(), a.transpose(2, 1, 0)[key])


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_setitem_matches_numpy(key):
    a = np.zeros((4, 5, 6), dtype=np.int64)
    t = loom.from_numpy(a.copy())
    a[key] = 7
    t[key] = 7
    np.testing.assert_array_equal(t.numpy(), a)
    b = np.zeros((4, 5, 6))
    u = loom.from_numpy(b.copy())
    src = np.arange(b[key].size, dtype=np.float64).reshape(b[key].shape)
    b[key] = src
    u[key] = loom.tensor(src)
    np.testing.assert_array_equal(u.numpy(), b)


def test_views_share_storage():
    base = loom.zeros(3, 4)
    v = base[1]
    v += 5
    base.T[0, 2] = 9
    assert base[1].tolist() == [5.0] * 4 and base[2, 0].item() == 9
    r = base.view(12)
    r[0] = -1
    assert base[0, 0].item() == -1
    assert base.view(2, 6).data_ptr() == base.data_ptr()


def test_index_errors():
    t = loom.zeros(2, 3)
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        t[::-1]
    with pytest.raises(IndexError, match="out of bounds for dimension 0 with size 2"):
        t[loom.tensor([2])]   # tensor indices: tests/test_indexing_advanced.py


@pytest.mark.parametrize("a_dtype,other,want", [
    (loom.int32, 1, loom.int32),              # Python ints are weak
    (loom.uint8, 300, loom.uint8),
    (loom.int64, 1.5, loom.float32),          # floats promote ints to the default float
    (loom.float32, 2.0, loom.float32),
    (loom.float64, 1, loom.float64),
    (loom.bool, True, loom.bool),
    (loom.bool, 1, loom.int64),
    (loom.int32, "int64 0-d", loom.int32),    # 0-d tensors do not raise a dimensioned one's category
    (loom.int32, "float64 0-d", loom.float64),  # ... unless they are of a higher category
    (loom.float32, "float64 0-d", loom.float32),
    (loom.int32, "int64 1-d", loom.int64),
])
def test_type_promotion(a_dtype, other, want):
    a = loom.ones(3, dtype=a_dtype)
    if isinstance(other, str):
        dt, kind = other.split()
        other = loom.ones((), dtype=getattr(loom, dt)) if kind == "0-d" else loom.ones(3, dtype=getattr(loom, dt))
    assert (a + other).dtype == want
    assert (other + a).dtype == want


def test_scalar_conversions():
    assert float(loom.tensor([2.5])) == 2.5 and int(loom.tensor(3)) == 3
    assert bool(loom.tensor([1])) and not bool(loom.tensor(0.0))
    assert [x.item() for x in loom.tensor([1, 2, 3])] == [1, 2, 3]
    assert list(range(10))[loom.tensor(4)] == 4
    with pytest.raises(TypeError):
        len(loom.tensor(1.0))


def test_manual_seed_makes_random_ops_repeatable():
    for fn in (lambda: loom.rand(5), lambda: loom.randn(2, 3), lambda: loom.randint(0, 100, (7,))):
        loom.manual_seed(123)
        a = fn()
        loom.manual_seed(123)
        assert (a == fn()).all().item()
        assert not (a == fn()).all().item()
    loom.manual_seed(0)
    r = loom.rand(10000)
    assert 0 <= r.amin().item() and r.amax().item() < 1 and abs(r.mean().item() - 0.5) < 0.02
    n = loom.randn(10000, dtype=loom.float64)
    assert abs(n.mean().item()) < 0.05 and abs(n.numpy().std() - 1) < 0.05
    i = loom.randint(3, 7, (1000,))
    assert i.amin().item() == 3 and i.amax().item() == 6 and i.dtype == loom.int64


def test_large_ops_use_threads_and_agree_with_numpy():
    a = np.random.default_rng(0).standard_normal((700, 900)).astype(np.float32)
    t = loom.from_numpy(a)
    np.testing.assert_allclose((t * 2 + t.T.T).numpy(), a * 3, rtol=1e-6)
    np.testing.assert_allclose(t.sum(0).numpy(), a.sum(0), rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(t.sum().item(), a.astype(np.float64).sum(), rtol=1e-5)
    np.testing.assert_allclose(loom.exp(t).numpy(), np.exp(a), rtol=1e-6)
    np.testing.assert_allclose((t[:, :700].T + t[:, 200:]).numpy(), a[:, :700].T + a[:, 200:], rtol=1e-6)


TENSOR_NUMBERS = [(300, "uint8"), ([300], "uint8"), ([1.5], "int64"), ([1e20], "int64"), ([-1], "uint8"),
                  ([2], "bool"), ([float("nan")], "int32"), ([1e40], "float32"), ([[1, 300]], "uint8"),
                  ([2 ** 31], "int32"), ([-(2 ** 31)], "int32"), ([], "uint8"), ([True], "uint8")]


@pytest.mark.parametrize("data,dtype", TENSOR_NUMBERS, ids=str)
def test_tensor_of_python_numbers_checks_they_fit_like_pytorch(data, dtype):
    torch = pytest.importorskip("torch")
    try:
        want = torch.tensor(data, dtype=getattr(torch, dtype))
    except RuntimeError as e:
        with pytest.raises(OverflowError, match=f"tensor\\(\\): {e}"):
            loom.tensor(data, dtype=getattr(loom, dtype))
        return
    got = loom.tensor(data, dtype=getattr(loom, dtype))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
