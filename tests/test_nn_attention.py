"""scaled_dot_product_attention, MultiheadAttention and the Transformer modules against PyTorch:
the same weights in, the same outputs and gradients out."""
import numpy as np
import pytest
torch = pytest.importorskip("torch", reason="PyTorch is not installed: these tests compare with it")

import loom
from twin import as_pair, close, compare_grads, load_from_torch

rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("kw", [{}, {"is_causal": True}, {"scale": 0.3}, {"mask": "bool"}, {"mask": "float"},
                                {"mask": "bool_bcast"}])
def test_sdpa_matches_torch(kw):
    kw = dict(kw)
    (lq, tq), (lk, tk), (lv, tv) = (as_pair(rand(2, 3, 5, 4), True) for _ in range(3))
    mask = kw.pop("mask", None)
    if mask:
        m = rng.random((5, 5) if mask == "bool_bcast" else (2, 3, 5, 5))
        m = m > 0.3 if mask.startswith("bool") else m.astype(np.float32)
        if mask.startswith("bool"):
            m[..., 0] = True     # every row keeps a position
        lm_, tm_ = as_pair(m)
        kw["attn_mask"] = (lm_, tm_)
    lkw = {k: (v[0] if isinstance(v, tuple) else v) for k, v in kw.items()}
    tkw = {k: (v[1] if isinstance(v, tuple) else v) for k, v in kw.items()}
    lo = loom.nn.functional.scaled_dot_product_attention(lq, lk, lv, **lkw)
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, **tkw)
    close(lo, to, what="output")
    g = rand(*lo.shape)
    lo.backward(loom.tensor(g))
    to.backward(torch.tensor(g))
    for a, b, n in ((lq, tq, "q"), (lk, tk, "k"), (lv, tv, "v")):
        close(a.grad, b.grad, what=f"grad {n}")


def test_sdpa_cross_lengths_gqa_and_errors():
    (lq, tq), (lk, tk), (lv, tv) = as_pair(rand(1, 4, 3, 8)), as_pair(rand(1, 2, 6, 8)), as_pair(rand(1, 2, 6, 5))
    close(loom.nn.functional.scaled_dot_product_attention(lq, lk, lv, enable_gqa=True),
          torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True))
    with pytest.raises(RuntimeError, match="is_causal"):
        loom.scaled_dot_product_attention(lq, lq, lq, loom.ones(3, 3), is_causal=True)
    with pytest.raises(RuntimeError, match="last dim"):
        loom.scaled_dot_product_attention(lq, lv, lv)


def test_sdpa_dropout_zeroes_weights_in_expectation():
    loom.manual_seed(0)
    q = loom.zeros(1, 1, 4)
    v = loom.ones(1, 50, 3)
    out = loom.nn.functional.scaled_dot_product_attention(q.expand(2000, 1, 4), loom.zeros(2000, 50, 4),
                                                          v.expand(2000, 50, 3), dropout_p=0.5)
    assert abs(out.mean().item() - 1.0) < 0.02 and out.std().item() > 0.05


def _mha_pair(E=8, H=2, **kw):
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(E, H, **kw)
    lm = loom.nn.MultiheadAttention(E, H, **kw)
    load_from_torch(lm, tm)
    return lm, tm


