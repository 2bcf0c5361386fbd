"""The meta device: factories, conversions, printing, errors for data access, views, nn modules built
on meta and materialised with to_empty + reset_parameters, and a 10-billion-parameter model's
forward pass that leaves loom's allocator where it was (its speed is tools/bench/meta.py's)."""
import copy
import gc
import pickle

import pytest

import loom
import loom.nn as nn
import loom.nn.functional as F
from loom._C import ffi, lib


def _live():
    out = ffi.new("int64_t[4]")
    lib.lm_memory_stats(out)
    return list(out)[:3]   # live tensors, storages, bytes


def _meta_like(cpu):
    """(shape, dtype, strides) of a tensor, the triple a meta result must share with the CPU one."""
    return tuple(cpu.shape), cpu.dtype, cpu.stride()


@pytest.mark.parametrize("make", [
    lambda **kw: loom.empty(2, 3, **kw), lambda **kw: loom.zeros(2, 3, **kw), lambda **kw: loom.ones(4, **kw),
    lambda **kw: loom.full((2, 2), 7, **kw), lambda **kw: loom.full((2,), 1.5, **kw),
    lambda **kw: loom.rand(3, 1, **kw), lambda **kw: loom.randn(5, **kw), lambda **kw: loom.randint(0, 9, (2, 4), **kw),
    lambda **kw: loom.arange(10, **kw), lambda **kw: loom.arange(0, 1, 0.25, **kw), lambda **kw: loom.eye(3, 4, **kw),
    lambda **kw: loom.linspace(0, 1, 7, **kw), lambda **kw: loom.randperm(6, **kw),
    lambda **kw: loom.empty(2, 3, dtype=loom.int32, **kw), lambda **kw: loom.zeros(2, dtype=loom.bfloat16, **kw),
])
def test_factories_match_cpu(make):
    make(device="meta")   # the first call may cache its dtype proxy
    gc.collect()
    gc.disable()   # so no other test's garbage is freed between the two counts
    try:
        before = _live()
        m = make(device="meta")
        after = _live()
    finally:
        gc.enable()
    assert after == before   # nothing allocated
    assert m.is_meta and m.device.type == "meta" and m.device == loom.device("meta")
    assert (tuple(m.shape), m.dtype, m.stride()) == _meta_like(make())


def test_like_factories_and_requires_grad():
    x = loom.empty(2, 3, device="meta", dtype=loom.float64)
    for f in (loom.empty_like, loom.zeros_like, loom.ones_like, loom.rand_like, loom.randn_like):
        r = f(x)
        assert r.is_meta and r.shape == (2, 3) and r.dtype == loom.float64
    assert loom.full_like(x, 3).is_meta
    assert loom.zeros(2, device="meta", requires_grad=True).requires_grad
    w = loom.empty(3, 3, device="meta").requires_grad_()
    assert (w @ w).requires_grad and not (w @ w).detach().requires_grad
    with loom.no_grad():
        assert not (w @ w).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        loom.empty(2, dtype=loom.int64, device="meta").requires_grad_()


def test_to_meta_keeps_metadata_and_no_way_back():
    x = loom.randn(4, 5).t()
    m = x.to("meta")
    assert (tuple(m.shape), m.dtype, m.stride()) == _meta_like(x) and m.is_meta
    assert x.to(loom.device("meta"), loom.float64).dtype == loom.float64
    assert m.to("meta") is m
    assert not x.is_meta and x.device.type == "cpu"
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.to("cpu")
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        m.cpu()
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        x.copy_(m)


