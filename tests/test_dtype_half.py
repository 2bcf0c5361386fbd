"""float16 and bfloat16: stored in 16 bits, computed in float32 and rounded once,
as PyTorch's CPU kernels do. Every generated op listing them is checked against
its own float32 result rounded (the machinery), and a set of ops, hand-written
kernels and training steps against PyTorch (the semantics)."""
import numpy as np
import pytest

import loom
from helpers import function_kwargs
from opinputs import MODEL, make_inputs

torch = pytest.importorskip("torch")

LOW = ("float16", "bfloat16")
GENERATED = [op for op in MODEL.ops if op.kind in ("pointwise", "reduction") and "float16" in op.dtypes
             and "ref" in op.test and not op.test.get("skip")]


def lt(name):
    return getattr(loom, name)


def tt(name):
    return getattr(torch, name)


def to_torch(x):
    return torch.from_numpy(x.float().numpy()).to(tt(x.dtype.name))


def to_loom(t):
    return loom.tensor(t.float().numpy()).to(lt(str(t.dtype).split(".")[1]))


def same(a, t, exact=True):
    assert a.dtype.name == str(t.dtype).split(".")[1], (a.dtype, t.dtype)
    got, want = a.detach().float().numpy(), t.detach().float().numpy()
    if exact:
        np.testing.assert_array_equal(got, want)
    else:
        # a few units in the last place of the tensor's largest value (sums in another order)
        scale = float(np.abs(want).max()) if want.size else 1.0
        eps = 2.0 ** -8 if a.dtype.name == "bfloat16" else 2.0 ** -11
        np.testing.assert_allclose(got, want, rtol=4 * eps, atol=4 * eps * scale + 1e-6)


@pytest.mark.parametrize("name", LOW)
def test_dtype_objects(name):
    d = lt(name)
    assert d.is_floating_point and d.itemsize == 2 and repr(d) == f"loom.{name}"
    assert loom.half is loom.float16
    f, tf = loom.finfo(d), torch.finfo(tt(name))
    assert (f.bits, f.eps, f.max, f.min, f.tiny, f.resolution) == (tf.bits, tf.eps, tf.max, tf.min, tf.tiny,
                                                                   tf.resolution)


@pytest.mark.parametrize("name", LOW)
def test_conversions_round_to_nearest_even(name):
    # ties, subnormals, overflow to inf, NaN, signed zero: every float32 bit pattern class
    rng = np.random.default_rng(0)
    bits = np.concatenate([rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32),
                           np.array([0x33000000, 0x33000001, 0x387fc000, 0x38800000, 0x477fefff, 0x477ff000,
                                     0x7f800000, 0xff800000, 0x7fc00000, 0x80000000, 0x3f808000, 0x3f818000,
                                     0x7f7fffff], dtype=np.uint32)])
    x = bits.view(np.float32)
    got = loom.from_numpy(x.copy()).to(lt(name)).float().numpy()
    want = torch.from_numpy(x.copy()).to(tt(name)).float().numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok].view(np.uint32), want[ok].view(np.uint32))
    for src in ("int64", "float64", "bool", "uint8"):   # every cast pair goes through the table
        v = torch.arange(-300, 300, 7).to(tt(src)) if src != "bool" else torch.tensor([True, False])
        if src == "uint8":
            v = torch.arange(0, 255, 3, dtype=torch.uint8)
        same(to_loom_exact(v).to(lt(name)), v.to(tt(name)))
        same(to_loom_exact(v).to(lt(name)).to(lt(src)) if src != "bool" else
             to_loom_exact(v).to(lt(name)).to(loom.bool_), v.to(tt(name)).to(tt(src) if src != "bool" else torch.bool))


def to_loom_exact(t):
    return loom.from_numpy(t.numpy().copy())


