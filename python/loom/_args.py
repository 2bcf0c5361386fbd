"""Converting Python arguments into C ones for the generated op functions.

These run on every op call, so the common cases are the first branch."""
import functools
import inspect
import operator
from numbers import Integral, Number, Real

import numpy as np

from . import cuda
from ._C import ffi, lib
from ._autograd import grad_enabled as _grad_enabled
from ._batched import BatchedOperand as _BatchedOperand
from ._dtype import FROM_PYTHON, default_devices, device, dtype
from ._errors import LoomTypeError, SparseOperandError, raise_error as _raise, sparse_operand_message
from ._meta import MetaOperand as _MetaOperand
from ._memory_format import memory_format, code_of as _memory_format_arg
from ._numpy import as_tensor
from ._tensor import Tensor, _new, _object_new  # noqa: F401  (_object_new: re-exported to the generated ops)

_NULL = ffi.NULL


class _NotGiven:
    """The default of axis=/keepdims= (NumPy's names for dim/keepdim, which PyTorch takes too)."""
    __slots__ = ()

    def __repr__(self):
        return "<not given>"


_NA = _NotGiven()
_NP_NAMES = {"axis": "dim", "keepdims": "keepdim"}


def _np_alias(op, name, value, default, alias):
    """`alias` standing for argument `name` (axis for dim): both given is a TypeError, as in PyTorch."""
    if value is not _NA and value != default:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return alias


def _np_kwargs(kwargs, op):
    """axis=/keepdims= renamed to dim=/keepdim= (an overloaded op resolves by the schema's names)."""
    for alias, name in _NP_NAMES.items():
        if alias in kwargs and name in kwargs:
            raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return {_NP_NAMES.get(k, k): v for k, v in kwargs.items()}
_INT64_MIN = -(2 ** 63)
_INT64_MAX = 2 ** 63 - 1


def _type_error(op, name, want, got):
    raise TypeError(f"{op}(): argument '{name}' must be {want}, not {type(got).__name__}")


_UNSET = object()   # a parameter not given: left at its default, which is not checked


def _an_int(v):
    # PyTorch's int: an integer other than a bool, anything with __index__, an integer tensor
    # (a 0-d one there; loom's __index__ decides the rest)
    if isinstance(v, Tensor):
        return not (v.dtype.is_floating_point or v.dtype.is_complex)
    return not isinstance(v, bool) and hasattr(type(v), "__index__")


def _a_real(v):
    # PyTorch's float: any real number (bools and ints too), or a tensor holding one
    return isinstance(v, (Real, np.number, np.bool_, Tensor)) and not isinstance(v, (complex, np.complexfloating))


def _a_number(v):
    return isinstance(v, (Number, np.number, np.bool_, Tensor))


def _a_size(v):
    # PyTorch's int[]: one int, or a sequence of them (a Size is a tuple)
    if isinstance(v, (list, tuple)):
        for e in v:   # a loop, not all(): no generator made on this common path
            if e.__class__ is not int and not _an_int(e):
                return False
        return True
    return _an_int(v) and not isinstance(v, Tensor)


def _a_partial_size(v):
    # an adaptive pool's output_size: None in a place keeps the input's size there
    if isinstance(v, (list, tuple)):
        return all(e is None or _an_int(e) for e in v)
    return _an_int(v) and not isinstance(v, Tensor)


def _reals(v):
    # a scale factor: one number, or one per dimension
    if isinstance(v, (list, tuple)):
        return all(_a_real(e) for e in v)
    return _a_real(v)


def _a_dtype(v):
    try:
        return isinstance(v, dtype) or v in FROM_PYTHON
    except TypeError:   # unhashable
        return False


# kind: (classes passing at a glance, the full test, PyTorch's word for it in the message)
_KINDS = {
    "Tensor": ((Tensor,), lambda v: isinstance(v, Tensor), "Tensor"),
    "int": ((int,), _an_int, "int"),
    "float": ((float, int), _a_real, "float"),
    "Number": ((float, int, bool), _a_number, "Number"),
    "str": ((str,), lambda v: isinstance(v, str), "str"),
    "bool": ((bool,), lambda v: isinstance(v, (bool, np.bool_)), "bool"),
    "int[]": ((int,), _a_size, "tuple of ints"),
    "int?[]": ((int,), _a_partial_size, "tuple of ints"),
    "float[]": ((float, int), _reals, "tuple of floats"),
    "ScalarType": ((dtype,), _a_dtype, "loom.dtype"),
}


