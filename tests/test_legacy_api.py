"""The legacy and device-agnostic API PyTorch scripts use (issue 15): loom.Tensor(...) and the typed
constructors, Tensor.type/.data/__format__, device predicates, loom.accelerator, backends.cudnn,
cuda.amp, nn.DataParallel, the nn.modules import paths, range indices, BCE at 0 and 1."""
import importlib

import numpy as np
import pytest

import loom


def test_legacy_constructors():
    assert loom.Tensor(3, 4).shape == (3, 4) and loom.Tensor(3, 4).dtype == loom.get_default_dtype()
    assert loom.Tensor([1, 2]).tolist() == [1.0, 2.0] and loom.Tensor().shape == (0,)
    assert loom.Tensor(loom.Size([2, 5])).shape == (2, 5)
    assert loom.LongTensor([1, 2]).dtype == loom.int64 and loom.FloatTensor(2, 2).dtype == loom.float32
    assert loom.BoolTensor([True]).dtype == loom.bool and loom.ByteTensor(1).dtype == loom.uint8
    t = loom.ones(2)
    assert loom.Tensor(t) is t
    assert isinstance(t, loom.FloatTensor) and not isinstance(t, loom.LongTensor)
    with pytest.raises(TypeError, match="expected a tensor of type int64"):
        loom.LongTensor(t)
    with pytest.raises(TypeError, match="data must be a sequence"):
        loom.Tensor(2.5)
    p = loom.nn.Parameter(loom.ones(3))   # subclasses still make their own
    assert isinstance(p, loom.nn.Parameter) and p.requires_grad


def test_type():
    t = loom.ones(2)
    assert t.type() == "loom.FloatTensor" and t.long().type() == "loom.LongTensor"
    assert t.type(loom.float64).dtype == loom.float64 and t.type(loom.float32) is t
    assert t.type("torch.IntTensor").dtype == loom.int32 and t.type(loom.ShortTensor).dtype == loom.int16
    with pytest.raises(ValueError, match="invalid type: 'torch.NoTensor'"):
        t.type("torch.NoTensor")


def test_data_get_and_set():
    w = loom.ones(2, requires_grad=True)
    (w * 3).sum().backward()
    d = w.data
    assert not d.requires_grad and d.data_ptr() == w.data_ptr()
    w.data.mul_(0.5)   # an update outside autograd, as optimizers written for PyTorch do
    assert w.tolist() == [0.5, 0.5] and w.grad.tolist() == [3.0, 3.0] and w.requires_grad
    p = loom.nn.Parameter(loom.ones(2))
    p.data = loom.zeros(3)
    assert isinstance(p, loom.nn.Parameter) and p.shape == (3,) and p.requires_grad
    with pytest.raises(TypeError, match="data must be a Tensor"):
        p.data = [1.0]


def test_format():
    assert f"{loom.tensor(2.0 / 3):.4f}" == "0.6667" and f"{loom.tensor(7):>4d}" == "   7"
    assert f"{loom.ones(2)}" == repr(loom.ones(2))
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{loom.ones(2):.2f}"


def test_device_predicates_and_namespaces():
    t = loom.ones(1)
    assert not (t.is_xpu or t.is_mps or t.is_meta or t.is_sparse or t.is_quantized)
    assert loom.accelerator.is_available() == loom.cuda.is_available()
    want = loom.device("cuda") if loom.cuda.is_available() else None
    assert loom.accelerator.current_accelerator() == want
    loom.backends.cudnn.benchmark = True   # a setting scripts write; loom has no cuDNN to tune
    assert loom.backends.cudnn.benchmark and not loom.backends.cudnn.is_available()
    assert not loom.backends.mps.is_available()
    scaler = loom.cuda.amp.GradScaler(enabled=False)
    assert isinstance(scaler, loom.amp.GradScaler) and not scaler.is_enabled()


def test_data_parallel_is_the_module():
    m = loom.nn.Linear(3, 2)
    dp = loom.nn.DataParallel(m)
    x = loom.randn(4, 3)
    np.testing.assert_array_equal(dp(x).detach().numpy(), m(x).detach().numpy())
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    assert loom.nn.parallel.DataParallel is loom.nn.DataParallel


@pytest.mark.parametrize("path, name", [("linear", "Linear"), ("conv", "Conv2d"), ("loss", "_Loss"),
                                        ("batchnorm", "BatchNorm2d"), ("container", "Sequential"),
                                        ("module", "Module"), ("activation", "ReLU"), ("rnn", "LSTM")])
def test_nn_modules_import_paths(path, name):
    mod = importlib.import_module(f"loom.nn.modules.{path}")
    assert getattr(mod, name) is getattr(loom.nn, name, getattr(mod, name))
    assert isinstance(getattr(mod, name), type)


def test_range_index():
    t = loom.arange(12).reshape(3, 4)
    assert t[range(1, 3)].tolist() == t[[1, 2]].tolist()
    assert t[:, range(0, 4, 2)].tolist() == [[0, 2], [4, 6], [8, 10]]


def test_bce_gradient_at_zero_and_one_as_torch():
    torch = pytest.importorskip("torch")
    xs, ys = [0.0, 1.0, 0.5, 1.0, 0.0, 1e-20, 1 - 1e-7], [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.3]
    got = []
    for lib in (loom, torch):
        x = lib.tensor(xs, dtype=lib.float64, requires_grad=True)
        loss = lib.nn.functional.binary_cross_entropy(x, lib.tensor(ys, dtype=lib.float64))
        loss.backward()
        got.append((loss.item(), x.grad.numpy()))
    assert np.isfinite(got[0][1]).all()
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-8)