@pytest.mark.parametrize("name", LOW)
@pytest.mark.parametrize("op", GENERATED, ids=lambda op: op.schema.full_name)
def test_generated_op_rounds_its_float32_result(op, name):
    made = make_inputs(op, "float32", "contiguous")
    if made is None:
        pytest.skip("no contiguous layout for this op")
    low = {k: (v.to(lt(name)) if isinstance(v, loom.Tensor) and v.dtype == loom.float32 else v)
           for k, v in made[1].items()}
    # the reference: the same 16-bit values as float32, the op in float32, rounded once
    as32 = {k: (v.float() if isinstance(v, loom.Tensor) and v.dtype == lt(name) else v) for k, v in low.items()}
    args = low
    fn = getattr(loom, op.name) if "function" in op.variants else None
    if fn is None or op.schema.overload:
        pytest.skip("method-only or overloaded: covered through its function form elsewhere")
    got, want = fn(**function_kwargs(args)), fn(**function_kwargs(as32))
    if want.dtype == loom.float32:
        assert got.dtype == lt(name)
        want = want.to(lt(name))
    else:
        assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.float().numpy() if got.dtype.is_floating_point else got.numpy(),
                                  want.float().numpy() if want.dtype.is_floating_point else want.numpy())



@pytest.mark.parametrize("name", LOW)
def test_exp_of_every_16_bit_value_is_its_float32_result_rounded(name):
    # the 16-bit loops convert blocks with vector instructions and take exp's short form where a
    # block allows: every bit pattern, against the float32 op on the same values rounded once
    bits = torch.arange(-2 ** 15, 2 ** 15, dtype=torch.int32).to(torch.int16)
    x = to_loom(bits.view(tt(name)))
    got, want = x.exp(), x.float().exp().to(lt(name))
    g, w = got.float().numpy(), want.float().numpy()
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    ok = ~np.isnan(w)
    np.testing.assert_array_equal(g[ok].view(np.uint32), w[ok].view(np.uint32))

@pytest.mark.parametrize("name", LOW)
def test_pointwise_and_promotion_match_torch(name):
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(5, 7, generator=g).to(tt(name)), torch.randn(7, generator=g).to(tt(name))
    la, lb = to_loom(a), to_loom(b)
    for f in (lambda x, y: x + y, lambda x, y: x * y - 3, lambda x, y: x / y, lambda x, y: (x * 2.5).exp(),
              lambda x, y: x.tanh() + y.sigmoid(), lambda x, y: x.clamp(-0.5, 0.5), lambda x, y: x > y,
              lambda x, y: x.pow(2), lambda x, y: x.sqrt().nan_to_num(0.0), lambda x, y: x.abs().log1p()):
        r, tr = f(la, lb), f(a, b)
        assert r.dtype.name == str(tr.dtype).split(".")[1]
        np.testing.assert_array_equal(r.float().numpy() if r.dtype.is_floating_point else r.numpy(),
                                      tr.float().numpy() if tr.dtype.is_floating_point else tr.numpy())
    # promotion: a float32 tensor wins, the two 16-bit formats meet at float32, ints give way
    assert (la + loom.ones(7)).dtype == loom.float32
    assert (loom.ones(2, dtype=loom.float16) + loom.ones(2, dtype=loom.bfloat16)).dtype == loom.float32
    assert (la + loom.ones(7, dtype=loom.int64)).dtype == lt(name)
    assert (la + 1e10).dtype == lt(name) and (la * 0.5).dtype == lt(name)
    with pytest.raises(RuntimeError, match="without overflow"):
        la.add(1, alpha=1e39)


@pytest.mark.parametrize("name", LOW)
def test_nan_to_num_and_clamp_bounds_are_the_dtypes_own(name):
    # the defaults are the 16-bit format's largest finite values (65504 for float16), as PyTorch's
    inf, nan = float("inf"), float("nan")
    x = torch.tensor([inf, -inf, nan, 1.0, -60000.0, 0.25] * 100).to(tt(name))
    lx = to_loom(x)
    for f in (lambda t: t.nan_to_num(), lambda t: t.nan_to_num(1.0, 2.0, -3.0), lambda t: t.nan_to_num(posinf=5.0),
              lambda t: t.clamp(min=0.5), lambda t: t.clamp(max=-0.5), lambda t: t.clamp(-1, 1),
              lambda t: t[::3].nan_to_num(), lambda t: t[::3].clamp(-1, 1)):
        np.testing.assert_array_equal(f(lx).float().numpy(), f(x).float().numpy())


