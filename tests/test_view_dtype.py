"""Tensor.view(dtype): the same memory read as another dtype, against PyTorch (shapes, strides,
offsets, bits, and its error messages word for word), on the meta device and under vmap."""
import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]


def _pair(shape=(3, 8)):
    t = torch.arange(int(np.prod(shape)), dtype=torch.int64).reshape(shape).to(torch.int16) * 257
    return t, loom.tensor(t.numpy())


def _bits(x):
    """the bytes x's elements hold, in order (torch or loom), as uint8"""
    if isinstance(x, torch.Tensor):
        return x.contiguous().view(torch.uint8).numpy() if x.ndim else x.reshape(1).view(torch.uint8).numpy()
    return _bits(torch.from_numpy(x.view(loom.uint8).contiguous().numpy()))


@pytest.mark.parametrize("src", ["int16", "float32", "float64", "complex128", "uint8"])
@pytest.mark.parametrize("dst", NAMES)
def test_every_pair_of_dtypes_matches_pytorch(src, dst):
    t, lm = _pair((4, 16))   # 128 bytes, read as src: a view of a view
    t, lm = t.view(torch.uint8).view(getattr(torch, src)), lm.view(loom.uint8).view(getattr(loom, src))
    assert tuple(lm.shape) == tuple(t.shape)
    try:
        want = t.view(getattr(torch, dst))
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).replace("(", r"\(").replace(")", r"\)")):
            lm.view(getattr(loom, dst))
        return
    got = lm.view(getattr(loom, dst))
    assert got.dtype == getattr(loom, dst)
    assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
    assert got.storage_offset() == want.storage_offset()
    np.testing.assert_array_equal(_bits(got), _bits(want))


@pytest.mark.parametrize("make, dst", [
    (lambda x: x.t(), "int8"),             # stride(-1) != 1
    (lambda x: x[:, :3], "float64"),       # size(-1) not divisible
    (lambda x: x[:, 1:5], "int64"),        # storage offset not divisible
    (lambda x: x[:, :4], "int64"),         # stride(0) not divisible
    (lambda x: x[0, 0], "int8"),           # 0-d
])
def test_layouts_pytorch_refuses_are_refused_in_its_words(make, dst):
    t, lm = _pair((6, 10))
    with pytest.raises(RuntimeError) as want:
        make(t).view(getattr(torch, dst))
    with pytest.raises(RuntimeError) as got:
        make(lm).view(getattr(loom, dst))
    assert str(got.value) == f"view(): {want.value}"   # loom names the op first


def test_strided_views_that_pytorch_allows():
    t, lm = _pair((6, 8))
    for make, dst in [(lambda x: x[::2, 2:6], "int32"), (lambda x: x[1:, ::1][:, 4:], "int64"),
                      (lambda x: x[:, 2:4], "uint8"), (lambda x: x.t().contiguous()[1:], "float16")]:
        want, got = make(t).view(getattr(torch, dst)), make(lm).view(getattr(loom, dst))
        assert tuple(got.shape) == tuple(want.shape) and got.stride() == want.stride()
        assert got.storage_offset() == want.storage_offset()
        np.testing.assert_array_equal(_bits(got), _bits(want))


def test_a_view_shares_memory_and_takes_no_gradient():
    x = loom.zeros(4)
    v = x.view(loom.int32)
    v[1] = 0x3F800000   # the bits of 1.0f
    assert x.tolist() == [0.0, 1.0, 0.0, 0.0]
    w = loom.ones(2, requires_grad=True)
    assert not w.view(loom.int32).requires_grad
    assert not w.view(loom.float32).requires_grad   # PyTorch's view.dtype is not differentiable


def test_meta_and_vmap_follow_the_kernel():
    m = loom.empty(3, 8, dtype=loom.float32, device="meta")
    r = m.view(loom.float64)
    assert r.device.type == "meta" and tuple(r.shape) == (3, 4) and r.stride() == (4, 1) and r.dtype == loom.float64
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2 to view Float as Double"):
        loom.empty(3, 5, device="meta").view(loom.float64)
    x = loom.arange(24, dtype=loom.int16).reshape(3, 8)
    out = loom.func.vmap(lambda row: row.view(loom.int32))(x)
    np.testing.assert_array_equal(out.numpy(), x.numpy().view(np.int32))


def test_a_wrong_dtype_argument_names_itself():
    with pytest.raises(TypeError, match="view"):
        loom.zeros(2).view("float64")
