"""loom.empty_strided: the given sizes and strides over a storage just large enough (PyTorch's
1 + sum (size - 1) stride elements), PyTorch's errors, meta and every dtype."""
import pytest

import loom

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((4,), (3,)), ((0, 3), (5, 1)),
                                          ((), ()), ((2, 1, 3), (3, 100, 1)), ((3, 3), (0, 1))])
def test_layout_and_storage_as_pytorch(size, stride):
    t, w = loom.empty_strided(size, stride), torch.empty_strided(size, stride)
    assert (tuple(t.shape), t.stride(), t.dtype) == (tuple(w.shape), w.stride(), loom.float32)
    n = w.untyped_storage().nbytes() // 4   # the storage's elements: as_strided reaches them and no more
    loom.as_strided(t, (n,), (1,))
    with pytest.raises(RuntimeError):
        loom.as_strided(t, (n + 1,), (1,))
    m = loom.empty_strided(size, stride, device="meta")
    assert m.is_meta and (tuple(m.shape), m.stride()) == (tuple(w.shape), w.stride())


def test_writes_land_where_the_strides_say():
    t = loom.empty_strided((2, 3), (1, 2), dtype=loom.int64)
    t.copy_(loom.arange(6).reshape(2, 3))
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert loom.as_strided(t, (6,), (1,)).tolist() == [0, 3, 1, 4, 2, 5]


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "bfloat16", "float64", "complex64", "complex128", "uint16",
                                   "uint64"])
def test_every_dtype(dtype):
    t = loom.empty_strided((3, 2), (1, 3), dtype=getattr(loom, dtype))
    assert t.dtype == getattr(loom, dtype) and t.stride() == (1, 3)


@pytest.mark.parametrize("size, stride", [((2, 3), (1,)), ((2, 3), (-1, 2)), ((2**40, 2**40), (2**40, 1)),
                                          ((2, 3), (2**62, 2**62))])
def test_errors_as_pytorch(size, stride):
    with pytest.raises(RuntimeError) as want:
        torch.empty_strided(size, stride)
    with pytest.raises(RuntimeError) as got:
        loom.empty_strided(size, stride)
    assert str(got.value).startswith("empty_strided(): ")
    if "overflow" in str(want.value):
        assert "overflow" in str(got.value)
    else:
        assert str(want.value) in str(got.value)
