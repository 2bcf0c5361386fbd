"""max_pool2d's edge cases against PyTorch: NaN windows (the last NaN wins, as
PyTorch's CPU kernel), padding, ceil_mode, dilation, and both kernel paths."""
import numpy as np
import pytest

import loom


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
                                dict(kernel_size=2, dilation=2), dict(kernel_size=(3, 2), stride=1)])
def test_max_pool_with_nans_matches_pytorch(kw):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 8)).astype(np.float32)
    x[0, 0, 1, 1] = x[0, 0, 0, 1] = x[1, 2, 4, 5] = np.nan
    got_v, got_i = loom.max_pool2d_with_indices(loom.tensor(x), **{k: v for k, v in kw.items()})
    want_v, want_i = torch.nn.functional.max_pool2d_with_indices(torch.tensor(x), **kw)
    np.testing.assert_array_equal(got_v.numpy(), want_v.numpy())
    np.testing.assert_array_equal(got_i.numpy(), want_i.numpy())
