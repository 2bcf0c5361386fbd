"""loom.iinfo / loom.finfo, and the integer dtypes int8 and int16 (dtypes.yaml rows) end to end:
creation, promotion with the others, NumPy exchange, wrapping arithmetic, refusal of numbers that
do not fit. Values as torch's (compared with it where it is installed)."""
import numpy as np
import pytest

import loom


def test_iinfo_and_finfo():
    assert (loom.iinfo(loom.int8).min, loom.iinfo(loom.int8).max, loom.iinfo(loom.int8).bits) == (-128, 127, 8)
    assert (loom.iinfo(loom.int16).min, loom.iinfo(loom.short).max) == (-32768, 32767)
    assert loom.iinfo(loom.uint8).max == 255 and loom.iinfo(loom.int64).min == -2 ** 63
    f = loom.finfo(loom.float32)
    assert f.eps == 2.0 ** -23 and f.bits == 32 and f.resolution == 1e-06 and f.tiny == f.smallest_normal == 2.0 ** -126
    assert loom.finfo().dtype == "float32" and loom.finfo(loom.float64).eps == 2.0 ** -52
    with pytest.raises(TypeError, match="not an integer dtype"):
        loom.iinfo(loom.float32)
    with pytest.raises(TypeError, match="not a floating point dtype"):
        loom.finfo(loom.int8)
    with pytest.raises(TypeError, match="must be loom.dtype"):
        loom.iinfo("int8")


def test_iinfo_finfo_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    for d in ("uint8", "int8", "int16", "int32", "int64"):
        a, b = loom.iinfo(getattr(loom, d)), torch.iinfo(getattr(torch, d))
        assert (a.min, a.max, a.bits) == (b.min, b.max, b.bits), d
    for d in ("float32", "float64"):
        a, b = loom.finfo(getattr(loom, d)), torch.finfo(getattr(torch, d))
        assert (a.eps, a.max, a.min, a.tiny, a.resolution, a.bits) == (b.eps, b.max, b.min, b.tiny, b.resolution,
                                                                        b.bits), d


@pytest.mark.parametrize("name", ["int8", "int16"])
def test_small_integers_end_to_end(name):
    dt = getattr(loom, name)
    x = loom.tensor([1, -2, 3], dtype=dt)
    assert x.dtype is dt and x.numpy().dtype == np.dtype(name)
    assert loom.from_numpy(np.arange(4, dtype=name)).dtype is dt            # zero-copy both ways
    assert (x + loom.ones(3, dtype=loom.uint8)).dtype is loom.int16          # int8 + uint8 -> int16, as torch
    assert (x * 2).dtype is dt and (x * 2.5).dtype is loom.float32
    big = loom.iinfo(dt).max
    assert (loom.tensor([big], dtype=dt) + 1).tolist() == [loom.iinfo(dt).min]   # wraps, as torch
    with pytest.raises(OverflowError):
        loom.full((2,), big + 1, dtype=dt)
    assert x.sum().dtype is loom.int64 and x.sum().item() == 2
    assert x.to(loom.float64).tolist() == [1.0, -2.0, 3.0]
    assert loom.arange(5, dtype=dt).tolist() == [0, 1, 2, 3, 4]


def test_default_dtype_governs_factories_and_python_floats():
    assert loom.get_default_dtype() is loom.float32
    loom.set_default_dtype(loom.float64)
    try:
        assert loom.get_default_dtype() is loom.float64
        for t in (loom.tensor([1.5]), loom.ones(2), loom.zeros(1), loom.empty(1), loom.rand(2), loom.randn(2),
                  loom.full((1,), 2.0), loom.arange(0, 1, 0.5), loom.linspace(0, 1, 3), loom.eye(2),
                  loom.arange(3) * 1.5, loom.sqrt(loom.tensor([4])), loom.nn.Linear(2, 3).weight):
            assert t.dtype is loom.float64
        assert loom.arange(3).dtype is loom.int64 and loom.full((1,), 2).dtype is loom.int64
        assert (loom.ones(2, dtype=loom.float32) * 1.5).dtype is loom.float32   # a tensor's own dtype wins
        assert repr(loom.tensor([1.5])) == "tensor([1.5000])"
        assert repr(loom.tensor([1.5], dtype=loom.float32)) == "tensor([1.5000], dtype=loom.float32)"
    finally:
        loom.set_default_dtype(loom.float32)
    assert loom.tensor([1.5]).dtype is loom.float32
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        loom.set_default_dtype(loom.int64)
    with pytest.raises(TypeError, match="must be loom.dtype"):
        loom.set_default_dtype("float64")


def test_default_dtype_as_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    for lt, tt in ((loom.float64, torch.float64), (loom.float32, torch.float32)):
        loom.set_default_dtype(lt)
        torch.set_default_dtype(tt)
        try:
            cases = [(lambda m: m.tensor([1.5, 2.0]) * 2), (lambda m: m.arange(4) / 3), (lambda m: m.ones(2) + 1),
                     (lambda m: m.tensor([1, 2]) + 0.5), (lambda m: m.exp(m.tensor([1])))]
            for f in cases:
                assert str(f(loom).dtype).removeprefix("loom.") == str(f(torch).dtype).removeprefix("torch.")
        finally:
            loom.set_default_dtype(loom.float32)
            torch.set_default_dtype(torch.float32)