@pytest.mark.parametrize("name", LOW)
def test_strided_loops_are_the_contiguous_loops(name):
    # strided 16-bit loops gather blocks (of 256) and convert them as blocks: the same bits as the
    # contiguous loop on the same values, across block edges and for every kind of result
    g = torch.Generator().manual_seed(3)
    a, b = torch.randn(40, 700, generator=g).to(tt(name)), torch.randn(700, 40, generator=g).to(tt(name))
    la, lb = to_loom(a), to_loom(b)
    views = [(la[:, ::3], lb.t()[:, ::3]), (la.t(), lb), (la[::2, 1::2], la[1::2, ::2])]
    for x, y in views:
        xc, yc = x.contiguous(), y.contiguous()
        for f in (lambda p, q: p.exp(), lambda p, q: p.erf(), lambda p, q: p + q, lambda p, q: p < q,
                  lambda p, q: p.clamp(-0.5, 0.5), lambda p, q: p.atan2(q), lambda p, q: p.sigmoid() * q):
            r, rc = f(x, y), f(xc, yc)
            assert r.dtype == rc.dtype
            np.testing.assert_array_equal(r.float().numpy() if r.dtype.is_floating_point else r.numpy(),
                                          rc.float().numpy() if rc.dtype.is_floating_point else rc.numpy())


@pytest.mark.parametrize("name", LOW)
def test_reductions_accumulate_in_float32(name):
    x = torch.full((4096,), 1.0, dtype=tt(name))   # float16 running sums stall at 2048; float32 does not
    lx = to_loom(x)
    same(lx.sum(), x.sum())
    same(lx.mean(), x.mean())
    g = torch.Generator().manual_seed(2)
    y = torch.randn(6, 50, generator=g).to(tt(name))
    ly = to_loom(y)
    for f in (lambda v: v.sum(1), lambda v: v.mean(0), lambda v: v.amax(1), lambda v: v.prod(0),
              lambda v: v.std(1), lambda v: v.norm()):
        same(f(ly), f(y), exact=False)
    assert ly.sum(dtype=loom.float32).dtype == loom.float32


@pytest.mark.parametrize("name", LOW)
def test_hand_written_kernels(name):
    g = torch.Generator().manual_seed(3)
    x, w = torch.randn(2, 3, 8, 8, generator=g).to(tt(name)), torch.randn(4, 3, 3, 3, generator=g).to(tt(name))
    a, b = torch.randn(5, 16, generator=g).to(tt(name)), torch.randn(16, 6, generator=g).to(tt(name))
    lx, lw, la, lb = map(to_loom, (x, w, a, b))
    same(la @ lb, a @ b, exact=False)
    same(loom.nn.functional.conv2d(lx, lw, padding=1), torch.nn.functional.conv2d(x, w, padding=1), exact=False)
    same(la.softmax(-1), a.softmax(-1), exact=False)
    same(loom.cat([la, la]), torch.cat([a, a]))
    same(la.index_select(0, loom.tensor([4, 0])), a.index_select(0, torch.tensor([4, 0])))
    v, i = la.sort(1)
    tv, ti = a.sort(dim=1, stable=True)
    same(v, tv)
    same(la.max(1)[0], a.max(1)[0])
    same(la.cumsum(1), a.cumsum(1), exact=False)
    same(loom.zeros(3, dtype=lt(name)), torch.zeros(3, dtype=tt(name)))
    same(loom.full((2,), 0.1, dtype=lt(name)), torch.full((2,), 0.1, dtype=tt(name)))
    same(loom.arange(0, 1, 0.25, dtype=lt(name)), torch.arange(0, 1, 0.25, dtype=tt(name)))
    t = la.clone()
    t[1:3] = 2.5
    tt_ = a.clone()
    tt_[1:3] = 2.5
    same(t, tt_)
    t.index_add_(0, loom.tensor([0, 0]), la[:2])
    tt_.index_add_(0, torch.tensor([0, 0]), a[:2])
    same(t, tt_, exact=False)
    assert la[0, 0].item() == a[0, 0].item()
    assert la.tolist() == a.tolist()