def test_printing_like_pytorch():
    assert repr(loom.empty(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(loom.empty(3, dtype=loom.int64, device="meta")) == \
        "tensor(..., device='meta', size=(3,), dtype=loom.int64)"
    assert repr(loom.empty((), device="meta", requires_grad=True)) == \
        "tensor(..., device='meta', size=(), requires_grad=True)"
    assert str(loom.device("meta")) == "meta" and repr(loom.device("meta")) == "device(type='meta')"


def test_data_access_raises():
    m = loom.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        m[0, 0].item()
    with pytest.raises(NotImplementedError, match="no data"):
        m.tolist()
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        m.numpy()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(m)
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        float(m[0, 0])


def test_no_rule_names_the_op():
    m = loom.empty(4, device="meta")
    with pytest.raises(NotImplementedError, match="Could not run 'loom.nonzero' with arguments from the 'Meta' backend"):
        loom.nonzero(m)


def test_mixing_devices_refused_but_cpu_scalars_taken():
    m = loom.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        m + loom.ones(2, 3)
    r = m * loom.tensor(2.0)
    assert r.is_meta and r.shape == (2, 3)
    assert (m + 1).is_meta and (m > 0).dtype == loom.bool


def test_views_share_metadata_rules_with_cpu():
    cpu = loom.empty(2, 3, 4)
    m = cpu.to("meta")
    cases = [lambda t: t[1], lambda t: t[:, 1:, ::2], lambda t: t[..., None], lambda t: t.transpose(0, 2),
             lambda t: t.permute(2, 0, 1).reshape(4, 6), lambda t: t.view(6, 4), lambda t: t.unsqueeze(1),
             lambda t: t.expand(5, 2, 3, 4), lambda t: t.narrow(2, 1, 2), lambda t: t.flatten(1),
             lambda t: t.transpose(0, 1).contiguous(), lambda t: t.diagonal(0, 1, 2), lambda t: t.unfold(2, 2, 1),
             lambda t: t.mT, lambda t: t.split(2, dim=2)[1], lambda t: t.chunk(3, 1)[2], lambda t: t.select(1, 2)]
    for f in cases:
        c, r = f(cpu), f(m)
        assert (tuple(r.shape), r.dtype, r.stride(), r.storage_offset()) == \
            (tuple(c.shape), c.dtype, c.stride(), c.storage_offset())
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        m.transpose(0, 2).view(24)


def test_inplace_and_out():
    m = loom.empty(2, 3, device="meta")
    assert m.add_(1) is m and m.mul_(loom.empty(3, device="meta")) is m
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        m.add_(loom.empty(4, 2, 3, device="meta"))
    out = loom.empty(0, device="meta")
    assert loom.add(m, m, out=out) is out and out.shape == (2, 3)
    m[0] = 3.0   # a write to a view: nothing to write, no error


def test_model_on_meta_materialised_with_to_empty():
    loom.manual_seed(0)
    net = nn.Sequential(nn.Linear(4, 8, device="meta"), nn.ReLU(), nn.LayerNorm(8, device="meta"),
                        nn.Linear(8, 3, device="meta"))
    for p in net.parameters():
        assert p.is_meta and isinstance(p, nn.Parameter) and p.requires_grad
    assert "device='meta'" in repr(net[0].weight)
    y = net(loom.empty(5, 4, device="meta"))
    assert y.is_meta and y.shape == (5, 3) and y.requires_grad
    before = _live()
    net.to_empty(device="cpu")
    assert _live()[0] > before[0]   # now it has memory
    for m in net.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    for p in net.parameters():
        assert not p.is_meta and p.device.type == "cpu" and isinstance(p, nn.Parameter) and p.requires_grad
    w = net[0].weight
    assert float(w.abs().max()) <= 0.5 + 1e-6 and float(w.abs().max()) > 0   # kaiming bound 1/sqrt(4), drawn
    assert bool((net[2].weight == 1).all()) and bool((net[2].bias == 0).all())
    out = net(loom.randn(5, 4))
    out.sum().backward()
    assert net[0].weight.grad is not None and net[0].weight.grad.shape == (8, 4)
    net.to("meta")
    assert net[0].weight.is_meta


def test_conv_and_attention_modules_on_meta():
    conv = nn.Conv2d(3, 16, 3, padding=1, stride=2, device="meta")
    x = loom.empty(2, 3, 32, 32, device="meta")
    cpu = nn.Conv2d(3, 16, 3, padding=1, stride=2)(loom.empty(2, 3, 32, 32))
    y = F.max_pool2d(F.relu(conv(x)), 2)
    assert y.shape == F.max_pool2d(cpu, 2).shape
    assert F.adaptive_avg_pool2d(y, 1).flatten(1).shape == (2, 16)
    layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, device="meta")
    src = loom.empty(2, 10, 64, device="meta")
    assert layer(src).shape == (2, 10, 64)
    logits = loom.empty(6, 5, device="meta")
    target = loom.empty(6, dtype=loom.int64, device="meta")
    assert F.cross_entropy(logits, target).shape == ()
    assert F.cross_entropy(logits, target, reduction="none").shape == (6,)
    assert F.softmax(logits, -1).shape == (6, 5) and F.log_softmax(logits, 1).dtype == logits.dtype
    emb = nn.Embedding(100, 16, device="meta")
    assert emb(loom.empty(3, 7, dtype=loom.int64, device="meta")).shape == (3, 7, 16)
    assert loom.cat([src, src], 1).shape == (2, 20, 64) and loom.stack([src, src]).shape == (2, 2, 10, 64)


def test_pickle_and_deepcopy():
    m = loom.empty(2, 3, device="meta", dtype=loom.float16)
    r = pickle.loads(pickle.dumps(m))
    assert r.is_meta and r.shape == (2, 3) and r.dtype == loom.float16

    lin = nn.Linear(2, 2, device="meta")
    lin2 = copy.deepcopy(lin)
    assert lin2.weight.is_meta and lin2.weight is not lin.weight and isinstance(lin2.weight, nn.Parameter)


class _Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d, device="meta"), nn.LayerNorm(d, device="meta")
        self.qkv, self.proj = nn.Linear(d, 3 * d, device="meta"), nn.Linear(d, d, device="meta")
        self.fc, self.out = nn.Linear(d, 4 * d, device="meta"), nn.Linear(4 * d, d, device="meta")

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
        q, k, v = (t.view(B, T, self.heads, C // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).contiguous().view(B, T, C)
        x = x + F.dropout(self.proj(y), 0.1)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


def test_ten_billion_parameter_forward_allocates_nothing():
    d, layers, vocab = 8192, 12, 50257
    tok = nn.Embedding(vocab, d, device="meta")
    blocks = nn.ModuleList([_Block(d, 64) for _ in range(layers)])
    head = nn.Linear(d, vocab, bias=False, device="meta")
    n = sum(p.numel() for m in (tok, blocks, head) for p in m.parameters())
    assert n > 10_000_000_000

    def forward(idx):
        x = tok(idx) + loom.zeros(idx.shape[1], d, device="meta")
        for b in blocks:
            x = b(x)
        logits = head(F.layer_norm(x, (d,)))
        return logits, F.cross_entropy(logits.view(-1, vocab), idx.view(-1))
    idx = loom.randint(0, vocab, (4, 2048), device="meta")
    forward(idx)   # warm: Python numbers wrapped once into loom's scalar cache
    before = _live()
    logits, loss = forward(idx)
    assert _live() == before
    assert logits.shape == (4, 2048, vocab) and logits.is_meta and loss.shape == () and loss.requires_grad


def test_lapack_kernels_match_cpu():
    a = loom.randn(2, 4, 3)
    s = loom.randn(2, 3, 3)
    s = s @ s.mT + loom.eye(3)
    lu, piv, _ = loom._linalg_lu_factor_ex(s)
    calls = [lambda f: loom._linalg_lu_factor_ex(f(a)), lambda f: loom._linalg_cholesky_ex(f(s), False),
             lambda f: loom._linalg_lu_solve(f(lu), f(piv), f(loom.randn(2, 3, 5)), False),
             lambda f: (loom.linalg_householder_product(f(a), f(loom.randn(2, 3))),)]
    calls += [lambda f, cv=cv: loom._linalg_eigh(f(s), False, cv) for cv in (True, False)]
    calls += [lambda f, cv=cv: loom._linalg_eig(f(s), cv) for cv in (True, False)]
    calls += [lambda f, fm=fm, uv=uv: loom._linalg_svd(f(a), fm, uv) for fm in (True, False) for uv in (True, False)]
    for call in calls:
        cpu, meta = call(lambda t: t), call(lambda t: t.to("meta"))
        for c, m in zip(cpu, meta):
            assert m.is_meta and (tuple(m.shape), m.dtype) == (tuple(c.shape), c.dtype)


def test_channels_last_as_loom_cpu():
    x = loom.randn(2, 3, 4, 5).contiguous(memory_format=loom.channels_last)
    m = x.to("meta")
    assert m.stride() == x.stride() and m.is_contiguous(memory_format=loom.channels_last)
    for f in (lambda t: t + 1, lambda t: t.exp(), lambda t: t.contiguous(), lambda t: t.clone()):
        assert f(m).stride() == f(x).stride()
    conv = nn.Conv2d(3, 4, 3)
    cpu_stride = conv(x).stride()
    assert conv.to("meta")(m).stride() == cpu_stride
    assert loom.empty(2, 3, 4, 5, device="meta", memory_format=loom.channels_last).stride() == \
        loom.empty(2, 3, 4, 5, memory_format=loom.channels_last).stride()


def test_device_context_manager():
    x = loom.ones(3)
    with loom.device("meta") as d:
        assert d.type == "meta"
        lin = nn.Linear(3, 4)
        made = [loom.zeros(2), loom.randn(2, 2), loom.arange(5), loom.eye(2), loom.full((2,), 3)]
        assert loom.ones(1, device="cpu").device.type == "cpu"   # an explicit device wins
        assert loom.empty_like(x).device.type == "cpu"   # *_like follow their input
    assert lin.weight.is_meta and all(t.is_meta for t in made)
    assert loom.zeros(2).device.type == "cpu"   # the block is over


def test_advanced_indexing_matches_cpu():
    x = loom.empty(2, 3, 4, 5)
    m = x.to("meta")
    i, j = loom.tensor([0, 1]), loom.tensor([[0], [1]])
    keys = [lambda i, j: (i,), lambda i, j: (slice(None), i), lambda i, j: (slice(None), i, j),
            lambda i, j: (i, slice(None), j), lambda i, j: (Ellipsis, i), lambda i, j: (i, j)]
    for key in keys:
        c, r = x[key(i, j)], m[key(i.to("meta"), j.to("meta"))]
        assert (tuple(r.shape), r.stride()) == (tuple(c.shape), c.stride())