@pytest.mark.parametrize("kw, call", [
    ({}, {}),
    ({"batch_first": True}, {}),
    ({}, {"average_attn_weights": False}),
    ({}, {"need_weights": False}),
    ({}, {"key_padding_mask": "bool"}),
    ({"batch_first": True}, {"key_padding_mask": "bool", "need_weights": False}),
    ({}, {"attn_mask": "bool"}),
    ({}, {"attn_mask": "float", "key_padding_mask": "bool", "need_weights": False}),
    ({"bias": False}, {}),
    ({"add_bias_kv": True, "add_zero_attn": True}, {"key_padding_mask": "bool"}),
    ({"kdim": 5, "vdim": 6}, {"cross": True}),
])
def test_multihead_attention_matches_torch(kw, call):
    lm, tm = _mha_pair(**kw)
    call = dict(call)
    L, S, N = 4, 6, 3
    bf = kw.get("batch_first", False)
    shape = (lambda n: (N, n, 8) if bf else (n, N, 8))
    (lq, tq) = as_pair(rand(*shape(L)), True)
    if call.pop("cross", False):
        (lk, tk), (lv, tv) = as_pair(rand(S, N, 5), True), as_pair(rand(S, N, 6), True)
    else:
        (lk, tk) = as_pair(rand(*shape(S)), True)
        lv, tv = lk, tk
    largs, targs = {}, {}
    for name in ("key_padding_mask", "attn_mask"):
        kind = call.pop(name, None)
        if kind:
            shp = (N, S) if name == "key_padding_mask" else (L, S)
            m = rng.random(shp) > 0.6 if kind == "bool" else rng.standard_normal(shp).astype(np.float32)
            if kind == "bool":
                m[..., 0] = False
            largs[name], targs[name] = as_pair(m)
    lo, lw = lm(lq, lk, lv, **largs, **call)
    to, tw = tm(tq, tk, tv, **targs, **call)
    close(lo, to, what="output")
    if tw is None:
        assert lw is None
    else:
        close(lw, tw, what="weights")
    g = rand(*lo.shape)
    lo.backward(loom.tensor(g))
    to.backward(torch.tensor(g))
    compare_grads(lm, tm, [(lq, tq), (lk, tk)])


def test_multihead_attention_init_and_keys():
    m = loom.nn.MultiheadAttention(16, 4)
    assert list(m.state_dict()) == list(torch.nn.MultiheadAttention(16, 4).state_dict())
    assert (m.in_proj_bias == 0).all().item() and (m.out_proj.bias == 0).all().item()
    bound = (6 / (16 + 48)) ** 0.5
    assert m.in_proj_weight.abs().max().item() <= bound
    with pytest.raises(AssertionError, match="divisible"):
        loom.nn.MultiheadAttention(10, 3)


def _twin(ctor, **kw):
    torch.manual_seed(0)
    tm = ctor(torch.nn)(**kw)
    lm = ctor(loom.nn)(**kw)
    load_from_torch(lm, tm)
    return lm.eval(), tm.eval()


@pytest.mark.parametrize("kw", [{}, {"norm_first": True, "activation": "gelu", "batch_first": True}])
def test_transformer_encoder_matches_torch(kw):
    lm, tm = _twin(lambda nn: (lambda **a: nn.TransformerEncoder(
        nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1, **a), 2, nn.LayerNorm(16))), **kw)
    lx, tx = as_pair(rand(3, 5, 16) if kw.get("batch_first") else rand(5, 3, 16), True)
    mask = loom.nn.Transformer.generate_square_subsequent_mask(5)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    close(mask, tmask)
    kpm = np.zeros((3, 5), bool)   # (batch, sequence) whatever the layout
    kpm[:, -1] = True
    lkpm, tkpm = as_pair(kpm)
    lo = lm(lx, mask=mask, src_key_padding_mask=lkpm)
    to = tm(tx, mask=tmask, src_key_padding_mask=tkpm)
    close(lo, to, atol=1e-4, what="output")
    lo.sum().backward()
    to.sum().backward()
    compare_grads(lm, tm, [(lx, tx)], atol=1e-4, rtol=1e-3)


def test_transformer_matches_torch_and_trains():
    kw = dict(d_model=16, nhead=2, num_encoder_layers=2, num_decoder_layers=1, dim_feedforward=24, dropout=0.0)
    lm, tm = _twin(lambda nn: nn.Transformer, **kw)
    (ls, ts), (lt, tt) = as_pair(rand(7, 2, 16)), as_pair(rand(5, 2, 16))
    lmask = lm.generate_square_subsequent_mask(5)
    tmask = tm.generate_square_subsequent_mask(5)
    lo = lm(ls, lt, tgt_mask=lmask)
    to = tm(ts, tt, tgt_mask=tmask)
    close(lo, to, atol=1e-4, what="output")
    lo.pow(2).mean().backward()
    to.pow(2).mean().backward()
    compare_grads(lm, tm, atol=1e-4, rtol=1e-3)
    with pytest.raises(RuntimeError, match="d_model"):
        lm(loom.zeros(3, 2, 8), lt)
    # xavier init: every matrix bounded by its xavier-uniform bound
    fresh = loom.nn.Transformer(**kw)
    w = fresh.encoder.layers[0].linear1.weight
    assert w.abs().max().item() <= (6 / (16 + 24)) ** 0.5