def takes_tensors(*names, label=None, optional=(), **kinds):
    """For hand-written public functions: the named parameters must be Tensors, and those given as
    name=kind keywords must be of that kind: "int", "float", "Number", "str", "bool", "int[]",
    "int?[]" (None elements), "float[]", "ScalarType", alternatives joined by "|", a trailing "?"
    letting None through, or a class. They are checked before the body runs, so a wrong type is a
    TypeError naming the function and the argument (as the generated functions' is), never an
    AttributeError or a comparison's TypeError from inside the body. A parameter left at its
    default is not checked, and one whose default is None takes None, as do those named in
    `optional`. label: the name users call it by, where that is not the function's own. The checks
    are built here, once: a call pays a class lookup per checked argument (a full test only off
    the common classes)."""
    def wrap(fn):
        params = inspect.signature(fn).parameters
        positional = [n for n, p in params.items() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        where = []
        for n, kind in [(n, "Tensor") for n in names] + list(kinds.items()):
            nullable = str(kind).endswith("?") or params[n].default is None or n in optional
            if isinstance(kind, type):   # a class of the caller's (a Generator)
                want = ("loom." if kind.__module__.startswith("loom") else "") + kind.__name__
                fast, test = (kind,), lambda v, c=kind: isinstance(v, c)
            else:   # "Number|str": either
                alts = [_KINDS[k] for k in kind.rstrip("?").split("|")]
                fast = [c for a in alts for c in a[0]]
                tests = tuple(a[1] for a in alts)
                test = tests[0] if len(tests) == 1 else lambda v, ts=tests: any(t(v) for t in ts)
                want = " or ".join(a[2] for a in alts)
            i = positional.index(n) if n in positional else 1 << 30
            where.append((n, i, frozenset(fast), test, want, nullable))
        where = tuple(where)
        name = label or fn.__name__

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            for n, i, fast, test, want, nullable in where:
                x = args[i] if i < len(args) else kwargs.get(n, _UNSET)
                if x.__class__ not in fast and x is not _UNSET and not (nullable and x is None) and not test(x):
                    _type_error(name, n, want, x)
            return fn(*args, **kwargs)
        return checked
    return wrap


# Python numbers become weak 0-d tensors; the common ones are made once.
_scalar_cache = {}


def _wrap_number(x):
    key = (x.__class__, x) if x else (x.__class__, repr(x))   # -0.0 == 0.0: keep the zeros apart
    h = _scalar_cache.get(key)
    if h is None:
        r = _number(x)
        if r[2] < 0:
            return None
        h = lib.lm_wrapped_scalar(*r) if r[2] < 3 else lib.lm_scalar_tensor(r, -1, True)
        if not h:
            _raise("tensor")
        if len(_scalar_cache) > 4096:
            _scalar_cache.clear()
        _scalar_cache[key] = _new(h)   # the cached Tensor owns the reference
        return h
    return h._h


def _number(x):
    c = x.__class__
    if c is float:
        return (x, 0, 2)
    if c is int and _INT64_MIN <= x <= _INT64_MAX:
        return (float(x), x, 1)
    if c is bool:
        return (float(x), int(x), 0)
    if isinstance(x, (bool, np.bool_)):
        return (float(x), int(x), 0)
    if isinstance(x, Integral):
        x = int(x)
        if _INT64_MAX < x < 2 ** 64:   # uint64's upper half: lm_scalar kind 4, its bits in i
            return (float(x), x - 2 ** 64, 4)
        if not _INT64_MIN <= x <= _INT64_MAX:
            raise OverflowError(f"value {x} cannot be converted to {'int64' if x < 0 else 'uint64'} without overflow")
        return (float(x), x, 1)
    if isinstance(x, Real):
        return (float(x), 0, 2)
    if isinstance(x, (complex, np.complexfloating)):   # lm_scalar kind 3: d + im*i
        return (float(x.real), 0, 3, float(x.imag))
    return (0.0, 0, -1)


def _tensor_arg_or_none(x):
    c = x.__class__
    if c is float or c is int or c is bool:
        return _wrap_number(x)
    if isinstance(x, Tensor):
        return x._h
    if isinstance(x, (Number, np.bool_, np.number)):
        return _wrap_number(x)
    if isinstance(x, np.ndarray):   # ndarray + Tensor lands in Tensor.__radd__ (__array_priority__)
        t = as_tensor(x)
        lib.lm_retain(t._h)   # before `t` dies and drops its own reference
        return ffi.gc(t._h, lib.lm_release)   # owned by the caller's local for the call
    return None


def _tensor_arg(x, op, name):
    try:
        h = _tensor_arg_or_none(x)
    except SparseOperandError:   # a sparse COO tensor has no handle: name the op it reached
        raise SparseOperandError(sparse_operand_message(op)) from None
    if h is None:
        if isinstance(x, Tensor):   # a vmap BatchedTensor (no handle): the op's batching rule takes over
            raise _BatchedOperand(op)
        _type_error(op, name, "Tensor", x)
    return h


def _composite_tensor_arg(x, op, name):
    """A composite op's Tensor argument: Python numbers become 0-d tensors."""
    h = _tensor_arg(x, op, name)
    if isinstance(x, Tensor):
        return x
    lib.lm_retain(h)
    return _new(h)


def _composite_list_dtype(xs, allowed, op):
    """A composite's dtype check on a Tensor list (allowed: dtype codes): its first Tensor stands for
    it (the body refuses a list that is not one, or mixes dtypes, itself)."""
    x = xs[0] if isinstance(xs, (list, tuple)) and xs else None
    if isinstance(x, Tensor) and x.dtype.code not in allowed:
        raise LoomTypeError(f"{op}(): not implemented for dtype {x.dtype.name}")


def _tensor_list(xs, op, name):
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)):
        _type_error(op, name, "a tuple or list of Tensors", xs)
    try:
        hs = [x._h for x in xs if isinstance(x, Tensor)]
    except SparseOperandError:
        raise SparseOperandError(sparse_operand_message(op)) from None
    if None in hs:   # a vmap BatchedTensor among them
        raise _BatchedOperand(op)
    if len(hs) != len(xs):
        i, x = next((i, x) for i, x in enumerate(xs) if not isinstance(x, Tensor))
        raise TypeError(f"{op}(): expected Tensor as element {i} in argument '{name}', "
                        f"but got {type(x).__name__}")
    return ffi.new("lm_tensor *[]", hs), len(hs)


