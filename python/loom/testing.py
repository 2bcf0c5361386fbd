"""loom.testing: torch.testing's assert_close and make_tensor, for loom's own tests and for
libraries built on loom. assert_close compares tensors, NumPy arrays, Python numbers and
(nested) sequences and mappings of them, with PyTorch's default tolerances per dtype and its
mismatch report; make_tensor draws a test tensor of a dtype, device and range."""
import collections.abc
import math

import numpy as np

from . import _ops
from ._dtype import BY_NAME, dtype as _dtype_cls
from ._numpy import from_numpy
from ._tensor import Tensor

__all__ = ["assert_close", "make_tensor"]

# (rtol, atol) as torch.testing's defaults; integers and bool compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def _tolerance(dtypes, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {missing}.")
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


class _Mismatch(AssertionError):
    pass


def _fail(msg, default, where):
    text = default if msg is None else (msg(default) if callable(msg) else msg)
    if where and msg is None:
        text += f"\n\nThe failure occurred for item {where}"
    raise _Mismatch(text)


def _attr(name, a, b):
    return f"The values for attribute '{name}' do not match: {a} != {b}."


def _as_array(t):
    """t's values as a NumPy array (16-bit floats widened exactly to float32)."""
    t = t.detach()
    if t.device.type != "cpu":
        t = t.to("cpu")
    if t.dtype.name == "bfloat16":
        t = t.float()
    return t.resolve_conj().numpy() if t.dtype.category == "complex" else t.numpy()


def _number(x):
    return isinstance(x, (int, float, complex, np.number)) and not isinstance(x, (bool, np.bool_))


def _kind(x):
    if isinstance(x, Tensor):
        return "tensor"
    if isinstance(x, np.ndarray):
        return "array"
    if isinstance(x, (bool, np.bool_)) or _number(x):
        return "scalar"
    if isinstance(x, collections.abc.Mapping):
        return "mapping"
    if isinstance(x, collections.abc.Sequence) and not isinstance(x, str):
        return "sequence"
    return None


def _scalar_dtype(x):
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, complex):
        return "complex128"
    return "float64" if isinstance(x, float) else "int64"


def _fmt(v):
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (complex, np.complexfloating)):
        return repr(complex(v))
    return repr(int(v)) if isinstance(v, (int, np.integer)) else repr(v)


def _compare_values(a, e, dt_name, rtol, atol, equal_nan, scalar, msg, where):
    exact = rtol == 0 and atol == 0
    if a.dtype.kind == "b":
        a, e = a.astype(np.int64), e.astype(np.int64)
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan) if not exact else (
        (a == e) | (equal_nan & np.isnan(a) & np.isnan(e)) if a.dtype.kind in "fc" else a == e)
    if a.dtype.kind in "fc":   # infinities of the same sign are equal; np.isclose agrees, == does too
        close = close | ((a == e) & np.isinf(a))
    if close.all():
        return
    work = np.abs(a.reshape(-1)[:0]).dtype if a.dtype.kind in "fc" else np.float32   # complex: its real one
    with np.errstate(all="ignore"):
        diff = np.abs(a - e) if a.dtype.kind in "fc" else np.abs(a.astype(np.int64) - e.astype(np.int64))
        rel = (diff.astype(work) / np.abs(e).astype(work)).astype(work)
    if scalar:
        d, r = diff.reshape(-1)[0], rel.reshape(-1)[0]
        text = f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {_fmt(e.reshape(-1)[0])} but got " \
               f"{_fmt(a.reshape(-1)[0])}.\nAbsolute difference: {_fmt(d)}" + \
               ("" if exact else f" (up to {atol} allowed)") + f"\nRelative difference: {_fmt(r)}" + \
               ("" if exact else f" (up to {rtol} allowed)")
        _fail(msg, text, where)
    bad = ~close
    n, total = int(bad.sum()), close.size

    def worst(v):
        v = np.where(bad, v, -np.inf if v.dtype.kind == "f" else 0)
        flat = np.nan_to_num(v, nan=np.inf).argmax() if v.dtype.kind == "f" else v.argmax()
        i = tuple(int(k) for k in np.unravel_index(flat, v.shape))
        return v[i], i

    (d, di), (r, ri) = worst(diff), worst(rel)
    idx = lambda i: f"({i[0]},)" if len(i) == 1 else f"({', '.join(map(str, i))})"   # noqa: E731
    text = (f"Tensor-likes are not {'equal' if exact else 'close'}!\n\nMismatched elements: {n} / {total} "
            f"({100 * n / total:.1f}%)\nGreatest absolute difference: {_fmt(d)} at index {idx(di)}"
            + ("" if exact else f" (up to {atol} allowed)")
            + f"\nGreatest relative difference: {_fmt(r)} at index {idx(ri)}"
            + ("" if exact else f" (up to {rtol} allowed)"))
    _fail(msg, text, where)