@pytest.mark.parametrize("L, S, causal", [(130, 130, True), (70, 150, True), (150, 70, True), (130, 67, False)])
def test_fused_path_across_row_blocks_matches_torch(L, S, causal):
    """The fused kernel's row blocks (64 rows), causal block shortening, and L != S alignment (top-left)."""
    (lq, tq), (lk, tk), (lv, tv) = (as_pair(rand(2, 2, n, 16), True) for n in (L, S, S))
    lo = loom.nn.functional.scaled_dot_product_attention(lq, lk, lv, is_causal=causal)
    to = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
    close(lo, to, what="output")
    g = rand(*lo.shape)
    lo.backward(loom.tensor(g))
    to.backward(torch.tensor(g))
    for a, b, n in ((lq, tq, "q"), (lk, tk, "k"), (lv, tv, "v")):
        close(a.grad, b.grad, atol=2e-5, what=f"grad {n}")


def test_fused_path_float64_gradcheck_and_double_backward():
    q, k, v = (loom.tensor(rng.standard_normal((2, 5, 3)), dtype=loom.float64).requires_grad_(True) for _ in range(3))
    tq, tk, tv = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (q, k, v))
    out = loom.scaled_dot_product_attention(q, k, v, is_causal=True)
    tout = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    close(out, tout, atol=1e-12, rtol=1e-10)
    # second order: d/dq of (d loss/dv . 1) through create_graph, as torch
    (gv,) = loom.autograd.grad(out.pow(2).sum(), [v], create_graph=True)
    (tgv,) = torch.autograd.grad(tout.pow(2).sum(), [tv], create_graph=True)
    close(gv, tgv, atol=1e-10)
    (gq,) = loom.autograd.grad(gv.sum(), [q])
    (tgq,) = torch.autograd.grad(tgv.sum(), [tq])
    close(gq, tgq, atol=1e-10)


def test_fused_kernel_errors():
    with pytest.raises(ValueError, match="leading dims"):
        loom.sdpa_flash(loom.zeros(2, 3, 4), loom.zeros(3, 3, 4), loom.zeros(3, 3, 4))
    with pytest.raises(ValueError, match="last dim"):
        loom.sdpa_flash(loom.zeros(3, 4), loom.zeros(3, 5), loom.zeros(3, 5))


@pytest.mark.parametrize("output, lse", [
    ((2, 1, 3), (2, 5)),    # too few rows: the kernel reads L rows of output
    ((2, 5, 1), (2, 5)),    # too narrow: Dv columns
    ((2, 5, 3), (2, 0)),    # logsumexp of an empty sequence
    ((2, 5, 3), (1, 5)),    # logsumexp of fewer batch-heads
    ((2, 5, 3), (2, 5, 1)),
])
def test_fused_backward_refuses_saved_tensors_of_another_shape(output, lse):
    """sdpa_flash_backward is public: output and logsumexp that sdpa_flash could not have made are refused
    (they were read past their end)."""
    q, k, v = loom.randn(2, 5, 4), loom.randn(2, 6, 4), loom.randn(2, 6, 3)
    with pytest.raises(ValueError, match="must be sdpa_flash's"):
        loom.sdpa_flash_backward(loom.randn(*output), q, k, v, loom.randn(*output), loom.randn(*lse), False, 0.5)


def test_fused_backward_refuses_saved_tensors_of_another_dtype():
    q, k, v = loom.randn(2, 5, 4, dtype=loom.float64), loom.randn(2, 6, 4, dtype=loom.float64), loom.randn(2, 6, 3, dtype=loom.float64)
    out, lse = loom.sdpa_flash(q, k, v)
    with pytest.raises(ValueError, match="of dtype float64, got .* of float64 and .* of float32"):
        loom.sdpa_flash_backward(loom.ones_like(out), q, k, v, out, lse.float(), False, 1.0)
    g = loom.sdpa_flash_backward(loom.ones_like(out), q, k, v, out, lse, False, 1.0)
    assert [tuple(t.shape) for t in g] == [(2, 5, 4), (2, 6, 4), (2, 6, 3)]
