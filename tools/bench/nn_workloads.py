"""Training workloads (issue 4): the digits MLP and CNN, and conv2d. loom and
PyTorch build the same model from the same NumPy weights, so the first step's
loss must agree; NumPy has no nn (its column stays empty)."""
import numpy as np

from workloads import workload


def _digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    return (d.images / 16.0).astype(np.float32)[:, None], d.target.astype(np.int64)


def _mlp(nn):
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def _cnn(nn):
    """The example's CNN without its dropout (whose random masks would differ between libraries)."""
    return nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))


def _same_weights(mod, model, seed=0):
    rng = np.random.default_rng(seed)
    with mod.no_grad():
        for p in model.parameters():
            p.copy_(mod.from_numpy((rng.standard_normal(tuple(p.shape)) * 0.1).astype(np.float32)))


def _trainer(mod, build, x, y, batch):
    """One Adam training step per call over successive batches; returns (step, first loss)."""
    model = build(mod.nn)
    _same_weights(mod, model)
    opt = mod.optim.Adam(model.parameters(), lr=1e-3)
    xs, ys = mod.from_numpy(x), mod.from_numpy(y)
    F = mod.nn.functional
    batches = [(xs[i:i + batch], ys[i:i + batch]) for i in range(0, len(y) - batch + 1, batch)]
    state = {"i": 0}

    def step():
        xb, yb = batches[state["i"] % len(batches)]
        state["i"] += 1
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    first = step().detach()
    return step, first, len(batches)


def _step_workload(build, batch):
    def setup(lib, mod):
        if lib == "numpy":
            return None
        x, y = _digits()
        step, first, _ = _trainer(mod, build, x, y, batch)
        return ("step()", {"step": step}), np.asarray(first.detach())
    return setup


def _epoch_workload(build, batch):
    def setup(lib, mod):
        if lib == "numpy":
            return None
        x, y = _digits()
        step, first, n = _trainer(mod, build, x, y, batch)

        def epoch():
            for _ in range(n):
                step()
        return ("epoch()", {"epoch": epoch}), np.asarray(first.detach())
    return setup


workload("digits MLP 64-128-128-10 train step, batch 64", "us", None, ("le", 200))(_step_workload(_mlp, 64))
workload("digits MLP train epoch (1797 digits), batch 256", "us", None, ("vs_torch", 1.0))(_epoch_workload(_mlp, 256))
workload("digits CNN train epoch (1797 digits), batch 64", "us", None, ("vs_torch", 1.0))(_epoch_workload(_cnn, 64))


@workload("conv2d fwd+bwd 32x64x32x32, 3x3 pad 1", "GFLOP/s", 3 * 2 * 32 * 64 * 32 * 32 * 64 * 9, ("vs_torch", 1.0))
def conv_fwd_bwd(lib, mod):
    if lib == "numpy":
        return None
    rng = np.random.default_rng(0)
    x = mod.from_numpy(rng.standard_normal((32, 64, 32, 32)).astype(np.float32)).requires_grad_()
    w = mod.from_numpy((rng.standard_normal((64, 64, 3, 3)) * 0.05).astype(np.float32)).requires_grad_()
    g = mod.from_numpy(rng.standard_normal((32, 64, 32, 32)).astype(np.float32))

    def step():
        x.grad = w.grad = None
        mod.nn.functional.conv2d(x, w, None, 1, 1).backward(g)
    step()
    return ("step()", {"step": step}), np.asarray(w.grad.detach()[0, 0])
