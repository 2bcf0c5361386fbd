"""loom.nn layers and losses against PyTorch's: the same weights (copied through load_state_dict from NumPy),
the same inputs; forward values, input and parameter gradients, buffers and reprs must agree."""
import numpy as np
import pytest

import loom
from loom import nn
import loom.nn.functional as F

torch = pytest.importorskip("torch")
tnn = torch.nn

RNG = np.random.default_rng(0)


def rand(*shape, low=-2.0, high=2.0, dtype=np.float32):
    return RNG.uniform(low, high, size=shape).astype(dtype)


def copy_weights(tm, lm):
    """Load the torch module's state into the loom module (NumPy arrays as values)."""
    lm.load_state_dict({k: v.detach().numpy().copy() for k, v in tm.state_dict().items()})


def close(a, b, atol, rtol=1e-4):
    a = a.detach().numpy() if isinstance(a, loom.Tensor) else a
    b = b.detach().numpy() if isinstance(b, torch.Tensor) else b
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, atol=atol, rtol=rtol)


def check_module(tm, lm, *inputs, atol=1e-5, grad_inputs=True, copy=True):
    """Forward, then backward of a random cotangent: outputs, input grads, parameter grads and buffers."""
    if copy:
        copy_weights(tm, lm)
    assert repr(lm) == repr(tm)
    ti = [torch.tensor(x, requires_grad=grad_inputs and x.dtype.kind == "f") for x in inputs]
    li = [loom.tensor(x, requires_grad=grad_inputs and x.dtype.kind == "f") for x in inputs]
    ty, ly = tm(*ti), lm(*li)
    close(ly, ty, atol)
    g = rand(*ty.shape)
    ty.backward(torch.tensor(g))
    ly.backward(loom.tensor(g))
    for t, lx in zip(ti, li):
        if t.requires_grad:
            close(lx.grad, t.grad, atol)
    lparams = dict(lm.named_parameters())
    assert list(lparams) == [k for k, _ in tm.named_parameters()]
    for k, tp in tm.named_parameters():
        if tp.grad is None:
            assert lparams[k].grad is None, k
        else:
            close(lparams[k].grad, tp.grad, atol)
    lbufs = dict(lm.named_buffers())
    assert list(lbufs) == [k for k, _ in tm.named_buffers()]
    for k, tb in tm.named_buffers():
        close(lbufs[k], tb, atol)
    return ly, ty


# ---- linear, conv ----
@pytest.mark.parametrize("bias", [True, False])
def test_linear(bias):
    check_module(tnn.Linear(5, 3, bias=bias), nn.Linear(5, 3, bias=bias), rand(4, 5))
    check_module(tnn.Linear(5, 3, bias=bias), nn.Linear(5, 3, bias=bias), rand(2, 4, 5))


CONV = [
    dict(),
    dict(stride=2, padding=1),
    dict(stride=(2, 1), padding=(0, 2), dilation=(2, 1)),
    dict(groups=2, bias=False),
    dict(padding="same", dilation=2),
    dict(padding="valid"),
    dict(padding=1, padding_mode="reflect"),
    dict(padding=(2, 1), stride=(2, 1), padding_mode="replicate", bias=False),
    dict(padding=(1, 3), dilation=(2, 1), groups=2, padding_mode="circular"),
    dict(padding="same", dilation=(2, 1), padding_mode="reflect"),
    dict(padding="valid", padding_mode="circular"),
]


@pytest.mark.parametrize("kw", CONV, ids=str)
def test_conv2d(kw):
    check_module(tnn.Conv2d(4, 6, 3, **kw), nn.Conv2d(4, 6, 3, **kw), rand(2, 4, 9, 8), atol=1e-4)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("kernel_size,dilation", [((4, 2), 1), ((2, 3), (3, 2)), ((3, 4), (1, 3))], ids=str)