def _check_tensor_list(xs, op, name):
    """_tensor_list's type checks alone, for a composite whose parts convert the list themselves
    (handle-less tensors among it, vmap's or meta ones, then reach those parts' rules)."""
    if isinstance(xs, Tensor) or not isinstance(xs, (list, tuple)):
        _type_error(op, name, "a tuple or list of Tensors", xs)
    for i, x in enumerate(xs):
        if not isinstance(x, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument '{name}', "
                            f"but got {type(x).__name__}")


def _int(x, op, name):
    if x.__class__ is int and _INT64_MIN <= x <= _INT64_MAX:
        return x
    if isinstance(x, bool) or isinstance(x, Tensor) and x.dtype.is_floating_point:
        _type_error(op, name, "int", x)
    try:
        v = operator.index(x)
    except TypeError:
        _type_error(op, name, "int", x)
    return _in_int64(v, op, name)


def _in_int64(v, op, name):
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise OverflowError(f"{op}(): argument '{name}' value {v} does not fit in int64")
    return v


def _varargs(args, kw, op, name):
    """An int[] given as varargs (view(2, 3)), one sequence (view((2, 3))) or by keyword."""
    if kw is not None:
        if args:
            raise TypeError(f"{op}(): argument '{name}' given both positionally and by keyword")
        return kw
    if len(args) == 1 and not isinstance(args[0], Integral):
        return args[0]
    return args


def _int_opt(x, op, name):
    return _INT64_MIN if x is None else _int(x, op, name)


