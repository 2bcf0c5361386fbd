"""conv_transpose2d forward and both gradients through each column plan of native/cpu/conv_cols.c
(LAST: few output columns and 8+ channels per group, whose channels-last copies and weight
permutation go through 16 x 16 transposes; TABLE; ROWS), at odd sizes, groups, dilation,
output_padding and strides, on one thread and two, in float32 and float64, against PyTorch in
float64."""
import numpy as np
import pytest

import loom
import loom.nn.functional as F

torch = pytest.importorskip("torch")

# (N, C_in, C_out, H, W, kernel, stride, padding, output_padding, groups, dilation)
CASES = [
    (3, 32, 16, 4, 4, 4, 2, 1, 0, 1, 1),                    # DCGAN's inner layers (LAST)
    (2, 24, 24, 5, 7, 4, 2, 1, 0, 1, 1),                    # 24 channels, 35 pixels: partial 16 x 16 tiles
    (3, 16, 40, 6, 5, 3, 2, 1, 1, 2, 1),                    # groups of 20 output channels
    (5, 64, 32, 8, 8, 4, 2, 1, 0, 1, 1),                    # several samples per thread
    (2, 12, 18, 5, 6, (3, 2), (2, 3), (1, 0), (1, 2), 3, (2, 1)),   # 6 channels per group (TABLE)
    (2, 8, 4, 3, 20, 4, 2, 1, 0, 1, 1),                     # rows of 20 (ROWS)
    (2, 32, 3, 32, 32, 4, 2, 1, 0, 1, 1),                   # DCGAN's last layer (ROWS)
    (1, 17, 9, 9, 3, (2, 5), 1, (0, 2), 0, 1, (1, 2)),      # one sample, odd everything
]


@pytest.fixture(params=[1, 2])
def threads(request):
    before = loom.get_num_threads()
    loom.set_num_threads(request.param)
    yield request.param
    loom.set_num_threads(before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
def test_forward_and_gradients_match_pytorch(case, dtype, threads):
    N, C, O, H, W, k, s, p, op, g, d = case
    kh, kw = (k, k) if isinstance(k, int) else k
    rng = np.random.default_rng(CASES.index(case) + 10 * threads)
    x = rng.standard_normal((N, C, H, W)).astype(dtype)
    w = (rng.standard_normal((C, O // g, kh, kw)) / np.sqrt(C * kh * kw / g)).astype(dtype)
    b = rng.standard_normal(O).astype(dtype)
    tx, tw, tb = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (x, w, b))
    ty = torch.nn.functional.conv_transpose2d(tx, tw, tb, s, p, op, g, d)
    gy = rng.standard_normal(tuple(ty.shape)).astype(dtype)
    ty.backward(torch.tensor(gy, dtype=torch.float64))

    lx, lw, lb = (loom.tensor(a, requires_grad=True) for a in (x, w, b))
    ly = F.conv_transpose2d(lx, lw, lb, s, p, op, g, d)
    ly.backward(loom.tensor(gy))
    tol = 1e-4 if dtype == np.float32 else 1e-10
    for got, want in ((ly, ty), (lx.grad, tx.grad), (lw.grad, tw.grad), (lb.grad, tb.grad)):
        assert got.dtype == ly.dtype and tuple(got.shape) == tuple(want.shape)
        want = want.detach().numpy()
        np.testing.assert_allclose(got.detach().numpy(), want, rtol=tol, atol=tol * np.abs(want).max())
