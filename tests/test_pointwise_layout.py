"""A pointwise result's layout is PyTorch's (TensorIterator's): the inputs' strides where they share
shape and dense layout, otherwise dense strides in the order the inputs' strides give the dims, the
first input that is not broadcast along a pair of dims deciding it (exp(a.T) is laid out as a.T, a
channels-last input gives a channels-last result). Values are checked too: the fast path runs
such inputs as one pass over memory."""
import itertools

import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")

SHAPES = [(3, 4), (2, 3, 4), (2, 1, 3, 4), (1, 3), (5, 1), (2, 3, 1, 4)]


def _layouts(shape, rng):
    """(name, numpy base, index) views of one shape: permuted, sliced, expanded."""
    nd = len(shape)
    for perm in itertools.permutations(range(nd)):
        if nd > 3 and rng.random() < 0.6:
            continue
        base_shape = tuple(shape[p] for p in perm)
        inv = np.argsort(perm)
        yield f"perm{perm}", base_shape, lambda t, inv=tuple(inv): t.permute(*inv)
    yield "step", tuple(s * 2 if i == nd - 1 else s for i, s in enumerate(shape)), \
        lambda t: t[(slice(None),) * (nd - 1) + (slice(None, None, 2),)]


def _pair(shape, base_shape, view, dtype, seed):
    a = np.random.default_rng(seed).standard_normal(base_shape).astype(dtype)
    return view(loom.tensor(a)), view(torch.tensor(a))


@pytest.mark.parametrize("shape", SHAPES)
def test_unary_result_takes_the_input_layout(shape):
    rng = np.random.default_rng(1)
    for name, base_shape, view in _layouts(shape, rng):
        x, tx = _pair(shape, base_shape, view, np.float32, 2)
        got, want = loom.exp(x), torch.exp(tx)
        assert got.stride() == want.stride(), (shape, name, x.stride())
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("shape", SHAPES)
def test_binary_result_layout_as_pytorch(shape):
    rng = np.random.default_rng(3)
    layouts = list(_layouts(shape, rng))
    for (n1, b1, v1), (n2, b2, v2) in itertools.product(layouts, layouts):
        x, tx = _pair(shape, b1, v1, np.float32, 4)
        y, ty = _pair(shape, b2, v2, np.float64, 5)
        got, want = x + y, tx + ty
        assert got.stride() == want.stride(), (shape, n1, n2, x.stride(), y.stride())
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_broadcast_and_scalar_operands(shape):
    rng = np.random.default_rng(7)
    for name, base_shape, view in _layouts(shape, rng):
        x, tx = _pair(shape, base_shape, view, np.float32, 8)
        row = np.random.default_rng(9).standard_normal(shape[-1:]).astype(np.float32)
        col = np.random.default_rng(10).standard_normal(shape[:1] + (1,) * (len(shape) - 1)).astype(np.float32)
        cases = [(x * 2.5, tx * 2.5), (x + loom.tensor(row), tx + torch.tensor(row)),
                 (loom.tensor(row) + x, torch.tensor(row) + tx), (x - loom.tensor(col), tx - torch.tensor(col)),
                 (loom.where(x > 0, x, loom.tensor(1.0)), torch.where(tx > 0, tx, torch.tensor(1.0)))]
        for k, (got, want) in enumerate(cases):
            assert got.stride() == want.stride(), (shape, name, k, x.stride())
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_channels_last_stays_channels_last():
    x = loom.randn(2, 3, 4, 5).contiguous(memory_format=loom.channels_last)
    y = loom.relu(x) * 2 + 1
    assert y.is_contiguous(memory_format=loom.channels_last) and not y.is_contiguous()


def test_results_of_transposed_inputs_and_their_gradients():
    a = loom.randn(50, 70, dtype=loom.float64, requires_grad=True)
    b = loom.randn(70, 50, dtype=loom.float64)
    y = loom.tanh(a.T) * b
    assert y.stride() == (1, 70)
    y.sum().backward()
    an, bn = a.detach().numpy(), b.numpy()
    np.testing.assert_allclose(y.detach().numpy(), np.tanh(an.T) * bn, rtol=1e-13)
    np.testing.assert_allclose(a.grad.numpy(), ((1 - np.tanh(an.T) ** 2) * bn).T, rtol=1e-12)


def _strided_like(t, strides):
    size = 1 + sum((n - 1) * s for n, s in zip(t.shape, strides))
    return loom.zeros(size, dtype=t.dtype).as_strided(t.shape, strides).copy_(t)


@pytest.mark.parametrize("shape", SHAPES)
def test_meta_results_are_laid_out_as_cpu_ones(shape):
    rng = np.random.default_rng(11)
    layouts = list(_layouts(shape, rng))
    for (n1, b1, v1), (n2, b2, v2) in itertools.product(layouts, layouts[:3]):
        x = v1(loom.tensor(np.random.default_rng(12).standard_normal(b1).astype(np.float32)))
        y = v2(loom.tensor(np.random.default_rng(13).standard_normal(b2)))
        xm, ym = x.to("meta"), y.to("meta")   # to() gives a non-dense input dense strides: the CPU side takes them too
        x, y = _strided_like(x, xm.stride()), _strided_like(y, ym.stride())
        for f in (lambda a, b: a + b, lambda a, b: a < b, lambda a, b: loom.exp(a) * 3, lambda a, b: a - b[0]):
            cpu = f(x, y)
            meta = f(xm, ym)
            assert meta.stride() == cpu.stride(), (shape, n1, n2, x.stride(), y.stride())