def test_conv2d_same_with_even_totals_pads_bottom_right(padding_mode, kernel_size, dilation):
    kw = dict(padding="same", dilation=dilation, padding_mode=padding_mode)
    tm, lm = tnn.Conv2d(2, 3, kernel_size, **kw), nn.Conv2d(2, 3, kernel_size, **kw)
    assert lm._reversed_padding_repeated_twice == tm._reversed_padding_repeated_twice
    ly, _ = check_module(tm, lm, rand(2, 2, 7, 6), atol=1e-4)
    assert ly.shape == (2, 3, 7, 6)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv2d_padding_modes_keep_pytorchs_attributes_and_state(padding_mode):
    kw = dict(padding=(1, 2), padding_mode=padding_mode)
    tm, lm = tnn.Conv2d(2, 4, 3, **kw), nn.Conv2d(2, 4, 3, **kw)
    assert lm._reversed_padding_repeated_twice == tm._reversed_padding_repeated_twice == (2, 2, 1, 1)
    assert lm.padding_mode == padding_mode and list(lm.state_dict()) == list(tm.state_dict()) == ["weight", "bias"]
    assert repr(lm) == repr(tm)
    check_module(tm, lm, rand(2, 5, 6), atol=1e-4)   # unbatched (C, H, W)


def test_conv2d_padding_mode_errors_come_from_pad():
    with pytest.raises(ValueError, match=r"^pad\(\): Padding size should be less than the corresponding input "
                                         r"dimension, but got: padding \(5, 5\) at dimension 3 of input \[1, 2, 4, 4\]"):
        nn.Conv2d(2, 3, 3, padding=5, padding_mode="reflect")(loom.zeros(1, 2, 4, 4))
    with pytest.raises(ValueError, match="Padding value causes wrapping around more than once"):
        nn.Conv2d(2, 3, 3, padding=5, padding_mode="circular")(loom.zeros(1, 2, 4, 4))


def test_conv2d_unbatched_input():
    check_module(tnn.Conv2d(3, 2, 2), nn.Conv2d(3, 2, 2), rand(3, 5, 5), atol=1e-4)


def test_conv2d_constructor_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(3, 3, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding_mode must be one of .*, but got padding_mode='mirror'"):
        nn.Conv2d(3, 3, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="Invalid padding string 'full'"):
        nn.Conv2d(3, 3, 3, padding="full")


# ---- pooling ----
POOL_MAX = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
            dict(kernel_size=(2, 3), stride=1, dilation=2)]


@pytest.mark.parametrize("kw", POOL_MAX, ids=str)
def test_max_pool2d(kw):
    # distinct values: ties would make the argmax (and so the gradient) implementation-defined
    x = RNG.permutation(2 * 3 * 9 * 8).astype(np.float32).reshape(2, 3, 9, 8) / 10
    check_module(tnn.MaxPool2d(**kw), nn.MaxPool2d(**kw), x)


def test_max_pool2d_return_indices():
    x = RNG.permutation(2 * 2 * 6 * 6).astype(np.float32).reshape(2, 2, 6, 6)
    tv, ti = tnn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    lv, li = nn.MaxPool2d(2, return_indices=True)(loom.tensor(x))
    close(lv, tv, 0)
    np.testing.assert_array_equal(li.numpy(), ti.numpy())


POOL_AVG = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
            dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 0), divisor_override=4)]


@pytest.mark.parametrize("kw", POOL_AVG, ids=str)
def test_avg_pool2d(kw):
    check_module(tnn.AvgPool2d(**kw), nn.AvgPool2d(**kw), rand(2, 3, 9, 8))


@pytest.mark.parametrize("size", [(3, 2), 1, (None, 3)], ids=str)
def test_adaptive_avg_pool2d(size):
    check_module(tnn.AdaptiveAvgPool2d(size), nn.AdaptiveAvgPool2d(size), rand(2, 3, 7, 5))


# ---- normalisation ----
BN = [dict(), dict(affine=False), dict(bias=False), dict(momentum=None), dict(track_running_stats=False),
      dict(momentum=0.3, eps=1e-3)]


