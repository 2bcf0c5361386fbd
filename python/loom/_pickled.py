"""Whole objects inside a loom file: a pickle whose tensors and arrays stay in loom's own tables.

loom.save pickles only what its JSON manifest cannot say (an nn.Module, a user's class); the
tensors and NumPy arrays such an object holds are written as ordinary payloads and referenced
from the pickle by index, so the pickle carries structure, not data. Loading a pickle is opt-in,
as PyTorch's weights_only: by default only allow-listed globals may be constructed
(add_safe_globals / safe_globals); weights_only=False unpickles anything, for trusted files."""
import _compat_pickle
import collections
import contextlib
import io
import pickle
import pickletools

from . import _dtype, _memory_format

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "safe_globals"]

# What any checkpoint may name: plain containers and loom's own value types
_DEFAULT = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
    ("builtins", "slice"): slice, ("builtins", "range"): range, ("builtins", "bytearray"): bytearray,
    ("loom._dtype", "_by_name"): _dtype._by_name, ("loom._dtype", "device"): _dtype.device,
}
_DEFAULT.update({("loom._memory_format", f.name): f for f in (
    _memory_format.contiguous_format, _memory_format.channels_last, _memory_format.channels_last_3d,
    _memory_format.preserve_format)})
_user = {}


def _key(entry):
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError("add_safe_globals(): a tuple entry must be (object, 'module.qualname'), got "
                            f"{entry!r}")
        obj, name = entry
        module, _, qual = name.rpartition(".")
        return (module, qual), obj
    module, qual = getattr(entry, "__module__", None), getattr(entry, "__qualname__", None)
    if not module or not qual:
        raise TypeError(f"add_safe_globals(): expected classes or functions, got {entry!r}")
    return (module, qual), entry


def add_safe_globals(safe_globals):
    """Allow these classes/functions (or (object, "module.name") pairs) in weights_only loads."""
    for entry in safe_globals:
        k, obj = _key(entry)
        _user[k] = obj


def get_safe_globals():
    """The globals added with add_safe_globals, in the form they were given."""
    return list(_user.values())


def clear_safe_globals():
    _user.clear()


@contextlib.contextmanager
def safe_globals(globals_list):
    """Allow these globals in weights_only loads inside the with-block only."""
    saved = dict(_user)
    add_safe_globals(globals_list)
    try:
        yield
    finally:
        _user.clear()
        _user.update(saved)


def _canonical(module, name):
    """Python 3's name for a global a protocol-2 pickle spells the Python 2 way (__builtin__.set)."""
    if (module, name) in _compat_pickle.NAME_MAPPING:
        return _compat_pickle.NAME_MAPPING[(module, name)]
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


def _allowed(module, name):
    k = _canonical(module, name)
    return _user.get(k) or _DEFAULT.get(k)


def _dotted(k):
    return f"{k[0]}.{k[1]}"


class _Pickler(pickle.Pickler):
    def __init__(self, buf, protocol, ref):
        super().__init__(buf, protocol=protocol)
        self._ref = ref

    def persistent_id(self, obj):
        return self._ref(obj)


def dumps(obj, ref, protocol=2, pickle_module=pickle):
    """obj pickled; ref(x) returns the table index for a tensor or array x, None for anything else."""
    buf = io.BytesIO()
    pickler = (_Pickler(buf, protocol, ref) if pickle_module is pickle
               else _custom_pickler(pickle_module, buf, protocol, ref))
    pickler.dump(obj)
    return buf.getvalue()


def _custom_pickler(pickle_module, buf, protocol, ref):
    pickler = pickle_module.Pickler(buf, protocol=protocol)
    pickler.persistent_id = ref
    return pickler


_ADVICE = ("Weights only load failed. This file can still be loaded, to do so you have two options, do those "
           "steps only if you trust the source of the checkpoint.\n\t(1) Re-running `loom.load` with "
           "`weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution. "
           "Do it only if you got the file from a trusted source.\n\t(2) Alternatively, to load with "
           "`weights_only=True` please check the recommended steps in the following error message.\n\t"
           "WeightsUnpickler error: ")


class _Unpickler(pickle.Unpickler):
    def __init__(self, data, table, restricted):
        super().__init__(io.BytesIO(data))
        self._table, self._restricted = table, restricted

    def persistent_load(self, pid):
        if not isinstance(pid, int) or not 0 <= pid < len(self._table):
            raise pickle.UnpicklingError(f"the pickle refers to tensor {pid!r}, which the file does not hold")
        return self._table[pid]

    def find_class(self, module, name):
        if not self._restricted:
            return super().find_class(module, name)
        obj = _allowed(module, name)
        if obj is None:
            g = _dotted(_canonical(module, name))
            raise pickle.UnpicklingError(
                _ADVICE + f"Unsupported global: GLOBAL {g} was not an allowed global by default. Please use "
                f"`loom.serialization.add_safe_globals([{g}])` or the `loom.serialization.safe_globals([{g}])` "
                "context manager to allowlist this global if you trust this class/function.")
        return obj


def loads(data, table, weights_only):
    """The object pickled in data; its tensors and arrays are table's entries."""
    return _Unpickler(data, table, restricted=weights_only).load()


def unsafe_globals(data, found):
    """Add to found the globals data's pickle names that a weights_only load would refuse, read from its
    opcodes (nothing is constructed). STACK_GLOBAL takes its names from the two strings pushed or
    fetched from the memo before it."""
    strings, memo = [], {}
    for op, arg, _ in pickletools.genops(data):
        if op.name in ("GLOBAL", "INST"):
            module, name = arg.split(" ", 1)
        elif op.name == "STACK_GLOBAL":
            module, name = strings[-2:] if len(strings) >= 2 else ("?", "?")
        else:
            if isinstance(arg, str) and "UNICODE" in op.name or op.name in ("STRING", "BINSTRING",
                                                                           "SHORT_BINSTRING"):
                strings.append(arg)
            elif op.name == "MEMOIZE" and strings:
                memo[len(memo)] = strings[-1]
            elif op.name in ("PUT", "BINPUT", "LONG_BINPUT") and strings:
                memo[arg] = strings[-1]
            elif op.name in ("GET", "BINGET", "LONG_BINGET") and arg in memo:
                strings.append(memo[arg])
            continue
        if _allowed(module, name) is None:
            found.append(_dotted(_canonical(module, name)))
