"""loom.nn.Module machinery: registration, traversal, modes, dtype conversion, state dicts, hooks, repr."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

import loom
from loom import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 2, bias=False)
        self.scale = nn.Parameter(loom.ones(2))
        self.register_buffer("steps", loom.zeros([], dtype=loom.int64))
        self.register_buffer("cache", loom.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


# ---- Parameter ----
def test_parameter_is_a_leaf_that_requires_grad_and_shares_memory():
    data = loom.zeros(3)
    p = nn.Parameter(data)
    assert isinstance(p, loom.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    data[0] = 5.0
    assert p[0].item() == 5.0   # shares data's memory, as torch.nn.Parameter
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [10.0, 0.0, 0.0])


def test_parameter_cuts_history_and_can_be_frozen():
    x = loom.ones(2, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    q = nn.Parameter(loom.ones(2), requires_grad=False)
    assert not q.requires_grad
    assert not (q * 2).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(loom.zeros(2, dtype=loom.int64))


def test_parameter_repr_copy_and_pickle():
    p = nn.Parameter(loom.tensor([1.0, 2.0]))
    assert repr(p).startswith("Parameter containing:\ntensor([1., 2.]")
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert isinstance(q, nn.Parameter) and q.requires_grad
        q.detach()[0] = 7.0
        assert p[0].item() == 1.0   # a real copy


def test_inplace_on_parameter_needs_no_grad():
    p = nn.Parameter(loom.zeros(2))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        p.add_(1)
    with loom.no_grad():
        p.add_(1)
    assert p.tolist() == [1.0, 1.0] and isinstance(p, nn.Parameter)


def test_frozen_parameter_written_in_place_stays_a_parameter():
    p = nn.Parameter(loom.zeros(2), requires_grad=False)
    y = loom.ones(2, requires_grad=True)
    p.copy_(y * 2)   # recorded: p gets a history, as in PyTorch, but keeps its class
    assert isinstance(p, nn.Parameter) and p.grad_fn is not None
    p.sum().backward()
    assert y.grad.tolist() == [2.0, 2.0]


# ---- registration and traversal ----
def test_registration_and_named_members():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert [n for n, _ in net.named_parameters(prefix="model")][0] == "model.scale"
    assert [n for n, _ in net.named_buffers()] == ["steps", "cache"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert len(list(net.parameters())) == 4 and len(list(net.modules())) == 4
    assert net.get_submodule("fc1") is net.fc1 and net.get_parameter("fc1.bias") is net.fc1.bias
    assert net.get_buffer("steps") is net.steps


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert len(list(seq.named_parameters(remove_duplicate=False))) == 4


def test_setattr_rules():
    net = Net()
    with pytest.raises(TypeError, match="cannot assign 'loom.Tensor' as parameter 'scale'"):
        net.scale = loom.ones(2)
    net.scale = None   # None is allowed and keeps the slot
    assert "scale" in net._parameters and net.scale is None
    with pytest.raises(TypeError, match="as child module 'fc1'"):
        net.fc1 = 3
    with pytest.raises(TypeError, match="as buffer 'steps'"):
        net.steps = 3
    net.steps = loom.ones([])
    assert net.steps.item() == 1.0
    net.extra = nn.Linear(1, 1)   # a module assigned later is registered
    assert "extra" in dict(net.named_children())
    del net.extra
    assert "extra" not in dict(net.named_children())
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'nope'"):
        net.nope


def test_register_errors():
    m = nn.Module()
    with pytest.raises(KeyError, match="contain"):
        m.register_buffer("a.b", loom.zeros(1))
    with pytest.raises(KeyError, match="empty"):
        m.register_parameter("", None)
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("x", 3)
    with pytest.raises(TypeError, match="Parameter or None required"):
        m.register_parameter("w", loom.zeros(1))
    m.plain = 1
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", loom.zeros(1))

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(loom.zeros(1))
    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(1)


# ---- modes, gradients, apply ----
def test_train_eval_propagate():
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(0.5), nn.BatchNorm1d(2)))
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net[1].train(False)
    assert net.training and not net[1][0].training
    with pytest.raises(ValueError, match="boolean"):
        net.train("no")


def test_requires_grad_and_zero_grad():
    net = Net()
    net(loom.randn(5, 4)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    assert not net(loom.randn(5, 4)).requires_grad


def test_apply_visits_children_first():
    seen = []
    net = Net()
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "ReLU", "Linear", "Net"]


def test_to_dtype_keeps_parameter_identity_and_integer_buffers():
    net = Net()
    w = net.fc1.weight
    before = w.numpy().copy()
    net(loom.randn(2, 4)).sum().backward()
    assert net.double() is net
    assert net.fc1.weight is w and isinstance(w, nn.Parameter) and w.requires_grad
    assert w.dtype == loom.float64 and w.grad.dtype == loom.float64
    np.testing.assert_allclose(w.numpy(), before, rtol=1e-6)
    assert net.steps.dtype == loom.int64 and net.cache.dtype == loom.float64
    assert net(loom.randn(2, 4, dtype=loom.float64)).dtype == loom.float64
    net.to(loom.float32)
    assert all(p.dtype == loom.float32 for p in net.parameters())
    net.to(loom.zeros(1, dtype=loom.float64))
    assert all(p.dtype == loom.float64 for p in net.parameters())
    net.float()
    assert w.dtype == loom.float32
    with pytest.raises(TypeError, match="floating point"):
        net.to(loom.int64)


# ---- state dicts ----
def test_state_dict_keys_values_and_detach():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == ["scale", "steps", "fc1.weight", "fc1.bias", "fc2.weight"]   # 'cache' is non-persistent
    assert not sd["fc1.weight"].requires_grad
    assert net.state_dict(keep_vars=True)["fc1.weight"] is net.fc1.weight
    sd["fc1.weight"][0, 0] = 42.0   # detached, not copied: shares memory as in PyTorch
    assert net.fc1.weight[0, 0].item() == 42.0


def test_state_dict_round_trip_with_buffers():
    a, b = Net(), Net()
    with loom.no_grad():
        a.steps.fill_(7)
    res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert repr(res) == "<All keys matched successfully>"
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())
    assert b.steps.item() == 7
    x = loom.randn(3, 4)
    np.testing.assert_allclose(a(x).numpy(), b(x).numpy())


def test_load_state_dict_from_numpy_arrays():
    lin = nn.Linear(3, 2)
    w = np.arange(6, dtype=np.float64).reshape(2, 3)
    lin.load_state_dict({"weight": w, "bias": np.array([1.0, -1.0], dtype=np.float32)})
    assert lin.weight.dtype == loom.float32   # values are converted to the parameter's dtype
    np.testing.assert_array_equal(lin.weight.numpy(), w.astype(np.float32))
    np.testing.assert_array_equal(lin.bias.numpy(), [1.0, -1.0])


def test_load_state_dict_strict_errors():
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"]
    sd["fc1.extra"] = loom.zeros(1)
    sd["other.weight"] = loom.zeros(1)
    with pytest.raises(RuntimeError) as e:
        net.load_state_dict(sd)
    assert str(e.value) == ('Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "fc1.bias". '
                            '\n\tUnexpected key(s) in state_dict: "other.weight", "fc1.extra". ')
    res = net.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["fc1.bias"] and res.unexpected_keys == ["other.weight", "fc1.extra"]


def test_load_state_dict_shape_mismatch_raises_even_when_not_strict():
    lin = nn.Linear(3, 2)
    for strict in (True, False):
        with pytest.raises(RuntimeError, match=r"size mismatch for weight: copying a param with shape "
                                               r"loom.Size\(\[3, 3\]\) from checkpoint, the shape in current model is "
                                               r"loom.Size\(\[2, 3\]\)"):
            lin.load_state_dict({"weight": loom.zeros(3, 3), "bias": loom.zeros(2)}, strict=strict)
    with pytest.raises(TypeError, match="dict-like"):
        lin.load_state_dict([1, 2])
    with pytest.raises(RuntimeError, match="expected loom.Tensor or a NumPy array"):
        lin.load_state_dict({"weight": [[0.0] * 3] * 2, "bias": loom.zeros(2)})


def test_load_state_dict_assign():
    lin = nn.Linear(2, 2)
    w = loom.ones(2, 2)
    lin.load_state_dict({"weight": w, "bias": loom.zeros(2)}, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    w[0, 0] = 3.0
    assert lin.weight[0, 0].item() == 3.0   # assign keeps the given memory


# ---- hooks ----
def test_forward_hooks_and_removal():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: calls.append("pre") or (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append("post") or out + 1)
    out = lin(loom.ones(1, 2))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy()[None] + 1, rtol=1e-6)
    h1.remove()
    h2.remove()
    h2.remove()   # removing twice is harmless
    calls.clear()
    out = lin(loom.ones(1, 2))
    assert calls == []
    with lin.register_forward_hook(lambda m, a, o: calls.append("ctx")):
        lin(loom.ones(1, 2))
    lin(loom.ones(1, 2))
    assert calls == ["ctx"]


def test_hook_order_kwargs_and_always_call():
    order = []
    m = nn.Identity()
    m.register_forward_hook(lambda mod, a, o: order.append(1))
    m.register_forward_hook(lambda mod, a, o: order.append(0), prepend=True)
    m.register_forward_pre_hook(lambda mod, a, kw: (a, kw), with_kwargs=True)
    m.register_forward_hook(lambda mod, a, kw, o: order.append(("kw", kw)), with_kwargs=True)
    m(loom.ones(1))
    assert order == [0, 1, ("kw", {})]

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")
    b, seen = Boom(), []
    b.register_forward_hook(lambda mod, a, o: seen.append(o), always_call=True)
    b.register_forward_hook(lambda mod, a, o: seen.append("never"))
    with pytest.raises(ValueError, match="boom"):
        b(1)
    assert seen == [None]
    bad = nn.Identity()
    bad.register_forward_pre_hook(lambda mod, a, kw: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        bad(1)


# ---- repr ----
def test_nested_repr():
    net = nn.Sequential(OrderedDict([
        ("conv", nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False)),
        ("block", nn.Sequential(nn.BatchNorm2d(8), nn.ReLU(inplace=True))),
        ("pool", nn.AdaptiveAvgPool2d((1, 1))),
        ("flat", nn.Flatten()),
        ("head", nn.Linear(8, 10)),
    ]))
    assert repr(net) == (
        "Sequential(\n"
        "  (conv): Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)\n"
        "  (block): Sequential(\n"
        "    (0): BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)\n"
        "    (1): ReLU(inplace=True)\n"
        "  )\n"
        "  (pool): AdaptiveAvgPool2d(output_size=(1, 1))\n"
        "  (flat): Flatten(start_dim=1, end_dim=-1)\n"
        "  (head): Linear(in_features=8, out_features=10, bias=True)\n"
        ")")


def test_layer_reprs():
    assert repr(nn.MaxPool2d(2)) == "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert repr(nn.AvgPool2d(3, 1, 1)) == "AvgPool2d(kernel_size=3, stride=1, padding=1)"
    assert repr(nn.LayerNorm(4)) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    assert repr(nn.Embedding(10, 3, padding_idx=-1)) == "Embedding(10, 3, padding_idx=9)"
    assert repr(nn.Dropout()) == "Dropout(p=0.5, inplace=False)"
    assert repr(nn.GELU(approximate="tanh")) == "GELU(approximate='tanh')"
    assert repr(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)"
    assert repr(nn.ELU(alpha=0.5, inplace=True)) == "ELU(alpha=0.5, inplace=True)"
    assert repr(nn.Softplus()) == "Softplus(beta=1.0, threshold=20.0)"
    assert repr(nn.Softmax(dim=1)) == "Softmax(dim=1)"
    assert repr(nn.Tanh()) == "Tanh()" and repr(nn.CrossEntropyLoss()) == "CrossEntropyLoss()"
    assert repr(nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])) == (
        "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)")
    assert repr(nn.Conv2d(4, 4, 3, padding="same", groups=2)) == (
        "Conv2d(4, 4, kernel_size=(3, 3), stride=(1, 1), padding=same, groups=2)")


# ---- containers ----
def test_sequential_indexing_and_editing():
    a, b, c = nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1)
    seq = nn.Sequential(a, b, c)
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c and list(seq) == [a, b, c]
    sub = seq[1:]
    assert isinstance(sub, nn.Sequential) and list(sub) == [b, c] and list(dict(sub.named_children())) == ["1", "2"]
    with pytest.raises(IndexError):
        seq[3]
    del seq[1]
    assert list(seq) == [a, c] and list(dict(seq.named_children())) == ["0", "1"]
    seq.append(nn.Tanh())
    seq.insert(0, nn.Identity())
    assert [type(m).__name__ for m in seq] == ["Identity", "Linear", "Linear", "Tanh"]
    seq[0] = b
    assert seq[0] is b
    assert seq(loom.ones(3, 2)).shape == (3, 1)
    named = nn.Sequential(OrderedDict([("first", a), ("second", nn.Tanh())]))
    assert named.first is a and len(named + nn.Sequential(c)) == 3


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(ml) == 3 and len(list(ml.parameters())) == 6
    ml.append(nn.ReLU())
    ml.extend([nn.Tanh()])
    ml += [nn.Sigmoid()]
    assert [type(m).__name__ for m in ml][-3:] == ["ReLU", "Tanh", "Sigmoid"]
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2 and ml[-1] is ml[5]
    ml.insert(0, nn.Identity())
    assert type(ml[0]).__name__ == "Identity" and len(ml) == 7
    del ml[0]
    assert list(dict(ml.named_children())) == [str(i) for i in range(6)]
    with pytest.raises(TypeError, match="iterable"):
        ml.extend(3)
    md = nn.ModuleDict({"enc": nn.Linear(2, 2), "act": nn.ReLU()})
    md["dec"] = nn.Linear(2, 1)
    assert list(md) == ["enc", "act", "dec"] and "act" in md and len(md) == 3
    assert [k for k, _ in md.named_parameters()] == ["enc.weight", "enc.bias", "dec.weight", "dec.bias"]
    assert type(md.pop("act")).__name__ == "ReLU" and list(md.keys()) == ["enc", "dec"]
    md.update([("x", nn.Tanh())])
    assert list(md.values())[-1].__class__.__name__ == "Tanh"
    with pytest.raises(ValueError, match="length"):
        md.update([("a", nn.Tanh(), 3)])


def test_deepcopy_and_pickle_of_a_module():
    net = Net()
    for other in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        assert isinstance(other.fc1.weight, nn.Parameter) and other.fc1.weight is not net.fc1.weight
        x = loom.randn(2, 4)
        np.testing.assert_allclose(other(x).detach().numpy(), net(x).detach().numpy())
        other(x).sum().backward()
        assert net.fc1.weight.grad is None
