"""Issue 17's per-op pointwise benchmark, generated from the op model: one row per float pointwise op
of ops/*.yaml (every `pointwise:` op that serves float32 or float64), loom against NumPy (or SciPy's
special functions) and PyTorch in one process, on 10^7 elements, contiguous and strided (every
other element of a 2 * 10^7 buffer), the same threads for loom and PyTorch (NumPy's ufuncs have one);
and the float16/bfloat16 rows of the ops that serve them (NumPy has float16 only).

    python tools/bench/pointwise.py                      # every op: float32, float64, float16, bfloat16
    python tools/bench/pointwise.py --dtype float64 --only exp --only tanh --repeats 9
    python tools/bench/pointwise.py --markdown > table.md

Each time is the best of --repeats calls, the three libraries taking turns, so load from elsewhere
on the machine falls on all of them alike. `speed` is the faster of NumPy's and PyTorch's times over
loom's: 1.0 or more, loom is at least as fast (issue 17's target for every row). The summary gives
the slowest speed and the median per dtype and layout.

Nothing here lists the ops to time: they come from the model. The tables below say only how to
call an op (inputs in its domain, required non-Tensor arguments, the name of the same function in
NumPy/SciPy and PyTorch where the names differ), and SKIP which ops are left out and why.
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from codegen.model import load  # noqa: E402

# (low, high) of the uniform inputs, per op and Tensor argument name; others get DEFAULT_DOMAIN.
# Domains keep each function finite and away from its poles, as a real program's data would be.
DEFAULT_DOMAIN = (-5.0, 5.0)
POSITIVE = (0.01, 10.0)
DOMAIN = {
    "log": POSITIVE, "log2": POSITIVE, "log10": POSITIVE, "sqrt": POSITIVE, "rsqrt": POSITIVE,
    "log1p": (-0.9, 10.0), "lgamma": POSITIVE, "digamma": POSITIVE, "polygamma": POSITIVE,
    "special_entr": POSITIVE, "special_log_ndtr": (-10.0, 5.0),
    "asin": (-0.99, 0.99), "acos": (-0.99, 0.99), "atanh": (-0.99, 0.99), "erfinv": (-0.99, 0.99),
    "acosh": (1.0, 10.0), "special_ndtri": (0.01, 0.99),
    "pow": {"self": (0.5, 2.0), "exponent": (-2.0, 2.0)},
    "div": {"other": (0.5, 5.0)}, "remainder": {"other": (0.5, 5.0)}, "fmod": {"other": (0.5, 5.0)},
    "floor_divide": {"other": (0.5, 5.0)}, "xlogy": {"other": POSITIVE},
    "special_xlog1py": {"other": (-0.9, 10.0)},
    "special_zeta": {"self": (1.5, 10.0), "other": (0.5, 10.0)},
    "igamma": {"self": (0.5, 10.0), "other": POSITIVE}, "igammac": {"self": (0.5, 10.0), "other": POSITIVE},
}

# non-Tensor arguments without a default (and a few chosen to exercise the kernel), by name
ARGS = {
    "threshold_backward": {"threshold": 0.0},
    "leaky_relu_backward": {"negative_slope": 0.01},
    "polygamma": {"n": 1},
    "clamp": {"min": -0.5, "max": 0.5},
}

# the same function elsewhere, where it is not found by name (np.<name or alias>, scipy.special.<the
# op's special name>, torch.<name>, torch.special.<name>, torch.nn.functional.<name>); None: there is
# no single function to compare with
NUMPY = {
    "neg": "negative", "div": "true_divide", "mul": "multiply", "sub": "subtract", "pow": "power",
    "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "clamp": "clip", "sgn": "sign", "conj_physical": "conjugate", "round": "rint",
    "xlogy": "scipy.special.xlogy", "erfc": "scipy.special.erfc", "erf": "scipy.special.erf",
    "i0": "scipy.special.i0", "special_bessel_j0": "scipy.special.j0", "special_bessel_j1": "scipy.special.j1",
    "special_zeta": "scipy.special.zeta", "igamma": "scipy.special.gammainc",
    "igammac": "scipy.special.gammaincc", "gelu_erf": None, "gelu_tanh": None, "relu": None,
    "frac": None, "rsqrt": None,
}
TORCH = {
    "gelu_erf": ("torch.nn.functional.gelu", {}),
    "gelu_tanh": ("torch.nn.functional.gelu", {"approximate": "tanh"}),
    "gelu_erf_backward": ("torch.ops.aten.gelu_backward", {}),
    "threshold_backward": ("torch.ops.aten.threshold_backward", {}),
    "leaky_relu_backward": ("torch.ops.aten.leaky_relu_backward", {"self_is_result": False}),
}
LOOM = {
    "gelu_erf": ("loom.nn.functional.gelu", {}),
    "gelu_tanh": ("loom.nn.functional.gelu", {"approximate": "tanh"}),
}

# ops left out, with the reason
SKIP = {
    "where": "a ternary select on a bool mask, no float math (issue 17's rows are unary and binary)",
    "conj_physical": "the identity on real tensors (a copy)",
}

FLOATS = ("float32", "float64")
# stored in 16 bits, computed in float32 (loom and PyTorch alike); NumPy has float16 (its loops convert
# each element) and no bfloat16, so bfloat16 rows compare with PyTorch alone
HALVES = ("float16", "bfloat16")


def resolve(path):
    """The object a dotted name such as 'torch.special.erfcx' or 'scipy.special.xlogy' names, or None."""
    head, *rest = path.split(".")
    if head == "scipy":
        import scipy.special   # imported on demand: the run may not need SciPy
        obj = scipy
    else:
        obj = sys.modules[head]
    for part in rest:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj if callable(obj) else None


def special_names(op):
    return [n for m, n in op.python_module if m == "special"]


def short(op):
    return op.name[len("special_"):] if op.name.startswith("special_") else op.name


def numpy_fn(op):
    if op.name in NUMPY:
        name = NUMPY[op.name]
        return (None if name is None else resolve(name if "." in name else "numpy." + name)), {}
    for cand in [f"numpy.{op.name}"] + [f"numpy.{a}" for a in op.aliases] + \
            [f"scipy.special.{n}" for n in special_names(op)] + [f"scipy.special.{short(op)}"]:
        fn = resolve(cand)
        if fn is not None:
            return fn, {}
    return None, {}


def torch_fn(op):
    if op.name in TORCH:
        name, kw = TORCH[op.name]
        return resolve(name), kw
    for cand in (f"torch.{op.name}", f"torch.special.{short(op)}", f"torch.nn.functional.{op.name}"):
        fn = resolve(cand)
        if fn is not None:
            return fn, {}
    return None, {}


def loom_fn(op):
    if op.name in LOOM:
        name, kw = LOOM[op.name]
        return resolve(name), kw
    cands = [f"loom.{op.name}"] + [f"loom.special.{n}" for n in special_names(op)] + \
        [f"loom.special.{short(op)}", f"loom.nn.functional.{op.name}", f"loom._ops.{op.cname}"]
    for cand in cands:
        fn = resolve(cand)
        if fn is not None:
            return fn, {}
    return None, {}


def float_pointwise_ops(model):
    """Every pointwise op serving float32 or float64, one per name (overloads share a kernel's speed)."""
    seen, ops = set(), []
    for op in model.ops:
        if op.kind != "pointwise" or not set(FLOATS) & set(op.dtypes) or op.name in seen:
            continue
        seen.add(op.name)
        ops.append(op)
    return ops


def domain(op, arg):
    d = DOMAIN.get(op.name, DEFAULT_DOMAIN)
    return d.get(arg, DEFAULT_DOMAIN) if isinstance(d, dict) else d


_CACHE = {}


def _base(np, lo, hi, dtype, size, seed):
    """uniform [lo, hi) as (NumPy array or None, loom tensor, PyTorch tensor), kept for the next op with
    the same domain (making 2 * 10^7 values costs more than timing most ops). 16-bit dtypes: the same
    float32 values rounded by each library."""
    import loom
    import torch
    key = (lo, hi, dtype, size, seed)
    if key not in _CACHE:
        while len(_CACHE) >= 4:
            del _CACHE[next(iter(_CACHE))]
        src = np.random.default_rng(seed).uniform(lo, hi, size).astype("float32" if dtype in HALVES else dtype)
        if dtype in HALVES:
            arr = src.astype(np.float16) if dtype == "float16" else None
            entry = (arr, loom.from_numpy(src).to(getattr(loom, dtype)), torch.from_numpy(src).to(getattr(torch, dtype)))
        else:
            entry = (src, loom.from_numpy(src), torch.from_numpy(src))
        _CACHE[key] = entry
    return _CACHE[key]


def make_inputs(np, op, dtype, n, strided, seed):
    """{arg name: (NumPy array or None, loom tensor, PyTorch tensor)} of n elements (every other one of
    2n when strided)."""
    import loom
    import torch
    out = {}
    for k, a in enumerate(op.inputs):
        size = 2 * n if strided else n
        if a.name == "condition":
            arr = np.random.default_rng(seed).random(size) < 0.5
            trio = (arr, loom.from_numpy(arr), torch.from_numpy(arr))
        else:
            lo, hi = domain(op, a.name)
            trio = _base(np, lo, hi, dtype, size, seed + k)   # another seed each: no self - self
        out[a.name] = tuple(None if v is None else v[::2] for v in trio) if strided else trio
    return out


def positional(op, tensors):
    """The call's arguments in schema order: the Tensors, then required non-Tensor ones (ARGS); the
    rest left to their defaults (ARGS may set them too: as keywords)."""
    pos, kw, extra = [], {}, ARGS.get(op.name, {})
    for a in op.schema.args:
        if a.type.base == "Tensor":
            pos.append(tensors[a.name])
        elif a.name in extra and not a.has_default:
            pos.append(extra[a.name])
        elif a.name in extra:
            kw[a.name] = extra[a.name]
        elif not a.has_default:
            raise SystemExit(f"{op.name}: no value for its argument {a.name!r}: add it to ARGS")
    return pos, kw


def best(fn, repeats):
    t = []
    for _ in range(repeats):
        s = time.perf_counter()
        fn()
        t.append(time.perf_counter() - s)
    return min(t)


def time_op(libs, op, dtype, n, strided, repeats):
    """{lib: seconds or None}: the best of `repeats` calls each, the libraries taking turns."""
    import numpy as np
    inputs = make_inputs(np, op, dtype, n, strided, seed=17)
    calls = {}
    for lib, (fn, kw) in libs.items():
        if fn is None:
            continue
        col = {"numpy": 0, "loom": 1, "torch": 2}[lib]
        tens = {k: v[col] for k, v in inputs.items()}
        if any(v is None for v in tens.values()):   # NumPy has no bfloat16
            continue
        args, kws = positional(op, tens)
        kws = {**kws, **kw}
        try:
            fn(*args, **kws)   # warm up (and find out whether it takes these arguments)
        except Exception as e:   # noqa: BLE001 -- report and leave the column empty
            print(f"  {op.name} {dtype}: {lib} failed: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        calls[lib] = (lambda fn=fn, args=args, kws=kws: fn(*args, **kws))
    times = {lib: [] for lib in calls}
    for _ in range(repeats):
        for lib, call in calls.items():
            times[lib].append(best(call, 1))
    return {lib: (min(times[lib]) if lib in times else None) for lib in libs}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", action="append", choices=FLOATS + HALVES, help="default: all four")
    ap.add_argument("--only", action="append", metavar="NAME", help="just these ops (repeatable)")
    ap.add_argument("--layout", action="append", choices=("contiguous", "strided"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--size", type=int, default=10 ** 7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--markdown", action="store_true", help="a markdown table (progress goes to stderr)")
    ap.add_argument("--list", action="store_true", help="the ops and what each is compared with, no timing")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    import numpy  # noqa: F401 -- resolve() finds the modules in sys.modules
    import torch
    import loom
    torch.set_num_threads(args.threads)
    loom.set_num_threads(args.threads)

    model = load(ROOT / "ops", ROOT / "native")
    ops = float_pointwise_ops(model)
    if args.only:
        unknown = set(args.only) - {op.name for op in ops}
        if unknown:
            raise SystemExit(f"not float pointwise ops: {', '.join(sorted(unknown))}")
        ops = [op for op in ops if op.name in args.only]
    dtypes = args.dtype or list(FLOATS + HALVES)
    layouts = args.layout or ["contiguous", "strided"]

    rows, skipped = [], []
    for op in ops:
        if op.name in SKIP:
            skipped.append((op.name, SKIP[op.name]))
            continue
        libs = {"numpy": numpy_fn(op), "torch": torch_fn(op), "loom": loom_fn(op)}
        if args.list:
            print(f"{op.name:22} " + "  ".join(f"{k}={getattr(v[0], '__name__', None)}" for k, v in libs.items()))
            continue
        if libs["loom"][0] is None:
            raise SystemExit(f"{op.name}: no loom function found: add it to LOOM")
        for dtype in dtypes:
            if dtype not in op.dtypes:
                continue
            for layout in layouts:
                t = time_op(libs, op, dtype, args.size, layout == "strided", args.repeats)
                others = [v for k, v in t.items() if k != "loom" and v is not None]
                speed = min(others) / t["loom"] if others and t["loom"] else None
                rows.append((op.name, dtype, layout, t["numpy"], t["torch"], t["loom"], speed))
                if args.markdown:
                    print(f"  {op.name} {dtype} {layout}: {_fmt_speed(speed)}", file=sys.stderr)
                else:
                    print(_line(rows[-1]), flush=True)
    if args.list:
        return
    if args.markdown:
        size = f"10^{len(str(args.size)) - 1}" if str(args.size).rstrip("0") == "1" else str(args.size)
        print(f"{size} elements, "
              f"{args.threads} threads, best of {args.repeats}; ms (lower is better); speed = faster of "
              "NumPy and PyTorch / loom (>= 1: loom at least as fast)\n")
        print("| op | dtype | layout | NumPy | PyTorch | loom | speed |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join([r[0], r[1], r[2], _ms(r[3]), _ms(r[4]), _ms(r[5]), _fmt_speed(r[6])]) + " |")
        print()
    for line in summary(rows):
        print(line)
    if skipped:
        print("skipped: " + "; ".join(f"{n} ({why})" for n, why in skipped))


def summary(rows):
    out = []
    for dtype in FLOATS + HALVES:
        for layout in ("contiguous", "strided"):
            sel = [r for r in rows if r[1] == dtype and r[2] == layout and r[6] is not None]
            if not sel:
                continue
            slow = min(sel, key=lambda r: r[6])
            below = sorted((r for r in sel if r[6] < 1.0), key=lambda r: r[6])
            out.append(f"{dtype} {layout}: {len(sel)} ops; slowest {slow[6]:.2f}x ({slow[0]}), "
                       f"median {statistics.median(r[6] for r in sel):.2f}x; below 1.0x: {len(below)}"
                       + (" (" + ", ".join(f"{r[0]} {r[6]:.2f}" for r in below) + ")" if below else ""))
    return out


def _ms(t):
    return "—" if t is None else (f"{t * 1e3:.1f}" if t >= 1e-2 else f"{t * 1e3:.3g}")


def _fmt_speed(s):
    return "—" if s is None else f"{s:.2f}x"


def _line(r):
    return f"{r[0]:20} {r[1]:8} {r[2]:10} numpy {_ms(r[3]):>7}  torch {_ms(r[4]):>7}  loom {_ms(r[5]):>7}  {_fmt_speed(r[6])}"


if __name__ == "__main__":
    main()
