"""Small programs written the way PyTorch users write them, run with loom and with PyTorch from the same
initial weights: an LSTM language model, a Transformer-encoder classifier, a GPT with causal attention,
a policy-gradient agent with distributions.Categorical, a VAE, a DCGAN, an LBFGS fit, a graph
convolution network over a sparse adjacency and a sparse-gradient embedding model with SparseAdam.
Each trains a few steps; the losses must agree."""
import numpy as np
import pytest
torch = pytest.importorskip("torch", reason="PyTorch is not installed: these tests compare with it")

import loom

rng = np.random.default_rng(0)


def lstm_lm(mod):
    nn = mod.nn

    class LM(nn.Module):
        def __init__(self, vocab=50, hidden=32):
            super().__init__()
            self.encoder = nn.Embedding(vocab, hidden)
            self.rnn = nn.LSTM(hidden, hidden, 2, dropout=0.0)
            self.decoder = nn.Linear(hidden, vocab)

        def forward(self, x, h=None):
            out, h = self.rnn(self.encoder(x), h)
            return self.decoder(out), h
    return LM()


def encoder_classifier(mod):
    nn = mod.nn

    class Classifier(nn.Module):
        def __init__(self, vocab=40, d=32, classes=3):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            layer = nn.TransformerEncoderLayer(d, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, 2)
            self.head = nn.Linear(d, classes)

        def forward(self, x, pad):
            h = self.encoder(self.embed(x), src_key_padding_mask=pad)
            keep = (~pad).unsqueeze(-1).to(h.dtype)
            return self.head((h * keep).sum(1) / keep.sum(1))
    return Classifier()


