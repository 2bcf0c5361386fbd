"""loom.fft against numpy.fft and torch.fft (issue 14's workloads): fft of 2^20 and of the prime
1,000,003 complex64 points, rfft of the same lengths in float32, and a batch of 1024 rows of 1024
points; each library in a process of its own (their thread pools would otherwise contend).

    python tools/bench/fft.py [--threads 2] [--repeats 5]

Prints the median time of each and the other library's time over loom's (>1: loom faster).
"""
import argparse
import os
import subprocess
import sys

ROWS = ("fft 2^20 complex64", "fft 1000003 complex64", "rfft 2^20 float32", "rfft 1000003 float32",
        "fft 1024 x 1024 rows complex64")


def times(lib_name, repeats):
    import numpy as np
    from timing import measure
    rng = np.random.default_rng(0)
    data = []
    for n in (2 ** 20, 1000003):
        data.append((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64))
    reals = [rng.standard_normal(n).astype(np.float32) for n in (2 ** 20, 1000003)]
    rows = (rng.standard_normal((1024, 1024)) + 1j * rng.standard_normal((1024, 1024))).astype(np.complex64)
    if lib_name == "numpy":
        mod = np.fft
    else:
        lib = __import__(lib_name)
        lib.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        import importlib
        mod = importlib.import_module(f"{lib_name}.fft")
        data, reals, rows = [lib.from_numpy(x) for x in data], [lib.from_numpy(x) for x in reals], lib.from_numpy(rows)
    fns = [lambda: mod.fft(data[0]), lambda: mod.fft(data[1]), lambda: mod.rfft(reals[0]),
           lambda: mod.rfft(reals[1]), lambda: mod.fft(rows)]
    for f in fns:   # plans made before timing, as each library caches them
        f()
    return [measure(f, repeats=repeats, min_sample=0.05) for f in fns]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    sys.path.insert(0, os.path.dirname(__file__))
    if args.child:
        print(*times(args.child, args.repeats))
        return
    got = {}
    for lib in ("loom", "torch", "numpy"):
        r = subprocess.run([sys.executable, __file__, "--child", lib, "--threads", str(args.threads),
                            "--repeats", str(args.repeats)], capture_output=True, text=True, check=True)
        got[lib] = [float(v) for v in r.stdout.split()]
    print(f"threads {args.threads}; median of {args.repeats}; ratio = other's time / loom's (>1: loom faster)")
    print(f"{'workload':32s} {'loom':>10s} {'torch':>10s} {'numpy':>10s} {'vs torch':>9s} {'vs numpy':>9s}")
    for i, label in enumerate(ROWS):
        t = [got[lib][i] for lib in ("loom", "torch", "numpy")]
        print(f"{label:32s} " + " ".join(f"{v * 1e3:8.3f}ms" for v in t) +
              f" {t[1] / t[0]:8.2f}x {t[2] / t[0]:8.2f}x", flush=True)


if __name__ == "__main__":
    main()