@pytest.mark.parametrize("kw", BN, ids=str)
@pytest.mark.parametrize("shape", [(6, 4), (5, 4, 3)], ids=str)
def test_batch_norm1d_train_then_eval(kw, shape):
    tm, lm = tnn.BatchNorm1d(4, **kw), nn.BatchNorm1d(4, **kw)
    if kw.get("affine", True):
        with torch.no_grad():
            tm.weight.uniform_(0.5, 1.5)
            if tm.bias is not None:
                tm.bias.uniform_(-1, 1)
    copy_weights(tm, lm)
    for _ in range(3):   # running statistics accumulate over steps
        check_module(tm, lm, rand(*shape), atol=1e-4, copy=False)
    tm.eval(), lm.eval()
    check_module(tm, lm, rand(*shape), atol=1e-4, copy=False)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm2d(training):
    tm, lm = tnn.BatchNorm2d(3), nn.BatchNorm2d(3)
    with torch.no_grad():
        tm.running_mean.uniform_(-1, 1)
        tm.running_var.uniform_(0.5, 2)
        tm.weight.uniform_(0.5, 1.5)
    tm.train(training), lm.train(training)
    check_module(tm, lm, rand(4, 3, 5, 6), atol=1e-4)
    assert lm.num_batches_tracked.item() == (1 if training else 0)


def test_batch_norm_input_checks():
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(loom.zeros(2, 3))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(3)(loom.zeros(2, 3, 4, 5))


@pytest.mark.parametrize("kw", [dict(normalized_shape=5), dict(normalized_shape=(4, 5)),
                                dict(normalized_shape=5, elementwise_affine=False),
                                dict(normalized_shape=5, bias=False, eps=1e-3)], ids=str)
def test_layer_norm(kw):
    tm, lm = tnn.LayerNorm(**kw), nn.LayerNorm(**kw)
    if tm.weight is not None:
        with torch.no_grad():
            tm.weight.uniform_(0.5, 1.5)
    check_module(tm, lm, rand(3, 4, 5), atol=1e-4)


# ---- embedding, dropout, flatten, identity ----
@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding(padding_idx):
    tm, lm = tnn.Embedding(7, 3, padding_idx=padding_idx), nn.Embedding(7, 3, padding_idx=padding_idx)
    idx = np.array([[0, 2, 6, 2], [1, 1, 3, 6]], dtype=np.int64)
    check_module(tm, lm, idx, grad_inputs=False)


@pytest.mark.parametrize("norm_type", [2.0, 1.0])
def test_embedding_max_norm_renormalises_looked_up_rows(norm_type):
    w = rand(6, 3)
    idx = np.array([[1, 4], [4, 0]], dtype=np.int64)
    tm = tnn.Embedding(6, 3, max_norm=1.0, norm_type=norm_type)
    lm = nn.Embedding(6, 3, max_norm=1.0, norm_type=norm_type)
    assert repr(lm) == repr(tm)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor(w))
    copy_weights(tm, lm)
    close(lm(loom.tensor(idx)), tm(torch.tensor(idx)), 1e-6)
    close(lm.weight, tm.weight, 1e-6)   # rows 1, 4, 0 rescaled in place, the others untouched


@pytest.mark.parametrize("padding_idx,max_norm", [(None, None), (3, None), (None, 1.5), (1, 1.0)])
def test_embedding_scale_grad_by_freq(padding_idx, max_norm):
    kw = dict(padding_idx=padding_idx, max_norm=max_norm, scale_grad_by_freq=True)
    tm, lm = tnn.Embedding(7, 3, **kw), nn.Embedding(7, 3, **kw)
    idx = np.array([[0, 3, 6, 3], [1, 1, 3, 5], [1, 1, 1, 0]], dtype=np.int64)   # rows seen 1 to 5 times
    check_module(tm, lm, idx, grad_inputs=False)