@pytest.mark.parametrize("name", LOW)
def test_training_step_matches_torch(name):
    """A Linear-ReLU-Linear step in the 16-bit dtype: forward, loss, gradients and the SGD update."""
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    lm = loom.nn.Sequential(loom.nn.Linear(8, 16), loom.nn.ReLU(), loom.nn.Linear(16, 3))
    lm.load_state_dict({k: loom.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    tm, lm = (tm.half(), lm.half()) if name == "float16" else (tm.bfloat16(), lm.bfloat16())
    assert all(p.dtype == lt(name) for p in lm.parameters())
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(4)).to(tt(name))
    y = torch.tensor([0, 2, 1, 0])
    tl = torch.nn.functional.cross_entropy(tm(x), y)
    ll = loom.nn.functional.cross_entropy(lm(to_loom(x)), loom.tensor([0, 2, 1, 0]))
    same(ll, tl, exact=False)
    tl.backward()
    ll.backward()
    for (n, tp), lp in zip(tm.named_parameters(), lm.parameters()):
        assert lp.grad.dtype == lt(name), n
        same(lp.grad, tp.grad, exact=False)
    loom.optim.SGD(lm.parameters(), lr=0.1).step()
    torch.optim.SGD(tm.parameters(), lr=0.1).step()
    for tp, lp in zip(tm.parameters(), lm.parameters()):
        same(lp.detach(), tp.detach(), exact=False)


def test_numpy_and_torch_exchange():
    h = np.array([1.5, -2.25, 65504.0], dtype=np.float16)
    t = loom.from_numpy(h)
    assert t.dtype == loom.float16
    t[0] = 3.0
    assert h[0] == 3.0   # zero-copy both ways
    assert t.numpy().dtype == np.float16
    assert loom.tensor([1.0, 2.0], dtype=loom.float16).numpy().tolist() == [1.0, 2.0]
    b = loom.tensor([1.5, 2.7], dtype=loom.bfloat16)
    assert repr(b) == repr(torch.tensor([1.5, 2.7], dtype=torch.bfloat16)).replace("torch", "loom")
    small = np.array([3.0, 2.25, 0.1], dtype=np.float16)
    assert repr(loom.from_numpy(small)) == repr(torch.from_numpy(small)).replace("torch", "loom")
    assert torch.from_dlpack(t).dtype == torch.float16
    # bfloat16 both ways through DLPack (NumPy has no such dtype: loom reads and writes the capsule), shared
    tb = torch.from_dlpack(b)
    assert tb.dtype == torch.bfloat16 and tb.tolist() == b.tolist()
    tb[0] = 7.0
    assert b[0].item() == 7.0
    src = torch.tensor([0.5, 1.25], dtype=torch.bfloat16)
    lb = loom.from_dlpack(src)
    assert lb.dtype == loom.bfloat16 and lb.tolist() == [0.5, 1.25]
    lb[1] = 9.0
    assert src[1].item() == 9.0


@pytest.mark.parametrize("name", LOW)
def test_save_load_keeps_16_bit_dtypes(name, tmp_path):
    x = loom.tensor([[1.5, -0.1], [3e4, 1e-3]], dtype=lt(name))
    loom.save({"x": x}, tmp_path / "t.loom")
    y = loom.load(tmp_path / "t.loom")["x"]
    assert y.dtype == lt(name)
    np.testing.assert_array_equal(y.float().numpy(), x.float().numpy())


def test_bfloat16_numpy_needs_ml_dtypes(monkeypatch):
    """numpy() of bfloat16 is ml_dtypes.bfloat16, zero-copy both ways, where ml_dtypes is installed; without
    it, torch's TypeError, naming the package."""
    b = loom.tensor([1.5, -2.25, 3.0], dtype=loom.bfloat16)
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is not installed (it is in loom[test])")
    a = b.numpy()
    assert a.dtype == ml_dtypes.bfloat16 and a.astype(np.float32).tolist() == [1.5, -2.25, 3.0]
    a[0] = 5.0
    assert b[0].item() == 5.0
    back = loom.from_numpy(a)
    assert back.dtype == loom.bfloat16 and back.tolist() == b.tolist()
    back[1] = 0.5
    assert float(a[1]) == 0.5
    assert loom.tensor(np.array([1, 2], dtype=ml_dtypes.bfloat16)).dtype == loom.bfloat16
    monkeypatch.setitem(__import__("sys").modules, "ml_dtypes", None)   # as if not installed
    with pytest.raises(TypeError, match="Got unsupported ScalarType BFloat16.*pip install ml_dtypes"):
        b.numpy()