def _compare_tensors(actual, expected, kind, rtol, atol, equal_nan, check_device, check_dtype, check_layout,
                     check_stride, msg, where):
    if kind == "tensor":
        adt, edt = actual.dtype.name, expected.dtype.name
        la, le = getattr(actual, "layout", None), getattr(expected, "layout", None)
        if check_layout and la != le:
            _fail(msg, _attr("layout", la, le), where)
        if tuple(actual.shape) != tuple(expected.shape):
            _fail(msg, _attr("shape", actual.shape, expected.shape), where)
        if check_device and actual.device != expected.device:
            _fail(msg, _attr("device", actual.device, expected.device), where)
        if check_dtype and actual.dtype != expected.dtype:
            _fail(msg, _attr("dtype", actual.dtype, expected.dtype), where)
        if check_stride and actual.stride() != expected.stride():
            _fail(msg, _attr("stride()", actual.stride(), expected.stride()), where)
        a, e = _as_array(actual), _as_array(expected)
        scalar = actual.ndim == 0
    else:
        a, e = np.asarray(actual), np.asarray(expected)
        adt, edt = a.dtype.name, e.dtype.name
        if a.shape != e.shape:
            _fail(msg, _attr("shape", a.shape, e.shape), where)
        if check_dtype and a.dtype != e.dtype:
            _fail(msg, _attr("dtype", a.dtype, e.dtype), where)
        scalar = a.ndim == 0 and kind == "scalar"
    rt, at = _tolerance((adt, edt), rtol, atol)
    common = np.result_type(a, e)
    _compare_values(a.astype(common), e.astype(common), adt, rt, at, equal_nan, scalar, msg, where)


