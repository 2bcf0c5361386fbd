"""Mixed precision: loom.autocast casts as PyTorch's autocast (from the ops' `autocast:` entries),
gradients reach float32 parameters, a bfloat16-autocast digits MLP trains as well as float32,
and GradScaler scales, unscales, skips overflowing steps and adapts as torch.amp.GradScaler."""
import numpy as np
import pytest

import loom
from opinputs import MODEL

torch = pytest.importorskip("torch")


def test_autocast_casts_as_pytorch():
    g = np.random.default_rng(0)
    a, b, w = (g.standard_normal(s).astype(np.float32) for s in ((4, 8), (8, 3), (3, 8)))
    la, lb, lw = map(loom.tensor, (a, b, w))
    ta, tb, tw = map(torch.tensor, (a, b, w))
    with loom.autocast("cpu", dtype=loom.bfloat16), torch.autocast("cpu", dtype=torch.bfloat16):
        cases = [(la @ lb, ta @ tb), (loom.mm(la, lb), torch.mm(ta, tb)),
                 (loom.nn.functional.linear(la, lw), torch.nn.functional.linear(ta, tw)),
                 (la + 1, ta + 1), (la.exp(), ta.exp()), (la.softmax(-1), ta.softmax(-1))]
        h = la @ lb
        th = ta @ tb
        loss = loom.nn.functional.mse_loss(h, loom.zeros(4, 3))
        tloss = torch.nn.functional.mse_loss(th, torch.zeros(4, 3))
        cases.append((loss, tloss))
        d = loom.ones(2, 2, dtype=loom.float64)
        assert (d @ d).dtype == loom.float64   # float64 is left alone
        assert loom.is_autocast_enabled("cpu") and loom.get_autocast_dtype("cpu") == loom.bfloat16
        with loom.autocast("cpu", enabled=False):
            assert (la @ lb).dtype == loom.float32
    for got, want in cases:
        assert got.dtype.name == str(want.dtype).split(".")[1]
        np.testing.assert_allclose(got.float().detach().numpy(), want.float().detach().numpy(), rtol=2e-2, atol=2e-2)
    assert (la @ lb).dtype == loom.float32 and not loom.is_autocast_enabled("cpu")


def test_autocast_lists_come_from_the_ops():
    lower = {op.name for op in MODEL.ops if op.autocast and op.autocast[0] == "lower"}
    assert {"matmul", "mm", "bmm", "linear", "conv2d", "conv1d"} <= lower
    f32 = {op.name for op in MODEL.ops if op.autocast and op.autocast[0] == "float32"}
    assert {"cross_entropy", "nll_loss", "mse_loss"} <= f32


def test_autocast_as_decorator_and_errors():
    @loom.autocast("cpu")
    def f(x):
        return x @ x
    assert f(loom.ones(2, 2)).dtype == loom.bfloat16
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda device type at start of device string: tpu"):
        loom.autocast("tpu")
    with pytest.warns(UserWarning, match="target dtype is not supported. Disabling autocast"):
        with loom.autocast("cpu", dtype=loom.float64):
            assert not loom.is_autocast_enabled("cpu")
            assert (loom.ones(2, 2) @ loom.ones(2, 2)).dtype == loom.float32


def test_gradients_reach_float32_parameters():
    lin = loom.nn.Linear(8, 4)
    x = loom.randn(5, 8)
    with loom.autocast("cpu"):
        out = lin(x)
        assert out.dtype == loom.bfloat16
        loss = out.float().pow(2).mean()
    loss.backward()
    assert lin.weight.grad.dtype == loom.float32 and lin.bias.grad.dtype == loom.float32
    ref = loom.nn.Linear(8, 4)
    ref.load_state_dict(lin.state_dict())
    ref(x).pow(2).mean().backward()
    np.testing.assert_allclose(lin.weight.grad.numpy(), ref.weight.grad.numpy(), rtol=5e-2, atol=5e-3)


