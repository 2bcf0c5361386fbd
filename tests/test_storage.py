"""Tensor.untyped_storage() and Tensor.storage(): the memory a tensor shares with its views, read and
written through the storage, against PyTorch's where it is installed."""
import warnings

import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch", reason="PyTorch is the reference for storages")


def both(make):
    return make(loom), make(torch)


def test_views_share_one_storage_and_its_bytes():
    a, ta = both(lambda m: m.arange(12, dtype=m.float32).reshape(3, 4))
    for f in (lambda x: x, lambda x: x[1:], lambda x: x.T, lambda x: x[:, 2]):
        s, ts = f(a).untyped_storage(), f(ta).untyped_storage()
        assert s.data_ptr() == a.data_ptr()
        assert (s.nbytes(), s.size(), len(s), s.element_size()) == (ts.nbytes(), ts.size(), len(ts), ts.element_size())
        assert s.tolist() == ts.tolist()
    assert a.clone().untyped_storage().data_ptr() != a.untyped_storage().data_ptr()
    assert str(a.untyped_storage().device) == "cpu" and not a.untyped_storage().is_cuda


def test_writes_through_the_storage_reach_the_tensor():
    a, ta = both(lambda m: m.zeros(4, dtype=m.int32))
    for x in (a, ta):
        s = x[2:].untyped_storage()
        s[0] = 7
        s[5] = 255
    assert a.tolist() == ta.tolist()
    assert a.untyped_storage()[0] == ta.untyped_storage()[0] == 7
    assert a.untyped_storage()[-11] == ta.untyped_storage()[-11] == 255
    c = a.untyped_storage().clone()
    c.fill_(0)
    assert a.tolist() == ta.tolist()              # the clone is its own memory
    a.untyped_storage().copy_(c)
    assert a.tolist() == [0, 0, 0, 0]


def test_index_errors_as_pytorch():
    s = loom.ones(2).untyped_storage()
    with pytest.raises(IndexError, match="index 8 out of range for storage of size 8"):
        s[8]
    with pytest.raises(TypeError):
        s[1.0]
    with pytest.raises(RuntimeError, match="differ in size"):
        s.copy_(loom.ones(1).untyped_storage())


def test_constructors_and_empty_storage():
    assert loom.UntypedStorage(5).nbytes() == torch.UntypedStorage(5).nbytes() == 5
    assert loom.UntypedStorage([1, 2, 3]).tolist() == torch.UntypedStorage([1, 2, 3]).tolist()
    assert loom.empty(0).untyped_storage().nbytes() == torch.empty(0).untyped_storage().nbytes() == 0


def test_typed_storage_warns_and_counts_elements():
    a, ta = both(lambda m: m.arange(6, dtype=m.float64)[2:])
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = a.storage()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ts = ta.storage()
    assert (s.size(), s.nbytes(), s.element_size(), s.tolist()) == (ts.size(), ts.nbytes(), ts.element_size(), ts.tolist())
    assert s.dtype == loom.float64 and s.type() == ts.type().replace("torch", "loom")
    assert s.untyped().nbytes() == ts.untyped().nbytes()
    assert s[3] == ts[3] == 3.0


def test_storage_of_a_numpy_array_is_its_memory():
    arr = np.arange(5, dtype=np.int16)
    t = loom.from_numpy(arr)
    s = t.untyped_storage()
    assert s.data_ptr() == arr.ctypes.data and s.nbytes() == arr.nbytes
    s[0] = 9
    assert arr[0] == 9