def _int_list(x, op, name):
    if isinstance(x, (list, tuple)):
        try:
            vals = [v if v.__class__ is int else operator.index(v) for v in x]
        except TypeError:
            _type_error(op, name, "a tuple of ints", x)
        if any(isinstance(v, bool) for v in x):
            _type_error(op, name, "a tuple of ints", x)
        if vals and (max(vals) > _INT64_MAX or min(vals) < _INT64_MIN):
            _in_int64(max(vals) if max(vals) > _INT64_MAX else min(vals), op, name)
        return vals, len(vals)
    if isinstance(x, Integral) and not isinstance(x, bool):
        return [_in_int64(int(x), op, name)], 1
    _type_error(op, name, "a tuple of ints", x)


def _int_list_opt(x, op, name):
    return (_NULL, -1) if x is None else _int_list(x, op, name)


# Scalars go to C as lm_scalar structs by value. cffi converts a tuple to one on
# every call (~120 ns); a prebuilt struct passes for less than the tuple, so the
# numbers seen are kept as structs, per class (1 and 1.0 are different scalars).
_FLOAT_SCALARS, _INT_SCALARS = {}, {}


def _scalar_struct(cache, x, init):
    if len(cache) > 1024:
        cache.clear()
    s = cache[x] = ffi.new("lm_scalar *", init)[0]
    return s


def _scalar(x, op, name):
    c = x.__class__
    if c is float:
        k = x if x else repr(x)   # -0.0 == 0.0 as keys: keep the zeros apart
        s = _FLOAT_SCALARS.get(k)
        return s if s is not None else _scalar_struct(_FLOAT_SCALARS, k, (x, 0, 2))
    if c is int and _INT64_MIN <= x <= _INT64_MAX:
        s = _INT_SCALARS.get(x)
        return s if s is not None else _scalar_struct(_INT_SCALARS, x, (float(x), x, 1))
    if isinstance(x, Tensor):
        if x.numel() != 1:
            raise ValueError(f"{op}(): argument '{name}' must be a number or a one-element tensor")
        x = x.item()
    r = _number(x)
    if r[2] < 0:
        _type_error(op, name, "Number", x)
    return r


def _scalar_opt(x, op, name):
    return (0.0, 0, -1) if x is None else _scalar(x, op, name)


def _float(x, op, name):
    if x.__class__ is float:
        return x
    if isinstance(x, Real) and not isinstance(x, bool):
        return float(x)
    _type_error(op, name, "float", x)


def _float_opt(x, op, name):
    return None if x is None else _float(x, op, name)


def _bool(x, op, name):
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    _type_error(op, name, "bool", x)


def _dtype_arg(x, op, name):
    if x is None:
        return -1
    if isinstance(x, dtype):
        return x.code
    if x in FROM_PYTHON:
        return FROM_PYTHON[x].code
    _type_error(op, name, "loom.dtype", x)


def _apply_memory_format(r, fmt, like, op):
    """r moved into memory_format fmt (preserve_format: like's strides where like is dense), as the
    generated C entries do for kernels: r itself when it is laid out so already."""
    if fmt is None:
        return r
    if r._h is None:   # a meta tensor: the format's strides, computed
        return _meta_dispatch.apply_memory_format(r, fmt, like, op)
    lib.lm_retain(r._h)   # lm_apply_memory_format takes a reference
    h = lib.lm_apply_memory_format(r._h, _memory_format_arg(fmt, op, "memory_format"), like._h)
    if not h:
        _raise(op)
    if h == r._h:
        lib.lm_release(h)
        return r
    return _new(h)


def _device_arg(x, op, name):
    if x is None:
        if not default_devices:
            return -1
        x = default_devices[-1]   # inside `with loom.device(...):`
    if isinstance(x, str):
        try:
            x = device(x)
        except RuntimeError as e:
            raise RuntimeError(f"{op}(): {e}") from None
    if isinstance(x, device):
        if x.type == "meta":   # no C device: the op's meta rule takes over
            raise _MetaOperand(op)
        if x.code:   # CUDA: loaded on first use
            _cuda_device(x)
        return x.code
    _type_error(op, name, "device", x)


