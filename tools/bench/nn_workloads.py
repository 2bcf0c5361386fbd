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


# ---- issue 17: the official MNIST CNN and DCGAN (pytorch/examples), one training step each

def _mnist_cnn(nn):
    """pytorch/examples mnist's Net, as an nn.Sequential (log_softmax as a module)."""
    return nn.Sequential(nn.Conv2d(1, 32, 3, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Dropout(0.25), nn.Flatten(), nn.Linear(9216, 128), nn.ReLU(), nn.Dropout(0.5),
                         nn.Linear(128, 10), nn.LogSoftmax(dim=1))


def _mnist_data(batches=4, batch=64, seed=1):
    """Synthetic MNIST-shaped batches (normalised 28x28 noise, random labels): the step's cost does not
    depend on the pixels, and the benchmark must not download."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((batch, 1, 28, 28)).astype(np.float32),
             rng.integers(0, 10, batch).astype(np.int64)) for _ in range(batches)]


def mnist_trainer(mod, batch=64):
    """One Adadelta(lr=1.0) step of the example per call; returns (step, loss of the first batch in eval
    mode). The reference loss is taken without dropout, whose random masks differ between libraries."""
    model = _mnist_cnn(mod.nn)
    _same_weights(mod, model)
    opt = mod.optim.Adadelta(model.parameters(), lr=1.0)
    F = mod.nn.functional
    batches = [(mod.from_numpy(x), mod.from_numpy(y)) for x, y in _mnist_data(batch=batch)]
    model.eval()
    with mod.no_grad():
        first = F.nll_loss(model(batches[0][0]), batches[0][1])
    model.train()
    state = {"i": 0}

    def step():
        xb, yb = batches[state["i"] % len(batches)]
        state["i"] += 1
        opt.zero_grad()
        loss = F.nll_loss(model(xb), yb)
        loss.backward()
        opt.step()
        return loss
    return step, first


# DCGAN at 32x32 feature maps (ngf = ndf = 32) on 64x64 images, batch 16: the example's architecture
# with half its default widths and a quarter of its batch, so one step takes tens of milliseconds on
# two cores instead of seconds; the layer shapes keep the example's 4x4 kernels, strides and padding.
DCGAN_NZ, DCGAN_NGF, DCGAN_NDF, DCGAN_BATCH = 100, 32, 32, 16


def _dcgan_g(nn, nz=DCGAN_NZ, ngf=DCGAN_NGF):
    return nn.Sequential(
        nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
        nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
        nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())


def _dcgan_d(nn, ndf=DCGAN_NDF):
    return nn.Sequential(
        nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
        nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())


def _dcgan_init(mod, model, seed):
    """The example's weights_init (conv N(0, 0.02), batch norm weight N(1, 0.02) and bias 0), drawn by NumPy."""
    rng = np.random.default_rng(seed)
    with mod.no_grad():
        for m in model.modules():
            name = type(m).__name__
            if "Conv" in name:
                m.weight.copy_(mod.from_numpy((rng.standard_normal(tuple(m.weight.shape)) * 0.02).astype(np.float32)))
            elif "BatchNorm" in name:
                m.weight.copy_(mod.from_numpy((1 + rng.standard_normal(tuple(m.weight.shape)) * 0.02).astype(np.float32)))
                m.bias.zero_()


def dcgan_trainer(mod, batch=DCGAN_BATCH):
    """One iteration of the example's loop per call (D on real then on G's fake, D's Adam step; G through
    D, G's Adam step); returns (step, errD + errG of the first iteration)."""
    G, D = _dcgan_g(mod.nn), _dcgan_d(mod.nn)
    _dcgan_init(mod, G, 2)
    _dcgan_init(mod, D, 3)
    optD = mod.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = mod.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    rng = np.random.default_rng(4)
    data = [(mod.from_numpy(rng.uniform(-1, 1, (batch, 3, 64, 64)).astype(np.float32)),
             mod.from_numpy(rng.standard_normal((batch, DCGAN_NZ, 1, 1)).astype(np.float32))) for _ in range(4)]
    ones, zeros = mod.ones(batch), mod.zeros(batch)
    bce = mod.nn.BCELoss()
    state = {"i": 0}

    def step():
        real, noise = data[state["i"] % len(data)]
        state["i"] += 1
        D.zero_grad()
        err_real = bce(D(real).view(-1), ones)
        err_real.backward()
        fake = G(noise)
        err_fake = bce(D(fake.detach()).view(-1), zeros)
        err_fake.backward()
        optD.step()
        G.zero_grad()
        err_g = bce(D(fake).view(-1), ones)
        err_g.backward()
        optG.step()
        return err_real + err_fake + err_g
    first = step().detach()
    return step, first


def _made(trainer):
    def setup(lib, mod):
        if lib == "numpy":
            return None
        step, first = trainer(mod)
        return ("step()", {"step": step}), np.asarray(first.detach())
    return setup


workload("MNIST CNN (pytorch/examples) train step, batch 64", "us", None, ("vs_torch", 1.0))(_made(mnist_trainer))
workload(f"DCGAN ngf=ndf={DCGAN_NGF} 64x64 train step, batch {DCGAN_BATCH}", "us", None,
         ("vs_torch", 1.0))(_made(dcgan_trainer))


def _layer(lib, mod, make_args, fn, grad_shape):
    rng = np.random.default_rng(0)
    args = make_args(rng, mod)
    g = mod.from_numpy(rng.standard_normal(grad_shape).astype(np.float32))

    def step():
        for a in args:
            if a is not None and a.requires_grad:
                a.grad = None
        fn(mod, *args).backward(g)
    step()
    return ("step()", {"step": step}), np.asarray(args[1].grad.detach()).ravel()[:64]


# DCGAN's generator layers at the workload's batch and widths: (C_in, C_out, input side, stride, padding)
_CT_SHAPES = [(DCGAN_NGF * 8, DCGAN_NGF * 4, 4, 2, 1), (DCGAN_NGF * 4, DCGAN_NGF * 2, 8, 2, 1),
              (DCGAN_NGF * 2, DCGAN_NGF, 16, 2, 1), (DCGAN_NGF, 3, 32, 2, 1)]


def _conv_t_row(ci, co, side, s, p, n=DCGAN_BATCH):
    out = (side - 1) * s - 2 * p + 4

    def setup(lib, mod):
        if lib == "numpy":
            return None

        def make(rng, mod):
            x = mod.from_numpy(rng.standard_normal((n, ci, side, side)).astype(np.float32)).requires_grad_()
            w = mod.from_numpy((rng.standard_normal((ci, co, 4, 4)) * 0.02).astype(np.float32)).requires_grad_()
            return x, w
        return _layer(lib, mod, make, lambda mod, x, w: mod.nn.functional.conv_transpose2d(x, w, None, s, p),
                      (n, co, out, out))
    flops = 3 * 2 * n * ci * co * side * side * 16
    workload(f"conv_transpose2d fwd+bwd {n}x{ci}x{side}x{side}->{co}, 4x4 s{s} p{p}", "GFLOP/s", flops,
             ("vs_torch", 1.0))(setup)


def _bn_row(c, side, n=DCGAN_BATCH):
    def setup(lib, mod):
        if lib == "numpy":
            return None

        def make(rng, mod):
            x = mod.from_numpy(rng.standard_normal((n, c, side, side)).astype(np.float32)).requires_grad_()
            w = mod.from_numpy((1 + 0.1 * rng.standard_normal(c)).astype(np.float32)).requires_grad_()
            b = mod.from_numpy((0.1 * rng.standard_normal(c)).astype(np.float32)).requires_grad_()
            return x, w, b, mod.zeros(c), mod.ones(c)
        return _layer(lib, mod, make,
                      lambda mod, x, w, b, rm, rv: mod.nn.functional.batch_norm(x, rm, rv, w, b, True), (n, c, side, side))
    workload(f"batch_norm train fwd+bwd {n}x{c}x{side}x{side}", "us", None, ("vs_torch", 1.0))(setup)


for _shape in _CT_SHAPES:
    _conv_t_row(*_shape)
for _c, _side in ((DCGAN_NGF * 4, 8), (DCGAN_NGF * 2, 16), (DCGAN_NGF, 32)):
    _bn_row(_c, _side)
