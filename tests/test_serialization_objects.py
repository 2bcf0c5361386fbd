"""loom.save of what PyTorch programs save beside tensors: NumPy arrays (stored as payloads) and whole
objects (pickled, loaded only with weights_only=False or allow-listed globals, as torch.load)."""
import io
import json
import os
import pickle
import struct

import numpy as np
import pytest

import loom
from loom import nn
from loom.testing import assert_close
from loom.serialization import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals


def _bytes(obj, **kw):
    buf = io.BytesIO()
    loom.save(obj, buf, **kw)
    return buf.getvalue()


def _load(data, **kw):
    return loom.load(io.BytesIO(data), **kw)


def _version_and_manifest(data):
    _, version, _, length = struct.unpack_from("<8sIIQ", data)
    return version, json.loads(data[24:24 + length])


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.act = nn.ReLU()
        self.register_buffer("scale", loom.full((4,), 2.0))
        self.label = "net"

    def forward(self, x):
        return self.act(self.fc(x)) * self.scale


class Config:
    def __init__(self, lr, tags):
        self.lr, self.tags = lr, tags


class Exploit:
    def __reduce__(self):
        return (os.system, ("echo pwned > loom_pwned.txt",))


@pytest.fixture(autouse=True)
def _no_leftover_globals():
    clear_safe_globals()
    yield
    clear_safe_globals()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int64", "float16",
                                   "float32", "float64", "complex64", "complex128", ">i4", ">f8"])
def test_numpy_arrays_round_trip_as_arrays(dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 5)) * 50).astype(dtype)
    back = _load(_bytes({"a": a, "t": a[:, ::2], "s": np.array(a[0, 0])}))
    for key, want in (("a", a), ("t", a[:, ::2]), ("s", np.array(a[0, 0]))):
        got = back[key]
        assert type(got) is np.ndarray and got.shape == want.shape
        assert got.dtype == want.dtype.newbyteorder("=") and got.flags.writeable
        np.testing.assert_array_equal(got, want)


def test_arrays_need_version_2_and_plain_files_stay_version_1():
    assert _version_and_manifest(_bytes({"w": loom.ones(2)}))[0] == 1
    version, m = _version_and_manifest(_bytes([np.zeros(2)]))
    assert version == 2 and m["tensors"][0]["numpy"] is True and m["tensors"][0]["dtype"] == "<f8"


def test_the_same_array_twice_loads_as_one_object():
    a = np.arange(4)
    x, y = _load(_bytes([a, a]))
    assert x is y


def test_whole_module_needs_weights_only_false():
    net = Net()
    data = _bytes(net)
    with pytest.raises(pickle.UnpicklingError) as info:
        _load(data)
    msg = str(info.value)
    assert "Weights only load failed" in msg and "weights_only" in msg
    assert f"GLOBAL {__name__}.Net was not an allowed global" in msg
    assert "loom.serialization.add_safe_globals" in msg
    back = _load(data, weights_only=False)
    assert type(back) is Net and back.label == "net"
    assert isinstance(back.fc.weight, nn.Parameter) and back.fc.weight.requires_grad
    x = loom.randn(2, 3)
    assert_close(back(x), net(x), rtol=0, atol=0)
    assert_close(back.state_dict(), net.state_dict(), rtol=0, atol=0)
    back(x).sum().backward()   # the loaded parameters are leaves that train
    assert back.fc.weight.grad is not None


def test_allow_listed_classes_load_with_weights_only():
    data = _bytes(Net())
    with safe_globals([Net]):
        with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL loom\.nn\.linear\.Linear"):
            _load(data)
    with safe_globals([Net, nn.Linear, nn.ReLU]):
        assert type(_load(data).fc) is nn.Linear
        assert set(get_safe_globals()) == {Net, nn.Linear, nn.ReLU}
    assert get_safe_globals() == []   # the context manager restores the list
    add_safe_globals([Net, nn.Linear, (nn.ReLU, "loom.nn.activation.ReLU")])
    assert type(_load(data).act) is nn.ReLU
    clear_safe_globals()
    with pytest.raises(pickle.UnpicklingError):
        _load(data)


def test_unsafe_globals_are_listed_without_loading(tmp_path):
    path = tmp_path / "m.loom"
    loom.save({"model": Net(), "cfg": Config(0.1, {"a"})}, path, pickle_protocol=4)
    found = loom.serialization.get_unsafe_globals_in_checkpoint(path)
    assert set(found) == {f"{__name__}.Net", "loom.nn.linear.Linear", "loom.nn.activation.ReLU",
                          f"{__name__}.Config"}
    add_safe_globals([Config])
    assert f"{__name__}.Config" not in loom.serialization.get_unsafe_globals_in_checkpoint(path)


def test_code_in_a_pickle_does_not_run_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = _bytes({"x": Exploit()})
    with pytest.raises(pickle.UnpicklingError, match=r"GLOBAL (posix|nt|os)\.system"):
        _load(data)
    assert not (tmp_path / "loom_pwned.txt").exists()


def test_tensors_inside_and_outside_a_pickle_stay_one_object():
    w = loom.randn(3)
    cfg = Config(w, ["x"])
    back = _load(_bytes({"w": w, "cfg": cfg, "arr": np.ones(2)}), weights_only=False)
    assert back["cfg"].lr is back["w"]
    assert back["cfg"].tags == ["x"]
    _, m = _version_and_manifest(_bytes({"w": w, "cfg": cfg}))
    assert len(m["tensors"]) == 1   # stored once, as a payload, not inside the pickle


def test_plain_python_values_that_json_lacks_load_by_default():
    obj = {"s": {1, 2}, "f": frozenset("ab"), "c": 1 + 2j, "r": range(3), "sl": slice(1, 5, 2),
           "dev": loom.device("cpu"), "mf": loom.channels_last}
    assert _load(_bytes(obj)) == obj


def test_map_location_reaches_tensors_in_a_pickle():
    seen = []

    def where(t, saved):
        seen.append(saved)
        return t.double()

    back = _load(_bytes(Net()), weights_only=False, map_location=where)
    assert back.fc.weight.dtype == loom.float64 and seen == ["cpu"] * 3


def test_pickle_module_and_argument_errors():
    data = _bytes(Config(1, 2), pickle_module=pickle, pickle_protocol=5)
    assert _load(data, pickle_module=pickle).lr == 1   # an explicit pickle_module implies weights_only=False
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module"):
        _load(data, pickle_module=pickle, weights_only=True)
    with pytest.raises(TypeError, match="tuple entry must be"):
        add_safe_globals([(Config,)])
    with pytest.raises(TypeError, match="expected classes or functions"):
        add_safe_globals([3])
    with pytest.raises(TypeError, match=r"cannot save the Config at obj\[0\]"):
        loom.save([Config(lambda: 0, None)], io.BytesIO())
