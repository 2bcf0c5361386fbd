"""loom.save / loom.load: exact round trips, and clear errors for files that are not what they claim."""
import io
import json
import struct
import zlib
from collections import OrderedDict

import numpy as np
import pytest

import loom
from loom.serialization import FORMAT_VERSION, MAGIC, SerializationError


def _round_trip(obj):
    buf = io.BytesIO()
    loom.save(obj, buf)
    buf.seek(0)
    return loom.load(buf)


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float32", "float64"])
def test_every_dtype(dtype):
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((3, 5)) * 100).astype(loom.__dict__[dtype + ("_" if dtype == "bool" else "")].numpy)
    t = loom.tensor(a)
    _same(_round_trip(t), t)


def test_special_floats_and_shapes():
    t = loom.tensor([np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4e38], dtype=loom.float32)
    back = _round_trip(t)
    assert back.numpy().tobytes() == t.numpy().tobytes()   # bit for bit, NaN payload and -0.0 included
    for shape in [(), (0,), (2, 0, 3), (1, 1, 1, 1)]:
        z = loom.ones(shape, dtype=loom.int32)
        _same(_round_trip(z), z)


def test_views_and_non_contiguous_are_saved_as_their_values():
    base = loom.tensor(np.arange(24, dtype=np.float32).reshape(4, 6))
    parts = {"T": base.T, "col": base[:, 2], "step": base[::2, 1::3], "narrow": base.narrow(1, 2, 3),
             "expanded": loom.tensor([1.0, 2.0]).expand((3, 2))}
    back = _round_trip(parts)
    for k, v in parts.items():
        _same(back[k], v)
        assert back[k].is_contiguous()
    back["col"].fill_(-1)   # no storage shared with the others
    assert back["T"].numpy().min() == 0


def test_nested_containers_keep_types_and_order():
    t = loom.randn(2, 2)
    obj = OrderedDict([("z", 1), ("a", [t, (2, 3.5, None, True, "x"), {"n": {"deep": [t]}}]),
                       (7, b"\x00\xffbytes"), ((1, "k"), float("-inf")), ("dt", loom.int64), ("big", 2 ** 80)])
    back = _round_trip(obj)
    assert type(back) is OrderedDict and list(back) == list(obj)
    assert back["a"][1] == (2, 3.5, None, True, "x") and type(back["a"][1]) is tuple
    assert back[7] == b"\x00\xffbytes" and back[(1, "k")] == float("-inf")
    assert back["dt"] is loom.int64 and back["big"] == 2 ** 80
    assert type(back["z"]) is int and type(back["a"][1][2]) is type(None)
    assert isinstance(back["a"][1][3], bool)
    _same(back["a"][0], t)
    assert back["a"][0] is back["a"][2]["n"]["deep"][0]   # the same tensor object loads as one object
    assert list(_round_trip({"b": 1, "a": 2})) == ["b", "a"]
    assert _round_trip(None) is None and _round_trip([]) == [] and _round_trip(3.25) == 3.25


def test_requires_grad_is_kept():
    w = loom.randn(3, requires_grad=True)
    back = _round_trip({"w": w, "g": (w * 2).detach()})
    assert back["w"].requires_grad and back["w"].is_leaf and not back["g"].requires_grad


