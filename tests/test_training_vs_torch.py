"""Whole training steps against PyTorch: the same model built in both libraries
from the same weights, trained a few steps on the same batches with each
optimizer, gives the same losses and parameters. In float64: float32 rounding
noise, amplified by RMSprop-centered's small denominators, made float32 runs flaky."""
import numpy as np
import pytest

import loom

torch = pytest.importorskip("torch")


def _models(lib):
    nn = lib.nn
    return {
        "mlp": nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 32), nn.GELU(),
                             nn.Linear(32, 10)),
        # no bias before BatchNorm: its gradient is rounding noise, which Adam would scale up to full steps
        "cnn": nn.Sequential(nn.Conv2d(1, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(8, 16, 3, padding=1), nn.SiLU(), nn.AvgPool2d(2), nn.Flatten(),
                             nn.LayerNorm(64), nn.Linear(64, 10)),
    }


OPTIMIZERS = {
    "sgd": lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-4),
    "adam": lambda lib, ps: lib.optim.Adam(ps, lr=2e-3),
    "adamw": lambda lib, ps: lib.optim.AdamW(ps, lr=2e-3, weight_decay=0.05),
    "rmsprop": lambda lib, ps: lib.optim.RMSprop(ps, lr=1e-3, momentum=0.5, centered=True),
}


@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
@pytest.mark.parametrize("kind", ["mlp", "cnn"])
def test_training_steps_match_pytorch(kind, opt_name):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 16, 1, 8, 8))
    y = rng.integers(0, 10, (5, 16))
    lm, tm = _models(loom)[kind].to(loom.float64), _models(torch)[kind].to(torch.float64)
    lm.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})
    lo, to = OPTIMIZERS[opt_name](loom, lm.parameters()), OPTIMIZERS[opt_name](torch, tm.parameters())
    for xb, yb in zip(x, y):
        ll = loom.nn.functional.cross_entropy(lm(loom.tensor(xb)), loom.tensor(yb), label_smoothing=0.1)
        tl = torch.nn.functional.cross_entropy(tm(torch.tensor(xb)), torch.tensor(yb), label_smoothing=0.1)
        for opt, loss in ((lo, ll), (to, tl)):
            opt.zero_grad()
            loss.backward()
            opt.step()
        assert ll.item() == pytest.approx(tl.item(), rel=1e-9, abs=1e-12)
    for (name, a), b in zip(lm.state_dict().items(), tm.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-7, atol=1e-10, err_msg=name)