def _device_check(x, op, name):
    """_device_arg's checks for a composite op, whose parts take the device themselves (meta too)."""
    if x is None and default_devices:
        x = default_devices[-1]
    if isinstance(x, str) and x.partition(":")[0] == "meta" or isinstance(x, device) and x.type == "meta":
        return -2
    return _device_arg(x, op, name)


def _cuda_device(d):
    cuda._lazy_init()
    if d.index is not None and d.index >= cuda.device_count():
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {d} requested, "
                           f"{cuda.device_count()} available)")


def _str(x, op, name):
    if isinstance(x, str):
        return x.encode()
    _type_error(op, name, "str", x)


def _str_opt(x, op, name):
    return _NULL if x is None else _str(x, op, name)


def _out_arg(x, op):
    if isinstance(x, Tensor):
        return x._h
    _type_error(op, "out", "Tensor", x)


def _write_out(out, result, op):
    """out= of an op whose result is made in Python (a composite) or is a tuple: the result written
    into the given tensor(s) as the C out= entries write theirs, and the given tensor(s) returned."""
    if isinstance(result, tuple):
        if not (isinstance(out, (tuple, list)) and len(out) == len(result)
                and all(isinstance(o, Tensor) for o in out)):
            raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(result)} Tensors, "
                            f"not {type(out).__name__}")
        pairs = list(zip(out, result))
    else:
        pairs = [(out, result)]
        _out_arg(out, op)
    if _grad_enabled() and any(r is not None and r.requires_grad for _, r in pairs):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, "
                           f"but one of the arguments requires grad.")
    for o, r in pairs:
        if r is not None and lib.lm_write_result(op.encode(), o._h, r._h):
            _raise(op)
    return type(result)(*out) if isinstance(result, tuple) else out


_KIND_CHECKS = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "Tensor[]": lambda v: isinstance(v, (list, tuple)) and all(isinstance(e, Tensor) for e in v),
    "int": lambda v: isinstance(v, Integral) and not isinstance(v, bool),
    "int[]": lambda v: (isinstance(v, Integral) and not isinstance(v, bool)) or (
        isinstance(v, (list, tuple)) and all(isinstance(e, Integral) for e in v)),
    "Scalar": lambda v: isinstance(v, (Number, np.number, np.bool_)),
    "float": lambda v: isinstance(v, Real) and not isinstance(v, bool),
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "ScalarType": lambda v: isinstance(v, dtype) or v in FROM_PYTHON,
    "Device": lambda v: isinstance(v, (str, device)),
    "MemoryFormat": lambda v: isinstance(v, memory_format),
    "str": lambda v: isinstance(v, str),
}


def _fits(kind, v, numbers_as_tensors=False):
    if kind.endswith("?"):
        return v is None or _fits(kind[:-1], v, numbers_as_tensors)
    if numbers_as_tensors and kind == "Tensor" and _KIND_CHECKS["Scalar"](v):
        return True
    return _KIND_CHECKS[kind](v)


def _binds(spec, args, kwargs, numbers_as_tensors=False):
    pos = [s for s in spec if not s[3]]
    names = {s[0] for s in spec}
    if any(k not in names for k in kwargs):
        return False
    va = next((s for s in spec if s[4]), None)
    if va is not None and len(args) > len(pos):
        return all(_fits("int", a) for a in args[len(pos) - 1:])
    if len(args) > len(pos):
        return False
    for i, (name, kind, has_default, kwonly, _) in enumerate(spec):
        if not kwonly and i < len(args):
            if name in kwargs or not _fits(kind, args[i], numbers_as_tensors):
                return False
        elif name in kwargs:
            if not _fits(kind, kwargs[name], numbers_as_tensors):
                return False
        elif not has_default:
            return False
    return True


def _resolve_overload(name, overloads, args, kwargs):
    # an exact match first; then Python numbers may stand for Tensors, as every op converts them
    for numbers_as_tensors in (False, True):
        for fn, spec in overloads:
            if _binds(spec, args, kwargs, numbers_as_tensors):
                return fn, args
    got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
    want = "\n".join(" * (" + ", ".join(f"{k} {n}" for n, k, *_ in spec) + ")" for _, spec in overloads)
    raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                    f"but expected one of:\n{want}")
