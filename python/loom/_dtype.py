"""dtype and device objects, and their mapping to C codes and NumPy. The dtypes
come from the generated table (dtypes.yaml, through loom/_dtype_table.py)."""
import numpy as np

from ._dtype_table import DTYPES as _TABLE


class dtype:
    __slots__ = ("name", "code", "itemsize", "is_floating_point", "is_complex", "differentiable", "is_signed", "numpy", "category",
                 "dlpack", "raw", "typestr", "raw_typestr", "scalar_type")

    def __init__(self, name, code, category, itemsize, np_name, dlpack, signed, scalar_type):
        # numpy: NumPy's dtype, None where NumPy has none (bfloat16); raw: what holds the bytes
        self.numpy = None if np_name == "none" else np.dtype(np_name)
        self.raw = self.numpy if self.numpy is not None else np.dtype(f"uint{itemsize * 8}")
        # the array interface's typestr, kept: np.dtype.str is computed at each read
        self.typestr, self.raw_typestr = self.numpy.str if self.numpy is not None else None, self.raw.str
        self.name, self.code, self.category = name, code, category
        self.scalar_type = scalar_type   # PyTorch's ScalarType name, as its messages say it ("Float")
        self.itemsize, self.dlpack = itemsize, dlpack
        self.is_floating_point = category == "floating"
        self.is_complex = category == "complex"
        self.differentiable = category in ("floating", "complex")   # may require grad
        self.is_signed = signed and category != "bool"

    def __repr__(self):
        return f"loom.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


BY_CODE = tuple(dtype(name, code, cat, size, np_name, dl, signed, torch)
                for name, code, cat, size, np_name, dl, _aliases, signed, torch in _TABLE)
# every name and alias (loom.float32, loom.float, loom.bool_), for the package face
NAMES = {n: d for d, row in zip(BY_CODE, _TABLE) for n in (row[0], *row[6])}
BY_NAME = {d.name: d for d in BY_CODE}
bool_, uint8, int32, int64, float32, float64 = (BY_NAME[n] for n in ("bool", "uint8", "int32", "int64", "float32",
                                                                      "float64"))
FROM_NUMPY = {d.numpy: d for d in BY_CODE if d.numpy is not None}
# Python types as dtypes, as torch.zeros(2, dtype=float) allows
FROM_PYTHON = {bool: bool_, int: int64, float: float64, complex: BY_NAME["complex128"]}


def complex_of(d):
    """The complex dtype a floating one pairs with (float64: complex128; the rest: complex64),
    as PyTorch's default complex dtype follows the default float."""
    return BY_NAME["complex128" if d.itemsize == 8 else "complex64"]


def _by_name(name):
    return BY_NAME[name]


def from_numpy_dtype(npdt):
    d = FROM_NUMPY.get(np.dtype(npdt))
    if d is None:
        names = ", ".join(x.name for x in BY_CODE)
        raise TypeError(f"loom has no dtype for NumPy's {np.dtype(npdt)} (supported: {names})")
    return d


# the devices of the enclosing `with loom.device(...):` blocks, innermost last: where factories
# given no device= make their tensors
default_devices = []


class device:
    __slots__ = ("type", "index", "code")

    def __init__(self, spec, index=None):
        if isinstance(spec, device):
            spec, index = spec.type, spec.index
        if not isinstance(spec, str):
            raise TypeError(f"device() expects a string like 'cpu' or 'cuda:0', not {type(spec).__name__}")
        kind, _, idx = spec.partition(":")
        if kind not in ("cpu", "cuda", "meta"):
            raise RuntimeError(f"Expected one of cpu, cuda, meta device type at start of device string: {spec}")
        if idx:
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{spec}'")
            index = int(idx)
        # code: the C device (meta has none: its tensors have no handle, see _meta)
        self.type, self.index, self.code = kind, index, {"cpu": 0, "cuda": 1, "meta": -2}[kind]

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index or 0) == (other.type, other.index or 0)

    def __hash__(self):
        return hash((self.type, self.index or 0))

    def __enter__(self):
        """`with loom.device("meta"):` factories given no device= (and so layers built inside) make their
        tensors on this device, as PyTorch's device context manager."""
        default_devices.append(self)
        return self

    def __exit__(self, *exc):
        default_devices.pop()

    def __repr__(self):
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self):
        return self.type + (f":{self.index}" if self.index is not None else "")


CPU = device("cpu")
DEVICES = (CPU, device("cuda", 0))
