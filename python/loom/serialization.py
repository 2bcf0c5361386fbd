"""loom.save / loom.load: a versioned, pickle-free file format (described in docs/serialization.md).

    header    8-byte magic, uint32 format version, uint32 CRC-32 of the manifest,
              uint64 manifest length (all little-endian)
    manifest  UTF-8 JSON: the object tree with tensors replaced by {"tensor": i},
              and per tensor its dtype, shape, offset, byte count and CRC-32
    data      each tensor's values, C order, little-endian, at 64-byte aligned offsets

Loading never runs code from the file: it decodes JSON and copies bytes, so a
file from an untrusted source can at worst fail with a SerializationError."""
import base64
import json
import math
import os
import pickle
import struct
import zlib
from collections import OrderedDict

import numpy as np

from . import _pickled, cuda
from ._dtype import BY_CODE, dtype as _dtype_cls
from ._numpy import from_numpy
from ._pickled import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from ._tensor import Tensor, _RawView
from .nn.parameter import Parameter

__all__ = ["save", "load", "SerializationError", "FORMAT_VERSION", "add_safe_globals", "clear_safe_globals",
           "get_safe_globals", "safe_globals", "get_unsafe_globals_in_checkpoint"]

MAGIC = b"\x89LOOM\r\n\x1a"
FORMAT_VERSION = 2
_HEADER = struct.Struct("<8sIIQ")
_ALIGN = 64
_DTYPES = {d.name: d for d in BY_CODE}
_CHUNK = 1 << 24


class SerializationError(RuntimeError):
    """A file that loom.load cannot read: not a loom file, a newer format, truncated or corrupted."""


# ---------------------------------------------------------------- encoding
def _is_array(x):
    """A NumPy array loom stores as a payload: numbers and booleans (object and string arrays are pickled)."""
    return isinstance(x, np.ndarray) and x.dtype.kind in "biufc" and not x.dtype.fields


class _Encoder:
    """The manifest's object tree; tensors and arrays go to self.table, what JSON cannot say to a pickle."""

    def __init__(self, pickle_module, protocol):
        self.table, self.memo, self.active = [], {}, set()
        self.pickle_module, self.protocol, self.pickled = pickle_module, protocol, False

    def ref(self, x, path="obj (pickled)"):
        if not (isinstance(x, Tensor) or _is_array(x)):
            return None
        i = self.memo.get(id(x))
        if i is None:   # the same object twice is stored once and loads as one object
            i = self.memo[id(x)] = len(self.table)
            self.table.append((x, path))
        return i

    def __call__(self, x, path):
        if x is None or isinstance(x, (bool, str)):
            return x
        if isinstance(x, (int, np.integer)) and not isinstance(x, np.bool_):
            return int(x)
        if isinstance(x, (float, np.floating)):
            x = float(x)
            return x if math.isfinite(x) else {"float": repr(x)}
        if isinstance(x, np.bool_):
            return bool(x)
        if isinstance(x, Tensor):
            return {"tensor": self.ref(x, path)}
        if _is_array(x):
            return {"ndarray": self.ref(x, path)}
        if isinstance(x, _dtype_cls):
            return {"dtype": x.name}
        if isinstance(x, bytes):
            return {"bytes": base64.b64encode(x).decode("ascii")}
        if isinstance(x, (list, tuple, dict)):
            return self.container(x, path)
        return self.pickle(x, path)

    def container(self, x, path):
        if id(x) in self.active:
            raise ValueError(f"loom.save(): {path} contains itself; circular references cannot be saved")
        self.active.add(id(x))
        try:
            if isinstance(x, dict):
                items = [[self(k, f"{path} (a key)"), self(v, f"{path}[{k!r}]")] for k, v in x.items()]
                return {"odict" if isinstance(x, OrderedDict) else "dict": items}
            values = [self(v, f"{path}[{i}]") for i, v in enumerate(x)]
            return values if isinstance(x, list) else {"tuple": values}
        finally:
            self.active.discard(id(x))

    def pickle(self, x, path):
        try:
            data = _pickled.dumps(x, self.ref, self.protocol, self.pickle_module)
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            raise TypeError(f"loom.save(): cannot save the {type(x).__name__} at {path}: {err}") from err
        self.pickled = True
        return {"pickle": base64.b64encode(data).decode("ascii")}


