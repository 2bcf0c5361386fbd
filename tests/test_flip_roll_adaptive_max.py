"""flip, roll and adaptive_max_pool2d kernels against PyTorch: every dims/shifts combination,
strided inputs, NaNs and ties, and their gradients."""
import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(7)


def views(x):
    """x itself, a transposed view and a sliced (non-unit stride) view, as loom and torch pairs."""
    yield loom.tensor(x), torch.tensor(x)
    yield loom.tensor(x).transpose(0, -1), torch.tensor(x).transpose(0, -1)
    yield loom.tensor(x)[:, ::2], torch.tensor(x)[:, ::2]


@pytest.mark.parametrize("dims", [[0], [1], [-1], [0, 2], [2, 0, 1], []], ids=str)
def test_flip_matches_torch(dims):
    for lx, tx in views(RNG.standard_normal((3, 4, 5))):
        np.testing.assert_array_equal(loom.flip(lx, dims).numpy(), torch.flip(tx, dims).numpy())
    assert loom.flip(loom.zeros(0, 3), [0, 1]).shape == (0, 3)
    assert loom.flip(loom.tensor(2.0), [0]).item() == 2.0


@pytest.mark.parametrize("shifts, dims", [([1], [0]), ([-7], [2]), ([2, -3], [0, 1]), ([5, 1, 9], [2, 0, 1]),
                                          ([1, 2], [1, 1]), ([4], []), ([-11], []), ([0], [1])], ids=str)
def test_roll_matches_torch(shifts, dims):
    for lx, tx in views(RNG.standard_normal((3, 4, 5))):
        np.testing.assert_array_equal(loom.roll(lx, shifts, dims).numpy(), torch.roll(tx, shifts, dims).numpy())
    x = RNG.integers(-9, 9, size=(4, 6))
    np.testing.assert_array_equal(loom.roll(loom.tensor(x), 3, 1).numpy(), np.roll(x, 3, 1))
    assert loom.roll(loom.zeros(0, 3), [1], [0]).shape == (0, 3)


def test_flip_roll_gradients():
    t = loom.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    assert loom.autograd.gradcheck(lambda a: loom.flip(a, [0, 1]) * loom.arange(4.0, dtype=loom.float64), [t])
    assert loom.autograd.gradcheck(lambda a: loom.roll(a, [1, -5], [0, 1]) * loom.arange(4.0, dtype=loom.float64), [t])
    assert loom.autograd.gradcheck(lambda a: loom.roll(a, 5) * loom.arange(4.0, dtype=loom.float64), [t])
    assert loom.autograd.gradgradcheck(lambda a: loom.roll(loom.flip(a, [1]), [2], [1]) ** 2, [t])


def test_flip_roll_errors():
    x = loom.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"^flip\(\): dim 1 appears multiple times"):
        loom.flip(x, [1, -1])
    with pytest.raises(IndexError, match=r"^flip\(\): Dimension out of range"):
        loom.flip(x, [2])
    with pytest.raises(RuntimeError, match=r"^roll\(\): shifts and dimensions must align"):
        loom.roll(x, [1, 2], [0])
    with pytest.raises(RuntimeError, match=r"^roll\(\): `shifts` required"):
        loom.roll(x, [])
    with pytest.raises(IndexError, match=r"^roll\(\): Dimension out of range"):
        loom.roll(x, [1], [3])
    with pytest.raises(IndexError, match=r"^roll\(\): Dimension specified as 0 but tensor has no dimensions"):
        loom.roll(loom.tensor(1.0), [1], [0])


@pytest.mark.parametrize("size", [(3, 2), (1, 1), (7, 5), (4, 9)], ids=str)
def test_adaptive_max_pool2d_nan_ties_and_grad(size):
    x = RNG.integers(0, 3, size=(2, 3, 7, 5)).astype(np.float64)   # many ties: the first wins
    x[0, 1, 2, 3] = x[1, 2, 6, 0] = x[1, 2, 5, 1] = np.nan          # a NaN wins its window
    for lx, tx in views(x):
        lv, li = loom.adaptive_max_pool2d(lx, size)
        tv, ti = torch.nn.functional.adaptive_max_pool2d(tx, size, return_indices=True)
        np.testing.assert_array_equal(lv.numpy(), tv.numpy())
        np.testing.assert_array_equal(li.numpy(), ti.numpy())
    w = RNG.permutation(2 * 3 * 7 * 5).reshape(2, 3, 7, 5).astype(np.float64)
    t = loom.tensor(w, requires_grad=True)
    tt = torch.tensor(w, requires_grad=True)
    g = RNG.standard_normal(loom.adaptive_max_pool2d(t, size)[0].shape)
    (loom.adaptive_max_pool2d(t, size)[0] * loom.tensor(g)).sum().backward()
    (torch.nn.functional.adaptive_max_pool2d(tt, size) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), tt.grad.numpy())
    assert loom.autograd.gradgradcheck(lambda a: loom.adaptive_max_pool2d(a, size)[0], [t])