def test_embedding_sparse_gives_the_dense_gradient_as_a_sparse_tensor():
    # the sparse gradient's checks against torch are in test_sparse.py
    w = loom.tensor(rand(4, 2), requires_grad=True)
    F.embedding(loom.tensor([0, 3, 0]), w, sparse=True).sum().backward()
    assert w.grad.is_sparse
    close(w.grad.to_dense(), np.array([[2, 2], [0, 0], [0, 0], [1, 1]]), 0)


def test_embedding_from_pretrained():
    w = rand(5, 2)
    lm = nn.Embedding.from_pretrained(loom.tensor(w))
    assert not lm.weight.requires_grad
    close(lm(loom.tensor([4, 0])), w[[4, 0]], 0)


def test_dropout_p0_train_and_eval_are_identity():
    x = rand(4, 5)
    check_module(tnn.Dropout(0.0), nn.Dropout(0.0), x)
    tm, lm = tnn.Dropout(0.5).eval(), nn.Dropout(0.5).eval()
    check_module(tm, lm, x)


def test_dropout_train_scales_survivors():
    loom.manual_seed(0)
    x = loom.ones(200, 100)
    y = nn.Dropout(0.25)(x).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_flatten_and_identity():
    check_module(tnn.Flatten(), nn.Flatten(), rand(2, 3, 4, 5))
    check_module(tnn.Flatten(0, 1), nn.Flatten(0, 1), rand(2, 3, 4))
    check_module(tnn.Identity(3, k=1), nn.Identity(3, k=1), rand(2, 3))


# ---- activations ----
ACTS = [("ReLU", {}), ("GELU", {}), ("GELU", {"approximate": "tanh"}), ("SiLU", {}), ("Tanh", {}), ("Sigmoid", {}),
        ("LeakyReLU", {"negative_slope": 0.2}), ("ELU", {"alpha": 0.5}), ("Softplus", {}),
        ("Softplus", {"beta": 2.0, "threshold": 1.0}), ("Softmax", {"dim": 1}), ("LogSoftmax", {"dim": -1})]


@pytest.mark.parametrize("name,kw", ACTS, ids=[f"{n}{k}" for n, k in ACTS])
def test_activation(name, kw):
    x = rand(4, 6, low=-4, high=4)
    check_module(getattr(tnn, name)(**kw), getattr(nn, name)(**kw), x)


def test_inplace_relu_writes_into_its_input():
    x = loom.tensor([-1.0, 2.0])
    y = nn.ReLU(inplace=True)(x)
    assert x.tolist() == [0.0, 2.0] and y.tolist() == [0.0, 2.0]


# ---- losses ----
def check_loss(tm, lm, x, target, atol=1e-5):
    lt = loom.tensor(target)
    tt = torch.tensor(target)
    tx, lx = torch.tensor(x, requires_grad=True), loom.tensor(x, requires_grad=True)
    assert repr(lm) == repr(tm)
    ty, ly = tm(tx, tt), lm(lx, lt)
    close(ly, ty, atol)
    g = rand(*ty.shape)
    ty.backward(torch.tensor(g))
    ly.backward(loom.tensor(g))
    close(lx.grad, tx.grad, atol)


REDUCTIONS = ["mean", "sum", "none"]
CLASS_W = np.array([0.5, 1.0, 2.0, 1.5], dtype=np.float32)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"weight": CLASS_W}, {"ignore_index": 1}, {"label_smoothing": 0.1},
                                {"weight": CLASS_W, "ignore_index": 0, "label_smoothing": 0.2}], ids=str)
def test_cross_entropy_class_indices(kw, reduction):
    target = np.array([0, 1, 3, 2, 1, 3], dtype=np.int64)
    tkw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    lkw = {k: loom.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    check_loss(tnn.CrossEntropyLoss(reduction=reduction, **tkw), nn.CrossEntropyLoss(reduction=reduction, **lkw),
               rand(6, 4), target)


@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_probabilities_and_spatial(label_smoothing):
    p = rand(5, 4, low=0.1, high=1.0)
    p /= p.sum(1, keepdims=True)
    check_loss(tnn.CrossEntropyLoss(label_smoothing=label_smoothing),
               nn.CrossEntropyLoss(label_smoothing=label_smoothing), rand(5, 4), p)
    target = RNG.integers(0, 4, size=(2, 3, 3)).astype(np.int64)
    check_loss(tnn.CrossEntropyLoss(), nn.CrossEntropyLoss(), rand(2, 4, 3, 3), target)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"weight": CLASS_W}, {"ignore_index": 3}], ids=str)
