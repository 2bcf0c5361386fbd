"""memory_format= as PyTorch's: loom.channels_last / channels_last_3d / contiguous_format /
preserve_format on contiguous, clone, empty and the *_like factories; is_contiguous(memory_format=)."""
import pickle

import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch", reason="PyTorch is not installed: its strides are the reference")

FORMATS = ["contiguous_format", "channels_last", "preserve_format"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_contiguous_and_clone_strides_as_torch(fmt):
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    plain = (loom.tensor(x), torch.tensor(x))
    nhwc = (plain[0].contiguous(memory_format=loom.channels_last), plain[1].contiguous(memory_format=torch.channels_last))
    for lt, tt in (plain, nhwc):
        if fmt != "preserve_format":
            got = lt.contiguous(memory_format=getattr(loom, fmt))
            want = tt.contiguous(memory_format=getattr(torch, fmt))
            assert got.stride() == want.stride()
            np.testing.assert_array_equal(got.numpy(), x)
        got = lt.clone(memory_format=getattr(loom, fmt))
        want = tt.clone(memory_format=getattr(torch, fmt))
        assert got.stride() == want.stride() and got.data_ptr() != lt.data_ptr()
        np.testing.assert_array_equal(got.numpy(), x)


def test_contiguous_returns_self_when_laid_out_so():
    y = loom.randn(2, 3, 4, 5).contiguous(memory_format=loom.channels_last)
    assert y.contiguous(memory_format=loom.channels_last) is y
    assert y.is_contiguous(memory_format=loom.channels_last) and not y.is_contiguous()
    assert y.contiguous().is_contiguous()
    v = loom.randn(2, 3, 4, 4, 5).contiguous(memory_format=loom.channels_last_3d)
    assert v.stride() == torch.randn(2, 3, 4, 4, 5).contiguous(memory_format=torch.channels_last_3d).stride()


@pytest.mark.parametrize("name", ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like", "randint_like"])
def test_like_factories_take_memory_format(name):
    y = loom.randn(2, 3, 4, 5).contiguous(memory_format=loom.channels_last)
    extra = (3,) if name == "randint_like" else ()
    kept = getattr(loom, name)(y, *extra, memory_format=loom.preserve_format)
    assert kept.stride() == y.stride() and kept.shape == y.shape and kept.dtype == y.dtype
    made = getattr(loom, name)(loom.randn(2, 3, 4, 5), *extra, memory_format=loom.channels_last)
    assert made.is_contiguous(memory_format=loom.channels_last)
    if name == "ones_like":
        np.testing.assert_array_equal(made.numpy(), np.ones((2, 3, 4, 5), np.float32))
    assert loom.full_like(y, 2.5, memory_format=loom.preserve_format).stride() == y.stride()


def test_empty_and_gradients():
    assert loom.empty(2, 3, 4, 5, memory_format=loom.channels_last).stride() == (60, 1, 15, 3)
    w = loom.randn(2, 3, 4, 5, requires_grad=True)
    (w.contiguous(memory_format=loom.channels_last) * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3, 4, 5), 2, np.float32))


def test_errors_and_objects():
    with pytest.raises(RuntimeError, match=r"^contiguous\(\): required rank 4 tensor to use channels_last format"):
        loom.randn(3, 4).contiguous(memory_format=loom.channels_last)
    with pytest.raises(RuntimeError, match=r"required rank 5 tensor to use channels_last_3d format"):
        loom.randn(3, 4).clone(memory_format=loom.channels_last_3d)
    with pytest.raises(TypeError, match=r"^clone\(\): argument 'memory_format' must be loom.memory_format, not str"):
        loom.randn(3, 4).clone(memory_format="channels_last")
    with pytest.raises(RuntimeError, match=r"required rank 4"):
        loom.randn(3).is_contiguous(memory_format=loom.channels_last)
    assert repr(loom.channels_last) == "loom.channels_last"
    assert pickle.loads(pickle.dumps(loom.preserve_format)) is loom.preserve_format
