"""loom vs NumPy vs PyTorch, same process, same threads, same OpenBLAS core type.

    python tools/bench/run.py [--quick] [--only SUBSTRING] [--threads N] [--coretype NAME] [--markdown]
"""
import argparse
import os
import sys


def parse():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--only", help="run workloads whose name contains this")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--coretype", default=os.environ.get("OPENBLAS_CORETYPE", ""),
                    help="OPENBLAS_CORETYPE for every library (default: OpenBLAS's own detection; "
                         "SkylakeX needs AVX-512)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table for the README")
    return ap.parse_args()


def main():
    args = parse()
    # before NumPy, loom or torch load OpenBLAS / OpenMP
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    if args.coretype:
        os.environ["OPENBLAS_CORETYPE"] = args.coretype
    sys.path.insert(0, os.path.dirname(__file__))
    import numpy as np
    import loom
    from timing import measure
    from workloads import WORKLOADS
    import nn_workloads  # noqa: F401  (registers the training workloads)
    try:
        import torch
        torch.set_num_threads(args.threads)
    except ImportError:
        torch = None
    loom.set_num_threads(args.threads)
    libs = {"loom": loom, "numpy": np, "torch": torch}

    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"# {cpu}, {args.threads} threads, OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(auto)')}")
    print(f"# loom {loom.__version__}, numpy {np.__version__}, torch {torch.__version__ if torch else '-'}")
    rows = []
    for w in WORKLOADS:
        if args.only and args.only not in w["name"]:
            continue
        vals, ref = {}, None
        for name in ("numpy", "loom", "torch"):
            mod = libs[name]
            if mod is None:
                vals[name] = None
                continue
            try:
                made = w["setup"](name, mod)
                if made is None:   # this library has no such thing (NumPy and autograd)
                    vals[name] = None
                    continue
                fn, result = made
                result = np.asarray(result, dtype=np.float64)
                if ref is None:
                    ref = result
                elif not np.allclose(result, ref, rtol=1e-3, atol=1e-3):
                    vals[name] = "WRONG"
                    continue
                sec = measure(fn, repeats=3 if args.quick else 7, min_sample=0.01 if args.quick else 0.03)
                vals[name] = sec * 1e6 if w["amount"] is None else w["amount"] / sec / 1e9
            except Exception as e:   # one broken cell must not hide the rest of the table
                vals[name] = f"error: {type(e).__name__}: {e}"[:40]
        rows.append((w, vals))
        print(_line(w, vals), flush=True)
    if args.markdown:
        print()
        print(_markdown(rows))


def _fmt(v):
    if v is None:
        return "-"
    return v if isinstance(v, str) else (f"{v:.2f}" if v < 10 else f"{v:.1f}")


def _ratio(w, vals, other):
    a, b = vals.get("loom"), vals.get(other)
    if not isinstance(a, float) or not isinstance(b, float):
        return "-"
    r = b / a if w["amount"] is None else a / b   # >1 means loom is faster
    return f"{r:.2f}x"


def _verdict(w, vals):
    t, v = w["target"], vals.get("loom")
    if t is None or not isinstance(v, float):
        return "", ""
    kind, x = t
    if kind == "le":
        return f"<= {x} us", "met" if v <= x else "MISSED"
    if kind == "ge":
        return f">= {x} GB/s", "met" if v >= x else "MISSED"
    other = "torch" if kind == "vs_torch" else "numpy"
    o = vals.get(other)
    if not isinstance(o, float):
        return f">= {x}x {other}", "-"
    faster = o / v if w["amount"] is None else v / o   # latency: lower is better
    return f">= {x}x {other}", "met" if faster >= x else "MISSED"


def _line(w, vals):
    target, verdict = _verdict(w, vals)
    cells = "  ".join(f"{k}={_fmt(vals.get(k)):>8}" for k in ("loom", "numpy", "torch"))
    return (f"{w['name']:<28} [{w['unit']:>7}] {cells}  loom/numpy={_ratio(w, vals, 'numpy'):>6} "
            f"loom/torch={_ratio(w, vals, 'torch'):>6}  {target} {verdict}")


def _markdown(rows):
    out = ["| workload | unit | loom | NumPy | PyTorch | loom vs NumPy | loom vs PyTorch | target |",
           "|---|---|---|---|---|---|---|---|"]
    for w, vals in rows:
        target, verdict = _verdict(w, vals)
        out.append(f"| {w['name']} | {w['unit']} | {_fmt(vals.get('loom'))} | {_fmt(vals.get('numpy'))} | "
                   f"{_fmt(vals.get('torch'))} | {_ratio(w, vals, 'numpy')} | {_ratio(w, vals, 'torch')} | "
                   f"{target} {verdict} |")
    return "\n".join(out) + "\n\nRatios above 1 mean loom is faster (for latency, the inverse time ratio)."


if __name__ == "__main__":
    main()
