"""loom.testing: assert_close reports as torch.testing does (same checks, tolerances and text,
loom's names in place of torch's); make_tensor draws what it promises."""
import math

import numpy as np
import pytest

import loom
from loom.testing import assert_close, make_tensor

nan, inf = float("nan"), float("inf")
CASES = [
    (lambda L: (L.tensor([1., 2., 3.]), L.tensor([1., 2.5, 3.])), {}),
    (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2., 3.])), {}),
    (lambda L: (L.tensor([1.]), L.tensor([1.], dtype=L.float64)), {}),
    (lambda L: (L.tensor([1], dtype=L.int64), L.tensor([2], dtype=L.int32)), {"check_dtype": False}),
    (lambda L: (L.tensor([1, 2]), L.tensor([1, 3])), {}),
    (lambda L: (1.0, 1.1), {}),
    (lambda L: ([L.tensor(1.)], [L.tensor(2.)]), {}),
    (lambda L: ({"a": L.tensor(1.)}, {"a": L.tensor(2.)}), {}),
    (lambda L: (L.tensor([[1., nan]]), L.tensor([[1., nan]])), {}),
    (lambda L: (L.tensor([[1., nan]]), L.tensor([[1., nan]])), {"equal_nan": True}),
    (lambda L: (L.tensor([True]), L.tensor([False])), {}),
    (lambda L: ([1, 2], [1, 2, 3]), {}),
    (lambda L: ({"a": 1}, {"b": 1}), {}),
    (lambda L: (1, 1.0), {}),
    (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), {"msg": "custom"}),
    (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), {"rtol": 0.1, "atol": 0.0}),
    (lambda L: (L.tensor([1., 2.]), L.tensor([1., 2.1])), {"rtol": 0.01, "atol": 0.0}),
    (lambda L: (np.array([1., 2.]), np.array([1., 2.5])), {}),
    (lambda L: (L.ones(2, 3), L.ones(2, 3) * 1.1), {}),
    (lambda L: (L.tensor([1 + 1j]), L.tensor([1 + 2j])), {}),
    (lambda L: (L.tensor(inf), L.tensor(inf)), {}),
    (lambda L: (L.tensor([inf]), L.tensor([-inf])), {}),
    (lambda L: (L.tensor([1., 2.], dtype=L.float16), L.tensor([1., 2.001], dtype=L.float16)), {}),
    (lambda L: (L.tensor([1., 2.], dtype=L.bfloat16), L.tensor([1., 2.03], dtype=L.bfloat16)), {}),
    (lambda L: (L.zeros(3, 4).t(), L.zeros(4, 3)), {"check_stride": True}),
]


def _outcome(fn):
    try:
        fn()
    except (AssertionError, ValueError, TypeError) as e:
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("i", range(len(CASES)))
def test_assert_close_reports_as_torch(i):
    torch = pytest.importorskip("torch")
    make, kw = CASES[i]
    ours = _outcome(lambda: assert_close(*make(loom), **kw))
    theirs = _outcome(lambda: torch.testing.assert_close(*make(torch), **kw))
    if theirs is not None:
        theirs = theirs[0], theirs[1].replace("torch.", "loom.").replace("loom.Tensor'", "loom._tensor.Tensor'")
    assert ours == theirs


def test_assert_close_fails_on_what_it_must():
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        assert_close(loom.tensor([1.0, 2.0]), loom.tensor([1.0, 2.0 + 1e-4]))
    assert_close(loom.tensor([1.0, 2.0]), loom.tensor([1.0, 2.0 + 1e-6]))   # within float32's tolerance
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        assert_close(loom.ones(1), loom.ones(1), rtol=1)
    with pytest.raises(AssertionError, match=r"item \[1\]\['w'\]"):
        assert_close([{}, {"w": loom.zeros(2)}], ({}, {"w": loom.ones(2)}))   # list and tuple compare as sequences


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32",
                                   "float64", "complex64", "complex128"])
def test_make_tensor_draws_in_range(dtype):
    dt = getattr(loom, dtype)
    loom.manual_seed(0)
    t = make_tensor(20, 30, dtype=dt)
    assert t.shape == (20, 30) and t.dtype == dt and t.is_contiguous()
    a = t.float().numpy() if dtype == "bfloat16" else t.numpy()
    if dtype == "bool":
        assert a.any() and not a.all()
    elif dtype.startswith("complex"):
        assert np.abs(a.real).max() <= 9 and np.abs(a.imag).max() <= 9
    else:
        low = 0 if dtype == "uint8" else -9
        assert a.min() >= low and a.max() <= 9 and a.max() > 4   # 600 draws reach the upper half
    loom.manual_seed(0)
    assert_close(make_tensor(20, 30, dtype=dt), t, equal_nan=True)   # loom.manual_seed fixes the draw


def test_make_tensor_options():
    t = make_tensor((4, 5), dtype=loom.float32, low=2, high=3, noncontiguous=True, requires_grad=True)
    assert not t.is_contiguous() and t.requires_grad and t.shape == (4, 5)
    assert 2 <= float(t.min()) and float(t.max()) < 3
    z = make_tensor(1000, dtype=loom.int64, low=-1, high=2, exclude_zero=True)
    assert not (z == 0).any() and set(np.unique(z.numpy())) <= {-1, 1}
    cl = make_tensor(2, 3, 4, 5, dtype=loom.float32, memory_format=loom.channels_last)
    assert cl.is_contiguous(memory_format=loom.channels_last)
    with pytest.raises(ValueError, match="requires_grad must be False for integral dtype"):
        make_tensor(2, dtype=loom.int64, requires_grad=True)
    with pytest.raises(ValueError, match="`low` must be less than or equal to `high`"):
        make_tensor(2, dtype=loom.float32, low=3, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(2, dtype=loom.float32, low=math.nan)
    with pytest.raises(TypeError, match="argument 'dtype' must be loom.dtype"):
        make_tensor(2, dtype=np.float32)