def gpt(mod, vocab=30, block=16, d=32, heads=4, layers=2):
    nn, F = mod.nn, mod.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = (t.reshape(B, T, heads, C // heads).transpose(1, 2) for t in self.qkv(self.ln1(x)).split(C, 2))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(block, d)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(mod.arange(idx.shape[1]))
            return self.head(self.ln(self.blocks(x)))
    return GPT()


def twins(build):
    torch.manual_seed(0)
    tm = build(torch)
    lm = build(loom)
    lm.load_state_dict({k: v.detach().numpy() for k, v in tm.state_dict().items()})
    return lm, tm


def run_both(build, make_opt, step_fn, steps=3):
    lm, tm = twins(build)
    losses = {}
    for lib, m in ((loom, lm), (torch, tm)):
        opt = make_opt(lib, m)
        losses[lib.__name__] = [step_fn(lib, m, opt, i) for i in range(steps)]
    np.testing.assert_allclose(losses["loom"], losses["torch"], rtol=2e-4, atol=2e-5)
    return lm, tm


def test_lstm_language_model_trains_as_torch():
    data = rng.integers(0, 50, (12, 4, 2))
    state = {}

    def step(lib, m, opt, i):
        x, y = lib.tensor(data[:, :, 0]), lib.tensor(data[:, :, 1])
        out, h = m(x, state.get((lib.__name__, i - 1)))
        state[lib.__name__, i] = tuple(t.detach() for t in h)
        loss = lib.nn.functional.cross_entropy(out.reshape(-1, 50), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(m.parameters(), 0.25)
        opt.step()
        return loss.item()
    run_both(lstm_lm, lambda lib, m: lib.optim.SGD(m.parameters(), lr=1.0), step)


def test_transformer_encoder_classifier_trains_as_torch():
    x = rng.integers(0, 40, (5, 7))
    pad = np.zeros((5, 7), bool)
    pad[:, 5:] = True
    y = rng.integers(0, 3, 5)

    def step(lib, m, opt, i):
        loss = lib.nn.functional.cross_entropy(m(lib.tensor(x), lib.tensor(pad)), lib.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    lm, _ = run_both(encoder_classifier, lambda lib, m: lib.optim.Adam(m.parameters(), lr=1e-3), step)


def test_gpt_trains_as_torch_and_generates():
    x = rng.integers(0, 30, (4, 16))
    y = np.roll(x, -1, 1)

    def step(lib, m, opt, i):
        loss = lib.nn.functional.cross_entropy(m(lib.tensor(x)).reshape(-1, 30), lib.tensor(y).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    lm, _ = run_both(gpt, lambda lib, m: lib.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=0.1), step)
    idx = loom.zeros((2, 1), dtype=loom.int64)
    with loom.no_grad():
        for _ in range(10):
            probs = loom.nn.functional.softmax(lm(idx)[:, -1], -1)
            idx = loom.cat([idx, loom.multinomial(probs, 1)], 1)
    assert idx.shape == (2, 11) and int(idx.max()) < 30


def test_policy_gradient_agent_trains_as_torch():
    obs = rng.standard_normal((8, 4)).astype(np.float32)
    actions = rng.integers(0, 2, 8)
    returns = rng.standard_normal(8).astype(np.float32)

    def build(mod):
        return mod.nn.Sequential(mod.nn.Linear(4, 16), mod.nn.Tanh(), mod.nn.Linear(16, 2))

    def step(lib, m, opt, i):
        dists = loom.distributions if lib is loom else torch.distributions
        dist = dists.Categorical(logits=m(lib.tensor(obs)))
        loss = -(dist.log_prob(lib.tensor(actions)) * lib.tensor(returns)).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    run_both(build, lambda lib, m: lib.optim.Adam(m.parameters(), lr=1e-2), step, steps=4)


@pytest.mark.parametrize("cell", ["GRU", "RNN"])
def test_other_recurrent_models_train_as_torch(cell):
    x = rng.standard_normal((6, 3, 5)).astype(np.float32)
    y = rng.standard_normal((6, 3, 8)).astype(np.float32)

    def build(mod):
        return getattr(mod.nn, cell)(5, 4, num_layers=2, bidirectional=True)

    def step(lib, m, opt, i):
        out, _ = m(lib.tensor(x))
        loss = ((out - lib.tensor(y)) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    run_both(build, lambda lib, m: lib.optim.RMSprop(m.parameters(), lr=1e-2), step)


# ---------------------------------------------------------------- a VAE, a DCGAN and an LBFGS fit (everyday ops, part 3)

def _same_parameters(lm, tm, rtol=2e-4, atol=2e-5):
    got = dict(lm.named_parameters())
    for name, p in tm.named_parameters():
        np.testing.assert_allclose(got[name].detach().numpy(), p.detach().numpy(), rtol=rtol, atol=atol, err_msg=name)


def vae(mod, d=20, h=16, z=4):
    nn, F = mod.nn, mod.nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(d, h)
            self.fc21, self.fc22 = nn.Linear(h, z), nn.Linear(h, z)
            self.fc3, self.fc4 = nn.Linear(z, h), nn.Linear(h, d)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar):
            std = mod.exp(0.5 * logvar)
            eps = mod.randn_like(std)
            return mu + eps * std

        def decode(self, z):
            return mod.sigmoid(self.fc4(F.relu(self.fc3(z))))

        def forward(self, x):
            mu, logvar = self.encode(x.view(-1, d))
            return self.decode(self.reparameterize(mu, logvar)), mu, logvar
    return VAE()


def test_vae_trains_as_torch(monkeypatch):
    x = rng.random((8, 20)).astype(np.float32)
    calls = {}   # the k-th randn_like of either library draws the same standard-normal numbers

    def shared_randn_like(lib):
        real = lib.randn_like

        def randn_like(t):
            assert tuple(real(t).shape) == tuple(t.shape)   # the library's own randn_like still runs
            k = calls.get(lib.__name__, 0)
            calls[lib.__name__] = k + 1
            return lib.tensor(np.random.default_rng(100 + k).standard_normal(tuple(t.shape)).astype(np.float32))
        return randn_like
    for lib in (loom, torch):
        monkeypatch.setattr(lib, "randn_like", shared_randn_like(lib))

    def step(lib, m, opt, i):
        F = lib.nn.functional
        recon, mu, logvar = m(lib.tensor(x))
        bce = F.binary_cross_entropy(recon, lib.tensor(x).view(-1, 20), reduction="sum")
        kld = -0.5 * lib.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss = bce + kld
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    lm, tm = run_both(vae, lambda lib, m: lib.optim.Adam(m.parameters(), lr=1e-2), step, steps=5)
    assert calls == {"loom": 5, "torch": 5}
    _same_parameters(lm, tm)
    with loom.no_grad():   # sampling from the prior, as the example does
        assert tuple(lm.decode(loom.randn(3, 4)).shape) == (3, 20)


def dcgan(mod, nz=8, ngf=8, ndf=8):
    nn = mod.nn

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
                nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False), nn.Tanh())

        def forward(self, x):
            return self.main(x)

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.Conv2d(1, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())

        def forward(self, x):
            return self.main(x).view(-1, 1).squeeze(1)

    def weights_init(m):
        name = m.__class__.__name__
        if name.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif name.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    class GAN(nn.Module):
        def __init__(self):
            super().__init__()
            self.netG, self.netD = Generator(), Discriminator()
            self.netG.apply(weights_init)
            self.netD.apply(weights_init)
    return GAN()


def test_dcgan_trains_as_torch():
    b, nz = 6, 8
    real_images = np.tanh(rng.standard_normal((4, b, 1, 16, 16))).astype(np.float32)
    noises = rng.standard_normal((4, b, nz, 1, 1)).astype(np.float32)

    def make_opts(lib, m):
        return (lib.optim.Adam(m.netD.parameters(), lr=2e-4, betas=(0.5, 0.999)),
                lib.optim.Adam(m.netG.parameters(), lr=2e-4, betas=(0.5, 0.999)))

    def step(lib, m, opts, i):
        optimizerD, optimizerG = opts
        netG, netD, criterion = m.netG, m.netD, lib.nn.BCELoss()
        real_label, fake_label = 1, 0
        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real = lib.tensor(real_images[i])
        label = lib.full((b,), real_label, dtype=real.dtype)
        output = netD(real)
        errD_real = criterion(output, label)
        errD_real.backward()
        fake = netG(lib.tensor(noises[i]))
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        optimizerD.step()
        # (2) update G: maximize log(D(G(z)))
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake)
        errG = criterion(output, label)
        errG.backward()
        optimizerG.step()
        return [(errD_real + errD_fake).item(), errG.item(), output.mean().item()]
    lm, tm = run_both(dcgan, make_opts, step, steps=4)
    _same_parameters(lm, tm, rtol=1e-3, atol=1e-4)
    got, want = lm.state_dict(), tm.state_dict()
    for k in ("netG.main.1.running_mean", "netD.main.3.running_var", "netD.main.3.num_batches_tracked"):
        np.testing.assert_allclose(np.asarray(got[k]), want[k].numpy(), rtol=1e-4, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_logistic_regression_fits_as_torch(line_search_fn):
    # in float64, as such fits usually are: in float32 the last iterations, at the loss's rounding floor, take
    # their line-search decisions on rounding noise, and the two libraries' evaluation counts part there
    X = rng.standard_normal((40, 5))
    y = (X @ np.array([1.5, -2.0, 0.5, 0.0, 1.0]) + 0.3 * rng.standard_normal(40) > 0).astype(np.float64)
    evals = {}

    def build(mod):
        return mod.nn.Linear(5, 1).double()

    def make_opt(lib, m):
        return lib.optim.LBFGS(m.parameters(), lr=1 if line_search_fn else 0.5, max_iter=10, history_size=5,
                               line_search_fn=line_search_fn)

    def step(lib, m, opt, i):
        F = lib.nn.functional

        def closure():
            evals[lib.__name__] = evals.get(lib.__name__, 0) + 1
            opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(m(lib.tensor(X)).squeeze(1), lib.tensor(y))
            loss = loss + 1e-3 * m.weight.pow(2).sum()
            loss.backward()
            return loss
        return opt.step(closure).item()
    lm, tm = run_both(build, make_opt, step, steps=3)
    _same_parameters(lm, tm, rtol=1e-7, atol=1e-9)
    assert evals["loom"] == evals["torch"] > 10
    assert lm.weight.dtype == loom.float64


def gcn(mod, features=6, hidden=16, classes=3):
    """Kipf & Welling's two-layer GCN: relu(A X W1) then A H W2, A the normalised adjacency (sparse)."""
    nn, F = mod.nn, mod.nn.functional

    class GraphConv(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(mod.empty(n_in, n_out))
            self.bias = nn.Parameter(mod.zeros(n_out))
            nn.init.xavier_uniform_(self.weight)

        def forward(self, x, adj):
            return mod.sparse.mm(adj, x @ self.weight) + self.bias

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.gc1, self.gc2 = GraphConv(features, hidden), GraphConv(hidden, classes)

        def forward(self, x, adj):
            h = F.dropout(F.relu(self.gc1(x, adj)), 0.0, self.training)
            return F.log_softmax(self.gc2(h, adj), dim=1)
    return GCN()


def _normalised_adjacency(n, edges):
    """D^-1/2 (A + I) D^-1/2 of an undirected graph, as COO indices and values (NumPy)."""
    a = np.eye(n, dtype=np.float32)
    a[edges[:, 0], edges[:, 1]] = a[edges[:, 1], edges[:, 0]] = 1
    d = a.sum(1) ** -0.5
    a = d[:, None] * a * d[None, :]
    rows, cols = np.nonzero(a)
    return np.stack([rows, cols]), a[rows, cols]


def test_gcn_with_a_sparse_adjacency_trains_as_torch():
    n = 30
    edges = rng.integers(0, n, (60, 2))
    idx, vals = _normalised_adjacency(n, edges)
    x = rng.standard_normal((n, 6)).astype(np.float32)
    y = rng.integers(0, 3, n)
    train = np.arange(n) < 20

    def step(lib, m, opt, i):
        adj = lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(vals), (n, n), check_invariants=True)
        out = m(lib.tensor(x), adj)
        mask = lib.tensor(train)
        loss = lib.nn.functional.nll_loss(out[mask], lib.tensor(y)[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    lm, tm = run_both(gcn, lambda lib, m: lib.optim.Adam(m.parameters(), lr=0.01, weight_decay=5e-4), step, steps=5)
    for (name, p), q in zip(lm.named_parameters(), tm.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def bag_of_embeddings(mod, vocab=40, d=8, classes=4):
    nn = mod.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d, sparse=True, padding_idx=0)
            self.head = nn.Linear(d, classes)

        def forward(self, x):
            return self.head(self.embed(x).mean(1))
    return Model()


def test_sparse_embedding_with_sparse_adam_trains_as_torch():
    x = rng.integers(0, 40, (6, 5))
    x[:, -1] = 0   # padding: its row gets no gradient
    y = rng.integers(0, 4, 6)

    def make_opt(lib, m):   # PyTorch's recipe: SparseAdam for the sparse gradients, Adam for the rest
        return [lib.optim.SparseAdam(list(m.embed.parameters()), lr=0.05),
                lib.optim.Adam(list(m.head.parameters()), lr=0.05)]

    def step(lib, m, opts, i):
        loss = lib.nn.functional.cross_entropy(m(lib.tensor(x)), lib.tensor(y))
        for o in opts:
            o.zero_grad()
        loss.backward()
        assert m.embed.weight.grad.is_sparse
        for o in opts:
            o.step()
        return loss.item()
    lm, tm = run_both(bag_of_embeddings, make_opt, step, steps=4)
    np.testing.assert_allclose(lm.embed.weight.detach().numpy(), tm.embed.weight.detach().numpy(), rtol=1e-4,
                               atol=1e-5)