def test_nll_loss(kw, reduction):
    tkw = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    lkw = {k: loom.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    check_loss(tnn.NLLLoss(reduction=reduction, **tkw), nn.NLLLoss(reduction=reduction, **lkw), rand(6, 4),
               np.array([0, 3, 3, 2, 1, 0], dtype=np.int64))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["MSELoss", "L1Loss"])
def test_regression_losses(name, reduction):
    check_loss(getattr(tnn, name)(reduction=reduction), getattr(nn, name)(reduction=reduction), rand(3, 5),
               rand(3, 5))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_weighted_regression_losses(name):
    x, y, w = rand(3, 4), rand(3, 4), rand(3, 4, low=0.1, high=1.0)
    for reduction in REDUCTIONS:
        t = getattr(torch.nn.functional, name)(torch.tensor(x), torch.tensor(y), reduction=reduction,
                                               weight=torch.tensor(w))
        ll = getattr(F, name)(loom.tensor(x), loom.tensor(y), reduction=reduction, weight=loom.tensor(w))
        close(ll, t, 1e-5)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_loss(weighted, reduction):
    x = rand(4, 3, low=0.05, high=0.95)
    t = rand(4, 3, low=0.0, high=1.0)
    w = rand(4, 3, low=0.5, high=2.0) if weighted else None
    check_loss(tnn.BCELoss(weight=None if w is None else torch.tensor(w), reduction=reduction),
               nn.BCELoss(weight=None if w is None else loom.tensor(w), reduction=reduction), x, t)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"pos_weight": np.array([0.5, 2.0, 3.0], dtype=np.float32)},
                                {"weight": np.array([1.0, 0.0, 2.0], dtype=np.float32),
                                 "pos_weight": np.array([2.0, 1.0, 0.5], dtype=np.float32)}], ids=str)
def test_bce_with_logits_loss(kw, reduction):
    tkw = {k: torch.tensor(v) for k, v in kw.items()}
    lkw = {k: loom.tensor(v) for k, v in kw.items()}
    check_loss(tnn.BCEWithLogitsLoss(reduction=reduction, **tkw), nn.BCEWithLogitsLoss(reduction=reduction, **lkw),
               rand(4, 3, low=-5, high=5), rand(4, 3, low=0.0, high=1.0))


def test_legacy_size_average_reduce():
    with pytest.warns(UserWarning):
        assert nn.MSELoss(reduce=False).reduction == "none"
    assert nn.L1Loss(size_average=False).reduction == "sum"


# ---- a whole network, trained one step on both sides ----
def _make(lib, nnmod):
    return nnmod.Sequential(
        nnmod.Conv2d(3, 8, 3, padding=1), nnmod.BatchNorm2d(8), nnmod.ReLU(), nnmod.MaxPool2d(2),
        nnmod.Conv2d(8, 8, 3, stride=2, groups=2, bias=False), nnmod.GELU(), nnmod.AdaptiveAvgPool2d((2, 2)),
        nnmod.Flatten(), nnmod.Dropout(0.0), nnmod.Linear(32, 16), nnmod.LayerNorm(16), nnmod.SiLU(),
        nnmod.Linear(16, 5))


