"""RNN, LSTM, GRU, their cells and nn.utils.rnn against PyTorch: same weights in, same outputs and gradients out."""
import numpy as np
import pytest
torch = pytest.importorskip("torch", reason="PyTorch is not installed: these tests compare with it")

import loom
from twin import as_pair, close, compare_grads, load_from_torch

rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def twin(name, *args, **kw):
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(*args, **kw)
    lm = getattr(loom.nn, name)(*args, **kw)
    load_from_torch(lm, tm)
    return lm, tm


def flat(out):
    """The tensors of an RNN's result, in order ((output, h) or (output, (h, c)))."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in flat(o)]
    return [out]


CONFIGS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("RNN", {"bias": False}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"batch_first": True}),
    ("LSTM", {"proj_size": 3}), ("GRU", {}), ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
]


@pytest.mark.parametrize("name, kw", CONFIGS, ids=[f"{n}-{'-'.join(map(str, k.items()))}" for n, k in CONFIGS])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_matches_torch(name, kw, with_hx):
    lm, tm = twin(name, 4, 5, **kw)
    T, B = 6, 3
    lx, tx = as_pair(rand(B, T, 4) if kw.get("batch_first") else rand(T, B, 4), True)
    dirs = 2 if kw.get("bidirectional") else 1
    n = dirs * kw.get("num_layers", 1)
    largs, targs, hx_pairs = [], [], []
    if with_hx:
        h = as_pair(rand(n, B, kw.get("proj_size") or 5), True)
        hx_pairs.append(h)
        if name == "LSTM":
            c = as_pair(rand(n, B, 5), True)
            hx_pairs.append(c)
            largs, targs = [(h[0], c[0])], [(h[1], c[1])]
        else:
            largs, targs = [h[0]], [h[1]]
    lo, to = flat(lm(lx, *largs)), flat(tm(tx, *targs))
    for i, (a, b) in enumerate(zip(lo, to)):
        close(a, b, what=f"result {i}")
    gs = [rand(*t.shape) for t in lo]
    sum((a * loom.tensor(g)).sum() for a, g in zip(lo, gs)).backward()
    sum((b * torch.tensor(g)).sum() for b, g in zip(to, gs)).backward()
    compare_grads(lm, tm, [(lx, tx)] + hx_pairs)


def test_unbatched_and_state_dict_keys():
    lm, tm = twin("GRU", 3, 4, num_layers=2, bidirectional=True)
    assert list(lm.state_dict()) == list(tm.state_dict())
    lx, tx = as_pair(rand(5, 3))
    for a, b in zip(flat(lm(lx)), flat(tm(tx))):
        close(a, b)
    m = loom.nn.LSTM(3, 16)
    assert m.weight_ih_l0.shape == (64, 3) and m.weight_ih_l0.abs().max().item() <= 0.25


def test_dropout_between_layers_only_in_training():
    m = loom.nn.LSTM(4, 8, num_layers=2, dropout=0.5)
    x = loom.randn(5, 2, 4)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert (a == b).all().item()
    m.train()
    assert not (m(x)[0] == m(x)[0]).all().item()
    with pytest.raises(ValueError, match="dropout"):
        loom.nn.LSTM(4, 8, dropout=1.5)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_torch(name):
    lm, tm = twin(name, 4, 6)
    lx, tx = as_pair(rand(3, 4), True)
    lh, th = as_pair(rand(3, 6), True)
    if name == "LSTMCell":
        lc, tc = as_pair(rand(3, 6), True)
        lo, to = lm(lx, (lh, lc)), tm(tx, (th, tc))
        loss_l, loss_t = lo[0].sum() + (lo[1] * 2).sum(), to[0].sum() + (to[1] * 2).sum()
    else:
        lo, to = lm(lx, lh), tm(tx, th)
        loss_l, loss_t = lo.pow(2).sum(), to.pow(2).sum()
    for a, b in zip(flat(lo), flat(to)):
        close(a, b)
    loss_l.backward()
    loss_t.backward()
    compare_grads(lm, tm, [(lx, tx), (lh, th)])
    for a, b in zip(flat(lm(lx[0])), flat(tm(tx[0]))):   # unbatched, no state
        close(a, b)


def test_cell_errors():
    with pytest.raises(RuntimeError, match="input_size"):
        loom.nn.GRUCell(4, 6)(loom.zeros(2, 5))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        loom.nn.GRU(4, 6)(loom.zeros(3, 2, 4), loom.zeros(1, 3, 6))


def test_pad_pack_roundtrip_matches_torch():
    seqs = [rand(n, 3) for n in (2, 5, 3)]
    lp = loom.nn.utils.rnn.pad_sequence([loom.tensor(s) for s in seqs], batch_first=True)
    tp = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)
    close(lp, tp)
    lpk = loom.nn.utils.rnn.pack_padded_sequence(lp, [2, 5, 3], batch_first=True, enforce_sorted=False)
    tpk = torch.nn.utils.rnn.pack_padded_sequence(tp, [2, 5, 3], batch_first=True, enforce_sorted=False)
    close(lpk.data, tpk.data)
    assert lpk.batch_sizes.tolist() == tpk.batch_sizes.tolist()
    assert lpk.sorted_indices.tolist() == tpk.sorted_indices.tolist()
    back, lens = loom.nn.utils.rnn.pad_packed_sequence(lpk, batch_first=True, total_length=6)
    tback, tlens = torch.nn.utils.rnn.pad_packed_sequence(tpk, batch_first=True, total_length=6)
    close(back, tback)
    assert lens.tolist() == tlens.tolist() == [2, 5, 3]
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        loom.nn.utils.rnn.pack_padded_sequence(lp, [2, 5, 3], batch_first=True)


@pytest.mark.parametrize("name", ["LSTM", "GRU"])
def test_packed_sequence_through_bidirectional_rnn(name):
    lm, tm = twin(name, 3, 4, num_layers=2, bidirectional=True)
    seqs = [rand(n, 3) for n in (2, 5, 3)]
    lx = [loom.tensor(s).requires_grad_(True) for s in seqs]
    tx = [torch.tensor(s).requires_grad_(True) for s in seqs]
    lpk = loom.nn.utils.rnn.pack_sequence(lx, enforce_sorted=False)
    tpk = torch.nn.utils.rnn.pack_sequence(tx, enforce_sorted=False)
    lo, lh = lm(lpk)
    to, th = tm(tpk)
    close(lo.data, to.data, what="packed output")
    for a, b in zip(flat(lh), flat(th)):
        close(a, b, what="final state")
    lpad, _ = loom.nn.utils.rnn.pad_packed_sequence(lo)
    tpad, _ = torch.nn.utils.rnn.pad_packed_sequence(to)
    close(lpad, tpad)
    (lpad.sum() + sum(t.sum() for t in flat(lh))).backward()
    (tpad.sum() + sum(t.sum() for t in flat(th))).backward()
    compare_grads(lm, tm, list(zip(lx, tx)))


@pytest.mark.parametrize("threads", [1, 2])
def test_lstm_threaded_recurrence_matches_torch(threads):
    """Big enough for native/cpu/rnn_layer.c to split the hidden units over threads (unevenly:
    80 units as 32 + 48), both directions, with a given state: same outputs and gradients."""
    before = loom.get_num_threads()
    loom.set_num_threads(threads)
    try:
        lm, tm = twin("LSTM", 24, 80, num_layers=2, bidirectional=True)
        T, B = 7, 48
        lx, tx = as_pair(rand(T, B, 24), True)
        h, c = as_pair(rand(4, B, 80), True), as_pair(rand(4, B, 80), True)
        lo, to = flat(lm(lx, (h[0], c[0]))), flat(tm(tx, (h[1], c[1])))
        for i, (a, b) in enumerate(zip(lo, to)):
            close(a, b, what=f"result {i}")
        gs = [rand(*t.shape) for t in lo]
        sum((a * loom.tensor(g)).sum() for a, g in zip(lo, gs)).backward()
        sum((b * torch.tensor(g)).sum() for b, g in zip(to, gs)).backward()
        compare_grads(lm, tm, [(lx, tx), h, c])
    finally:
        loom.set_num_threads(before)