def test_paths_and_files(tmp_path):
    obj = {"x": loom.arange(10)}
    path = tmp_path / "m.loom"
    loom.save(obj, path)
    _same(loom.load(path)["x"], obj["x"])
    loom.save(obj, str(path))   # overwrite through a str path
    with open(path, "rb") as f:
        _same(loom.load(f)["x"], obj["x"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.loom"]   # no temporary left behind


def test_unsupported_objects_raise_type_error():
    with pytest.raises(TypeError, match=r"cannot save the function at obj\['f'\]"):
        loom.save({"f": lambda: 1}, io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="circular"):
        loom.save(loop, io.BytesIO())
    with pytest.raises(TypeError, match="path or a binary file object"):
        loom.load(42)


# ---------------------------------------------------------------- damaged files
def _saved_bytes():
    buf = io.BytesIO()
    loom.save({"w": loom.arange(100, dtype=loom.float32), "b": loom.ones(3)}, buf)
    return buf.getvalue()


def _load_bytes(data):
    return loom.load(io.BytesIO(data))


def test_truncated_anywhere_is_a_clear_error():
    data = _saved_bytes()
    for cut in sorted({0, 3, 10, 30, len(data) // 2, len(data) - 1} | set(range(len(data) - 20, len(data)))):
        with pytest.raises(SerializationError, match="empty|truncated") as e:
            _load_bytes(data[:cut])
        assert isinstance(e.value, RuntimeError)


def test_truncated_file_error_names_the_file(tmp_path):
    path = tmp_path / "cut.loom"
    path.write_bytes(_saved_bytes()[:-5])
    with pytest.raises(SerializationError, match=f"{path}.*truncated.*tensor 1 \\(obj\\['b'\\]\\)"):
        loom.load(path)


def test_corrupted_bytes_fail_their_checksum():
    data = bytearray(_saved_bytes())
    header_len = struct.calcsize("<8sIIQ")
    damaged = bytearray(data)
    damaged[header_len + 5] ^= 0x20   # inside the manifest
    with pytest.raises(SerializationError, match="manifest is corrupted"):
        _load_bytes(bytes(damaged))
    damaged = bytearray(data)
    damaged[-2] ^= 0x01   # inside the last tensor's payload
    with pytest.raises(SerializationError, match=r"data of tensor 1 \(obj\['b'\]\) is corrupted"):
        _load_bytes(bytes(damaged))


def test_garbage_and_foreign_files():
    with pytest.raises(SerializationError, match="not a file written by loom.save"):
        _load_bytes(b"hello, this is just some text that is long enough")
    with pytest.raises(SerializationError, match="zip archive"):
        _load_bytes(b"PK\x03\x04" + b"\0" * 60)
    with pytest.raises(SerializationError, match="empty"):
        _load_bytes(b"")
    rng = np.random.default_rng(0)
    for _ in range(20):
        junk = MAGIC + rng.integers(0, 256, 200, dtype=np.uint8).tobytes()
        with pytest.raises(SerializationError):
            _load_bytes(junk)


def _with_header(data, version=None, manifest=None):
    magic, v, crc, length = struct.unpack_from("<8sIIQ", data)
    header_len = struct.calcsize("<8sIIQ")
    body = data[header_len + length:]
    if manifest is None:
        manifest = data[header_len:header_len + length]
    else:
        body = body[(-(header_len + length)) % 64:]
        manifest = manifest.encode()
        body = b"\0" * ((-(header_len + len(manifest))) % 64) + body
    return struct.pack("<8sIIQ", magic, v if version is None else version, zlib.crc32(manifest),
                       len(manifest)) + manifest + body


def test_newer_and_unknown_versions():
    data = _saved_bytes()
    with pytest.raises(SerializationError, match=f"format version {FORMAT_VERSION + 1}, newer than this loom"):
        _load_bytes(_with_header(data, version=FORMAT_VERSION + 1))
    with pytest.raises(SerializationError, match="unknown format version 0"):
        _load_bytes(_with_header(data, version=0))


def test_well_formed_but_invalid_manifests():
    data = _saved_bytes()
    header_len = struct.calcsize("<8sIIQ")
    length = struct.unpack_from("<8sIIQ", data)[3]
    m = json.loads(data[header_len:header_len + length])
    bad = dict(m, tensors=[dict(m["tensors"][0], dtype="complex64")] + m["tensors"][1:])
    with pytest.raises(SerializationError, match="entry for tensor 0 is invalid"):
        _load_bytes(_with_header(data, manifest=json.dumps(bad)))
    bad = dict(m, root={"pickle": "os.system"})
    with pytest.raises(SerializationError, match="invalid 'pickle' value"):
        _load_bytes(_with_header(data, manifest=json.dumps(bad)))
    bad = dict(m, root={"pickled": "x"})
    with pytest.raises(SerializationError, match="unknown value tag 'pickled'"):
        _load_bytes(_with_header(data, manifest=json.dumps(bad)))
    bad = dict(m, root={"tensor": 99})
    with pytest.raises(SerializationError, match="invalid 'tensor' value"):
        _load_bytes(_with_header(data, manifest=json.dumps(bad)))
    with pytest.raises(SerializationError, match="manifest is not valid"):
        _load_bytes(_with_header(data, manifest="[1, 2"))