def _array_of(t):
    """t's values as a C-contiguous little-endian NumPy array (views and strided tensors are copied)."""
    if isinstance(t, np.ndarray):
        a = t
    elif t.device.type != "cpu":
        t = t.to("cpu")
    if not isinstance(t, np.ndarray):
        a = np.asarray(_RawView(t.detach()))   # bfloat16 as the uint16 holding it
    if not a.flags.c_contiguous:
        a = a.copy(order="C")   # (np.ascontiguousarray would turn a 0-d array into 1-d)
    if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and not np.little_endian):
        a = a.astype(a.dtype.newbyteorder("<"))
    return a


def _pad(n):
    return -n % _ALIGN


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save obj to a path or a binary file object. Tensors, NumPy arrays, dicts, lists, tuples, numbers,
    strings, bytes, None and dtypes are written pickle-free; any other object (a whole nn.Module, a
    user's class) is pickled, with its tensors and arrays still stored as payloads, and loads only with
    weights_only=False or its classes in loom.serialization.safe_globals. Tensors are stored by value:
    views and non-contiguous tensors as their elements, tensors sharing storage as separate copies."""
    enc = _Encoder(pickle_module, pickle_protocol)
    root = enc(obj, "obj")
    arrays, entries, offset = [], [], 0
    for t, path in enc.table:
        a = _array_of(t)
        raw = a.reshape(-1).view(np.uint8)
        offset += _pad(offset)
        entry = {"dtype": a.dtype.str if isinstance(t, np.ndarray) else t.dtype.name, "shape": list(a.shape),
                 "offset": offset, "nbytes": raw.size, "crc32": zlib.crc32(raw), "path": path}
        if isinstance(t, np.ndarray):
            entry["numpy"] = True
        else:
            if getattr(t, "requires_grad", False):
                entry["requires_grad"] = True
            if type(t).__name__ == "Parameter":
                entry["parameter"] = True
            if t.device.type != "cpu":   # loaded back onto it unless map_location says otherwise
                entry["device"] = str(t.device)
        entries.append(entry)
        arrays.append(raw)
        offset += raw.size
    # version 1 readers can read a file without arrays or pickles: it is written as version 1
    version = FORMAT_VERSION if enc.pickled or any(e.get("numpy") for e in entries) else 1
    manifest = json.dumps({"root": root, "tensors": entries, "data_bytes": offset},
                          separators=(",", ":"), allow_nan=False).encode("utf-8")
    header = _HEADER.pack(MAGIC, version, zlib.crc32(manifest), len(manifest))

    def write(out):
        out.write(header)
        out.write(manifest)
        out.write(b"\0" * _pad(len(header) + len(manifest)))
        pos = 0
        for e, raw in zip(entries, arrays):
            out.write(b"\0" * (e["offset"] - pos))
            out.write(memoryview(raw))
            pos = e["offset"] + e["nbytes"]

    if isinstance(f, (str, os.PathLike)):
        # written beside the target and renamed, so a failed save leaves any previous file intact
        tmp = f"{os.fspath(f)}.tmp{os.getpid()}"
        try:
            with open(tmp, "wb") as out:
                write(out)
            os.replace(tmp, f)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    elif hasattr(f, "write"):
        write(f)
    else:
        raise TypeError(f"loom.save(): expected a path or a binary file object, got {type(f).__name__}")


# ---------------------------------------------------------------- decoding
class _Reader:
    def __init__(self, f, name):
        self.f, self.name, self.pos = f, name, 0

    def fail(self, what):
        raise SerializationError(f"loom.load(): {self.name}: {what}")

    def into(self, buf):
        """Fill buf from the file; returns the number of bytes read (short only at end of file)."""
        mv, got = memoryview(buf).cast("B"), 0
        readinto = getattr(self.f, "readinto", None)
        while got < len(mv):
            if readinto is not None:
                n = readinto(mv[got:got + _CHUNK])
            else:
                data = self.f.read(min(_CHUNK, len(mv) - got))
                n = len(data)
                mv[got:got + n] = data
            if not n:
                break
            got += n
        self.pos += got
        return got

    def exact(self, n, what):
        buf = bytearray()
        while len(buf) < n:   # grown chunk by chunk: a corrupted length must not allocate it up front
            chunk = self.f.read(min(_CHUNK, n - len(buf)))
            if not chunk:
                break
            buf += chunk
        got = len(buf)
        self.pos += got
        if got < n:
            self.fail(f"the file is truncated: {what} needs {n} bytes at offset {self.pos - got}, "
                      f"but only {got} remain")
        return bytes(buf)


def _read_header(r):
    head = bytearray(_HEADER.size)
    got = r.into(head)
    if got == 0:
        r.fail("the file is empty, not a file written by loom.save")
    if head[:min(got, len(MAGIC))] != MAGIC[:got]:
        hint = (" (it looks like a zip archive, such as a file from torch.save)" if head.startswith(b"PK\x03\x04")
                else "")
        r.fail(f"not a file written by loom.save: the magic bytes are wrong{hint}")
    if got < _HEADER.size:
        r.fail(f"the file is truncated: the header needs {_HEADER.size} bytes, only {got} are there")
    _, version, crc, length = _HEADER.unpack(head)
    if version > FORMAT_VERSION:
        r.fail(f"the file uses format version {version}, newer than this loom reads (up to version "
               f"{FORMAT_VERSION}); upgrade loom to load it")
    if version < 1:
        r.fail(f"unknown format version {version}")
    return crc, length


def _check_entry(r, i, e, data_bytes):
    try:
        dt = _numpy_dtype(e["dtype"]) if e.get("numpy") else _DTYPES[e["dtype"]]
        shape = [int(s) for s in e["shape"]]
        offset, nbytes = int(e["offset"]), int(e["nbytes"])
        if any(s < 0 for s in shape) or nbytes != math.prod(shape) * dt.itemsize:
            raise ValueError("shape and byte count disagree")
        if offset < 0 or offset % _ALIGN or offset + nbytes > data_bytes:
            raise ValueError("offset out of range")
        int(e["crc32"])
    except (KeyError, TypeError, ValueError) as err:
        r.fail(f"the manifest's entry for tensor {i} is invalid ({err!s})")
    return dt, shape, offset, nbytes


def _numpy_dtype(s):
    dt = np.dtype(str(s))
    if dt.kind not in "biufc" or dt.fields:
        raise ValueError(f"{s!r} is not a numeric NumPy dtype")
    return dt


def _read_tensors(r, entries, data_bytes):
    out, pos = [], 0
    for i, e in enumerate(entries):
        dt, shape, offset, nbytes = _check_entry(r, i, e, data_bytes)
        if offset < pos:
            r.fail(f"the manifest's entry for tensor {i} overlaps the previous tensor")
        where = f"tensor {i} ({e.get('path', '?')})"
        r.exact(offset - pos, f"the padding before {where}")
        a = np.empty(shape, dtype=(dt if e.get("numpy") else dt.raw).newbyteorder("<"))
        raw = a.reshape(-1).view(np.uint8)
        got = r.into(raw)
        if got < nbytes:
            r.fail(f"the file is truncated: {where} needs {nbytes} bytes of data, but only {got} remain")
        if zlib.crc32(raw) != e["crc32"]:
            r.fail(f"the data of {where} is corrupted (checksum mismatch)")
        pos = offset + nbytes
        if not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        if e.get("numpy"):
            out.append(a)
            continue
        t = from_numpy(a, _as=dt)
        if e.get("parameter") or e.get("requires_grad"):
            t = _as_parameter(t) if e.get("parameter") else t.requires_grad_(True)
        out.append(t)
    if pos < data_bytes:
        r.exact(data_bytes - pos, "the end of the data section")
    return out


def _as_parameter(t):
    return Parameter(t)


def _decode(x, tensors, r, weights_only):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, list):
        return [_decode(v, tensors, r, weights_only) for v in x]
    if isinstance(x, dict) and len(x) == 1:
        (tag, v), = x.items()
        try:
            if tag in ("tensor", "ndarray"):
                if isinstance(tensors[v], np.ndarray) != (tag == "ndarray"):
                    raise TypeError(f"entry {v} is not a {tag}")
                return tensors[v]
            if tag in ("dict", "odict"):
                pairs = ((_hashable(_decode(k, tensors, r, weights_only)), _decode(val, tensors, r, weights_only))
                         for k, val in v)
                return OrderedDict(pairs) if tag == "odict" else dict(pairs)
            if tag == "tuple":
                return tuple(_decode(e, tensors, r, weights_only) for e in v)
            if tag == "float":
                return float(v)
            if tag == "bytes":
                return base64.b64decode(v, validate=True)
            if tag == "dtype":
                return _DTYPES[v]
            if tag == "pickle":
                data = base64.b64decode(v, validate=True)
        except (KeyError, IndexError, TypeError, ValueError) as err:
            r.fail(f"the manifest holds an invalid {tag!r} value ({err!s})")
        if tag == "pickle":   # outside the try: an object's own errors while unpickling are its own
            return _pickled.loads(data, tensors, weights_only)
        r.fail(f"the manifest holds an unknown value tag {tag!r}")
    r.fail(f"the manifest holds an unexpected value of type {type(x).__name__}")


def _hashable(k):
    return tuple(_hashable(e) for e in k) if isinstance(k, list) else k


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by loom.save from a path or a binary file object. map_location, if given,
    moves every tensor to that device. Whole objects pickled by loom.save load only with
    weights_only=False (trusted files: it runs the pickle) or with their classes allow-listed through
    loom.serialization.add_safe_globals / safe_globals; everything else never runs code from the file.
    Raises SerializationError (a RuntimeError) for a file that is not a loom file, comes from a newer
    format version, is truncated or corrupted."""
    if mmap:
        raise NotImplementedError("loom.load(): mmap=True is not supported")
    if pickle_module is not None:
        if weights_only:
            raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
        weights_only = False
    weights_only = weights_only is None or bool(weights_only)
    return _opened(f, "loom.load()", lambda r: _load(r, map_location, weights_only))


def _read_manifest(r):
    crc, length = _read_header(r)
    try:
        size = os.fstat(r.f.fileno()).st_size
    except (AttributeError, OSError, ValueError):   # no file descriptor (BytesIO, sockets, ...)
        size = None
    if size is not None and length > size - _HEADER.size:
        r.fail(f"the file is truncated: the manifest needs {length} bytes, but only "
               f"{max(size - _HEADER.size, 0)} follow the header")
    manifest = r.exact(length, "the manifest")
    if zlib.crc32(manifest) != crc:
        r.fail("the manifest is corrupted (checksum mismatch)")
    try:
        m = json.loads(manifest.decode("utf-8"))
        m["root"], int(m["data_bytes"])
        if not isinstance(m["tensors"], list):
            raise TypeError("'tensors' is not a list")
    except (ValueError, KeyError, TypeError) as err:
        r.fail(f"the manifest is not valid ({err!s})")
    return m, length


def _opened(f, what, fn):
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fn(_Reader(fh, os.fspath(f)))
    if not hasattr(f, "read"):
        raise TypeError(f"{what}: expected a path or a binary file object, got {type(f).__name__}")
    return fn(_Reader(f, str(getattr(f, "name", "<file object>"))))


def _load(r, map_location, weights_only):
    m, length = _read_manifest(r)
    root, entries, data_bytes = m["root"], m["tensors"], int(m["data_bytes"])
    r.exact(_pad(_HEADER.size + length), "the padding after the manifest")
    tensors = _read_tensors(r, entries, data_bytes)
    saved = [str(e.get("device", "cpu")) if isinstance(e, dict) else "cpu" for e in entries]
    tensors = [t if isinstance(t, np.ndarray) else _move(t, where, map_location) for t, where in zip(tensors, saved)]
    return _decode(root, tensors, r, weights_only)


def _move(t, where, map_location):
    """A loaded (CPU) tensor saved from device `where`, placed as map_location says, as torch.load."""
    if callable(map_location):
        moved = map_location(t, where)
        return t if moved is None else moved
    if isinstance(map_location, dict):
        target = map_location.get(where, where)
    else:
        target = where if map_location is None else str(map_location)
    if str(target).startswith("cuda") and map_location is None:
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but loom.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use loom.load with "
                               "map_location='cpu' to map your storages to the CPU.")
    return t if str(target) == "cpu" else t.to(target)


def get_unsafe_globals_in_checkpoint(f):
    """The globals named by the whole objects pickled in a loom file that a weights_only load would
    refuse now (neither loom's defaults nor added with add_safe_globals), without constructing any."""
    found = []

    def walk(x):
        if isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for tag, v in x.items():
                if tag == "pickle" and isinstance(v, str):
                    _pickled.unsafe_globals(base64.b64decode(v, validate=True), found)
                else:
                    walk(v)

    walk(_opened(f, "get_unsafe_globals_in_checkpoint()", _read_manifest)[0]["root"])
    return list(dict.fromkeys(found))