def test_small_cnn_forward_backward_matches_torch():
    tm, lm = _make(torch, tnn), _make(loom, nn)
    copy_weights(tm, lm)
    assert repr(lm) == repr(tm)
    x, target = rand(4, 3, 12, 12), np.array([0, 4, 2, 1], dtype=np.int64)
    tl = tnn.CrossEntropyLoss()(tm(torch.tensor(x)), torch.tensor(target))
    ll = nn.CrossEntropyLoss()(lm(loom.tensor(x)), loom.tensor(target))
    close(ll, tl, 1e-4)
    tl.backward()
    ll.backward()
    lp = dict(lm.named_parameters())
    for k, p in tm.named_parameters():
        close(lp[k].grad, p.grad, 1e-4, rtol=1e-3)
    for k, b in tm.named_buffers():
        close(dict(lm.named_buffers())[k], b, 1e-5)


# ---- functional-only behaviour ----
@pytest.mark.parametrize("kernel,dilation", [((2, 3), 1), ((4, 4), (1, 3)), ((3, 3), 2)], ids=str)
def test_functional_conv2d_same_values_and_gradients(kernel, dilation):
    arrays = [rand(2, 4, 7, 6, dtype=np.float64), rand(6, 2, *kernel, dtype=np.float64), rand(6, dtype=np.float64)]
    ls = [loom.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    ly = F.conv2d(*ls, padding="same", dilation=dilation, groups=2)
    ty = torch.nn.functional.conv2d(*ts, padding="same", dilation=dilation, groups=2)
    close(ly, ty, 1e-10)
    g = rand(*ty.shape, dtype=np.float64)
    ly.backward(loom.tensor(g))
    ty.backward(torch.tensor(g))
    for lt, tt in zip(ls, ts):
        close(lt.grad, tt.grad, 1e-10)
    small = [loom.tensor(rand(1, 2, 4, 3, dtype=np.float64), requires_grad=True),
             loom.tensor(rand(2, 2, *kernel, dtype=np.float64), requires_grad=True)]
    fn = lambda x, w: F.conv2d(x, w, padding="same", dilation=dilation)
    assert loom.autograd.gradcheck(fn, small) and loom.autograd.gradgradcheck(fn, small)
    with pytest.raises(ValueError, match="^conv2d\\(\\): padding='same' is not supported for strided convolutions"):
        F.conv2d(ls[0], ls[1], padding="same", stride=(1, 2), groups=2)


def test_functional_softmax_implicit_dim_warns():
    x = rand(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        y = F.softmax(loom.tensor(x))
    close(y, torch.softmax(torch.tensor(x), 1), 1e-6)


def test_functional_embedding_and_one_hot():
    w = rand(6, 2)
    idx = np.array([5, 0, 5], dtype=np.int64)
    close(F.embedding(loom.tensor(idx), loom.tensor(w)), torch.nn.functional.embedding(torch.tensor(idx),
                                                                                        torch.tensor(w)), 0)
    np.testing.assert_array_equal(F.one_hot(loom.tensor(idx)).numpy(),
                                  torch.nn.functional.one_hot(torch.tensor(idx)).numpy())
    np.testing.assert_array_equal(F.one_hot(loom.tensor(idx), 7).numpy(),
                                  torch.nn.functional.one_hot(torch.tensor(idx), 7).numpy())
    with pytest.raises(ValueError, match="padding_idx"):
        F.embedding(loom.tensor(idx), loom.tensor(w), padding_idx=6)


def test_functional_max_pool2d_indices_and_conv_padding_strings():
    x = RNG.permutation(1 * 2 * 5 * 5).astype(np.float32).reshape(1, 2, 5, 5)
    tv, ti = torch.nn.functional.max_pool2d(torch.tensor(x), 2, return_indices=True)
    lv, li = F.max_pool2d(loom.tensor(x), 2, return_indices=True)
    close(lv, tv, 0)
    np.testing.assert_array_equal(li.numpy(), ti.numpy())
    w = rand(3, 2, 2, 3)
    for padding in ("same", "valid"):
        close(F.conv2d(loom.tensor(x), loom.tensor(w), padding=padding),
              torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), padding=padding), 1e-4)
    with pytest.raises(ValueError, match="invalid padding string"):
        F.conv2d(loom.tensor(x), loom.tensor(w), padding="full")