def _compare(actual, expected, where, opts):
    ka, ke = _kind(actual), _kind(expected)
    if ka is None or ke is None or ka != ke and {ka, ke} != {"sequence"}:
        raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                        f"{type(expected)}.")
    if ka == "sequence":
        if len(actual) != len(expected):
            _fail(opts["msg"], f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, f"{where}[{i}]", opts)
        return
    if ka == "mapping":
        missing = [k for k in expected if k not in actual]
        extra = [k for k in actual if k not in expected]
        if missing or extra:
            _fail(opts["msg"], "The keys of the mappings do not match:\n"
                  + (f"Missing keys in the actual mapping: {sorted(missing, key=repr)}\n" if missing else "")
                  + (f"Additional keys in the actual mapping: {sorted(extra, key=repr)}" if extra else ""),
                  where.rstrip("\n"))
        for k in expected:
            _compare(actual[k], expected[k], f"{where}[{k!r}]", opts)
        return
    if ka == "scalar":
        if type(actual) is not type(expected):
            _fail(opts["msg"], f"The (d)types do not match: {type(actual)} != {type(expected)}.", where)
        a, e = np.asarray(actual), np.asarray(expected)
        rt, at = _tolerance((_scalar_dtype(actual),), opts["rtol"], opts["atol"])
        common = np.result_type(a, e)
        _compare_values(a.astype(common), e.astype(common), None, rt, at, opts["equal_nan"], True, opts["msg"],
                        where)
        return
    _compare_tensors(actual, expected, ka, opts["rtol"], opts["atol"], opts["equal_nan"], opts["check_device"],
                     opts["check_dtype"], opts["check_layout"], opts["check_stride"], opts["msg"], where)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raise AssertionError unless actual and expected are close: |actual - expected| <= atol + rtol *
    |expected| elementwise, with torch.testing's defaults per dtype (float32: rtol 1.3e-6, atol 1e-5;
    float64: 1e-7, 1e-7; float16: 1e-3, 1e-5; bfloat16: 1.6e-2, 1e-5; integers and bool exactly),
    after checking shape, device, dtype (and strides with check_stride=True). Sequences and mappings
    are compared item by item; msg replaces the report (a string, or a function of it)."""
    opts = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                check_layout=check_layout, check_stride=check_stride, msg=msg)
    try:
        _compare(actual, expected, "", opts)
    except _Mismatch as e:
        raise AssertionError(str(e)) from None


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of the given shape and dtype with values drawn uniformly from [low, high) (floats:
    default [-9, 9); integers: [-9, 10) clamped to the dtype; bool: random), as torch.testing's:
    noncontiguous=True gives a tensor with the same values whose last dimension steps by 2,
    exclude_zero=True replaces zeros by the dtype's smallest positive step (1 for integers)."""
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    if isinstance(dtype, str):
        dtype = BY_NAME[dtype]
    if not isinstance(dtype, _dtype_cls):
        raise TypeError(f"make_tensor(): argument 'dtype' must be loom.dtype, not {type(dtype).__name__}")
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually exclusive, but "
                         f"got noncontiguous={noncontiguous} and memory_format={memory_format}")
    if requires_grad and not dtype.differentiable:
        raise ValueError("make_tensor: requires_grad must be False for integral dtype")
    rng = np.random.default_rng(int(_ops.randint(0, 2 ** 62, (1,)).item()))   # follows loom.manual_seed
    n = math.prod(shape)
    cat = dtype.category
    if cat == "bool":
        values = rng.integers(0, 2, n).astype(bool)
    elif cat in ("floating", "complex"):
        lo, hi = _range(low, high, -9.0, 9.0, None)
        parts = [rng.uniform(lo, hi, n) for _ in range(2 if cat == "complex" else 1)]
        values = parts[0] if cat == "floating" else parts[0] + 1j * parts[1]
    else:
        info = np.iinfo(np.dtype(dtype.name))
        lo, hi = _range(low, high, -9, 10, (info.min, info.max))
        values = rng.integers(math.ceil(lo), math.ceil(hi), n, endpoint=False)
    values = np.asarray(values).reshape(shape)
    if exclude_zero:
        step = 1 if cat not in ("floating", "complex") else np.finfo(np.float16 if dtype.itemsize == 2 else
                                                                      np.dtype(dtype.name)).tiny
        values = np.where(values == 0, step, values)
    t = from_numpy(np.ascontiguousarray(values.astype(np.float32 if dtype.name == "bfloat16" else
                                                      np.dtype(dtype.name)))).to(dtype)
    if device is not None:
        t = t.to(device)
    if noncontiguous and t.numel() > 1:
        wide = _ops.empty(*shape[:-1], shape[-1] * 2, dtype=dtype, device=t.device)
        wide[..., ::2] = t
        t = wide[..., ::2]
    elif memory_format is not None:
        t = t.contiguous(memory_format=memory_format)
    return t.requires_grad_(True) if requires_grad else t


def _range(low, high, lo_default, hi_default, limits):
    for name, v in (("low", low), ("high", high)):
        if v is not None and isinstance(v, float) and math.isnan(v):
            raise ValueError(f"`{name}` cannot be NaN, but got {name}={v}")
    lo = lo_default if low is None else low
    hi = hi_default if high is None else high
    if limits is not None:
        lo, hi = max(lo, limits[0]), min(hi, limits[1])
    if lo > hi:
        raise ValueError(f"`low` must be less than or equal to `high`, but got low={low} and high={high}")
    if lo == hi:
        hi = lo + (1 if limits is not None else 1e-6)
    return lo, hi