def _train_digits(autocast):
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    X = (X / 16.0).astype(np.float32)
    loom.manual_seed(0)
    model = loom.nn.Sequential(loom.nn.Linear(64, 64), loom.nn.ReLU(), loom.nn.Linear(64, 10))
    opt = loom.optim.Adam(model.parameters(), lr=1e-2)
    xt, yt = loom.tensor(X[:1400]), loom.tensor(y[:1400])
    for epoch in range(20):
        for i in range(0, 1400, 100):
            opt.zero_grad()
            with loom.autocast("cpu", dtype=loom.bfloat16, enabled=autocast):
                loss = loom.nn.functional.cross_entropy(model(xt[i:i + 100]), yt[i:i + 100])
            loss.backward()
            opt.step()
    with loom.no_grad(), loom.autocast("cpu", enabled=autocast):
        pred = model(loom.tensor(X[1400:])).float().argmax(1).numpy()
    return (pred == y[1400:]).mean()


def test_bfloat16_autocast_digits_mlp_trains_as_well_as_float32():
    pytest.importorskip("sklearn")
    full, mixed = _train_digits(False), _train_digits(True)
    assert full > 0.88 and mixed > full - 0.03, (full, mixed)


def test_grad_scaler_matches_torch():
    def run(lib, scaler_cls):
        lib.manual_seed(0)
        w = lib.nn.Parameter(lib.tensor([[1.0, -2.0], [0.5, 3.0]]))
        opt = lib.optim.SGD([w], lr=0.1)
        scaler = scaler_cls("cpu", init_scale=2.0 ** 10, growth_interval=2)
        scales, weights = [], []
        for k, factor in enumerate([1.0, 1.0, float("inf"), 1.0, 1.0, 1.0]):
            opt.zero_grad()
            loss = (w * w).sum() * factor
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
            weights.append(w.detach().numpy().copy())
        return scales, weights, scaler.state_dict()
    ls, lw, lsd = run(loom, loom.amp.GradScaler)
    ts, tw, tsd = run(torch, torch.amp.GradScaler)
    assert ls == ts
    for a, b in zip(lw, tw):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert lsd == {k: tsd[k] for k in lsd}


def test_grad_scaler_errors():
    w = loom.nn.Parameter(loom.ones(2))
    opt = loom.optim.SGD([w], lr=0.1)
    s = loom.amp.GradScaler("cpu")
    s.scale(w.sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="already been called on this optimizer"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(ValueError, match="growth factor must be > 1.0"):
        loom.amp.GradScaler(growth_factor=1.0)
    off = loom.amp.GradScaler(enabled=False)
    t = loom.ones(1)
    assert off.scale(t) is t and off.get_scale() == 1.0 and off.state_dict() == {}


def test_gradients_take_each_inputs_dtype_under_autocast():
    """A lower-precision result added to a float32 one (a residual around an autocast linear):
    the float32 gradient reaching the bfloat16 branch is cast to bfloat16 on its way, as
    PyTorch's engine does, so the transformer layer trains under autocast."""
    loom.manual_seed(0)
    net = loom.nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
    x = loom.randn(2, 8, 32, requires_grad=True)
    with loom.autocast("cpu", dtype=loom.bfloat16):
        y = net(x)
    y.float().square().mean().backward()
    assert x.grad.dtype == loom.float32 and all(p.grad.dtype == loom.float32 for p in net.parameters())
    lin = loom.nn.Linear(4, 4)
    with loom.autocast("cpu", dtype=loom.bfloat16):
        h = lin(x[0, :3, :4])
        assert h.dtype == loom.bfloat16
        seen = []
        h.register_hook(lambda g: seen.append(g.dtype))
        (h + x[0, :3, :4]).sum().backward()
    assert seen == [loom.bfloat16]
    a, b = loom.randn(3, dtype=loom.float64, requires_grad=True), loom.randn(3, requires_grad=True)
    (a * b).sum().backward()
    assert (a.grad.dtype, b.grad.dtype) == (loom.float64, loom.float32)
