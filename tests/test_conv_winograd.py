"""conv2d's Winograd path (3x3, stride 1, undilated, float32, 8 to 256 channels
per group, planes at least 8 wide) against the same ops in float64, which always take
im2col + GEMM, and against PyTorch when it is installed."""
import numpy as np
import pytest

import loom

# (N, C, O, H, W, padding, groups, bias): odd sizes, every padding the transposed
# product can tile (and 3, which it hands back to im2col), groups, blocks of
# tiles that start mid-row, and one big enough to be split over threads
SHAPES = [
    (2, 8, 8, 16, 16, 1, 1, True),
    (3, 16, 8, 15, 17, 0, 1, False),
    (1, 8, 16, 17, 16, 2, 1, True),
    (2, 8, 8, 16, 18, 3, 1, False),
    (2, 32, 32, 16, 16, 1, 2, True),
    (1, 32, 16, 15, 16, 1, 4, False),
    (2, 8, 8, 3, 40, (0, 1), 1, True),
    (1, 8, 8, 16, 16, (1, 2), 1, False),
    (3, 8, 8, 21, 19, 1, 1, True),
    (5, 16, 16, 8, 8, 1, 1, True),
    (3, 8, 16, 9, 11, 0, 2, False),
    (4, 64, 64, 32, 32, 1, 1, True),
]


def arrays(N, C, O, H, W, groups, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = (rng.standard_normal((O, C // groups, 3, 3)) / np.sqrt(9 * C // groups)).astype(np.float32)
    b = rng.standard_normal(O).astype(np.float32)
    return x, w, b


def close(got, want):
    want = np.asarray(want, dtype=np.float64)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=2e-5 * np.abs(want).max())


def run(x, w, b, gy, padding, groups):
    """forward, backward-input and backward-weight through loom in x's dtype"""
    p = list(padding) if isinstance(padding, tuple) else [padding, padding]
    lx, lw, lg = loom.from_numpy(x), loom.from_numpy(w), loom.from_numpy(gy)
    y = loom.conv2d(lx, lw, None if b is None else loom.from_numpy(b), 1, padding, 1, groups)
    dx = loom.conv2d_backward_input(lg, lw, list(x.shape), [1, 1], p, [1, 1], groups)
    dw = loom.conv2d_backward_weight(lg, lx, list(w.shape), [1, 1], p, [1, 1], groups)
    return y, dx, dw


def out_shape(N, O, H, W, padding):
    ph, pw = padding if isinstance(padding, tuple) else (padding, padding)
    return (N, O, H + 2 * ph - 2, W + 2 * pw - 2)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_winograd_matches_float64_im2col(shape):
    N, C, O, H, W, padding, groups, bias = shape
    x, w, b = arrays(N, C, O, H, W, groups, 0)
    gy = np.random.default_rng(1).standard_normal(out_shape(N, O, H, W, padding)).astype(np.float32)
    got = run(x, w, b if bias else None, gy, padding, groups)
    want = run(x.astype(np.float64), w.astype(np.float64), b.astype(np.float64) if bias else None,
               gy.astype(np.float64), padding, groups)
    for g, r in zip(got, want):
        assert g.dtype == loom.float32
        close(g, r.numpy())


@pytest.mark.parametrize("shape", SHAPES[:3] + SHAPES[-1:], ids=str)
def test_winograd_matches_torch(shape):
    torch = pytest.importorskip("torch")
    N, C, O, H, W, padding, groups, bias = shape
    x, w, b = arrays(N, C, O, H, W, groups, 2)
    tx, tw = torch.from_numpy(x).requires_grad_(), torch.from_numpy(w).requires_grad_()
    ty = torch.nn.functional.conv2d(tx, tw, torch.from_numpy(b) if bias else None, 1, padding, 1, groups)
    gy = np.random.default_rng(3).standard_normal(tuple(ty.shape)).astype(np.float32)
    ty.backward(torch.from_numpy(gy))
    y, dx, dw = run(x, w, b if bias else None, gy, padding, groups)
    close(y, ty.detach().numpy())
    close(dx, tx.grad.numpy())
    close(dw, tw.grad.numpy())


def test_winograd_through_autograd_and_module():
    """nn.Conv2d's backward reaches both Winograd products; float64 copies of the same module agree"""
    loom.manual_seed(0)
    conv = loom.nn.Conv2d(16, 16, 3, padding=1)
    conv64 = loom.nn.Conv2d(16, 16, 3, padding=1).to(loom.float64)
    conv64.load_state_dict({k: v.to(loom.float64) for k, v in conv.state_dict().items()})
    x = np.random.default_rng(4).standard_normal((2, 16, 16, 20)).astype(np.float32)
    x32 = loom.tensor(x, requires_grad=True)
    x64 = loom.tensor(x.astype(np.float64), requires_grad=True)
    (conv(x32) ** 2).sum().backward()
    (conv64(x64) ** 2).sum().backward()
    close(x32.grad, x64.grad.numpy())
    close(conv.weight.grad, conv64.weight.grad.numpy())
    close(conv.bias.grad, conv64.bias.grad.numpy())


def test_winograd_non_contiguous_operands():
    x, w, b = arrays(2, 8, 8, 16, 16, 1, 5)
    xt = loom.from_numpy(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
    y = loom.conv2d(xt, loom.from_numpy(w), loom.from_numpy(b), 1, 1)
    want = loom.conv2d(loom.from_numpy(x.astype(np.float64)), loom.from_numpy(w.astype(np.float64)),
                       loom.from_numpy(b.astype(np.float64)), 1, 1)
    close(y, want.numpy())
