"""Issue 13's workloads: add, mul, exp and sum on 10^7 float16 and bfloat16 elements; mul, abs,
exp and sum on 10^7 complex64 elements and a 1024x1024 complex64 matmul; loom against PyTorch
(NumPy too where it has the dtype); the 16-bit rows in one process, the complex rows and an MLP
training step in float32, float16, bfloat16 and under bfloat16 autocast each library in a
process of its own.

    python tools/bench/dtypes.py [--threads 2] [--repeats 5] [--part 16bit|complex|mlp|all]

Prints the median time of each and the other library's time over loom's (>1: loom faster).
"""
import argparse
import os
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--part", choices=("16bit", "complex", "mlp", "all"), default="all")
    ap.add_argument("--mlp", nargs=2, metavar=("LIB", "DTYPE"), help=argparse.SUPPRESS)
    ap.add_argument("--autocast", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--complex", metavar="LIB", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    sys.path.insert(0, os.path.dirname(__file__))
    if args.mlp:
        print(_mlp_step(*args.mlp, args.autocast, args.repeats))
        return
    if args.complex:
        print(*_complex_times(args.complex, args.repeats))
        return
    import numpy as np
    import torch
    import loom
    from timing import measure
    torch.set_num_threads(args.threads)
    loom.set_num_threads(args.threads)
    n = 10 ** 7
    print(f"threads {args.threads}; median of {args.repeats}; ratio = other's time / loom's (>1: loom faster)")
    print(f"{'workload':26s} {'loom':>10s} {'torch':>10s} {'numpy':>10s} {'vs torch':>9s} {'vs numpy':>9s}")
    for name in ("float16", "bfloat16") if args.part in ("16bit", "all") else ():
        base = np.random.default_rng(0).standard_normal((2, n)).astype(np.float32)
        la, lb = (loom.from_numpy(x).to(getattr(loom, name)) for x in base)
        ta, tb = (torch.from_numpy(x).to(getattr(torch, name)) for x in base)
        na, nb = (x.astype(np.float16) for x in base) if name == "float16" else (None, None)
        cases = {
            "add": (lambda: la + lb, lambda: ta + tb, lambda: na + nb),
            "mul": (lambda: la * lb, lambda: ta * tb, lambda: na * nb),
            "exp": (lambda: la.exp(), lambda: ta.exp(), lambda: np.exp(na)),
            "sum": (lambda: la.sum(), lambda: ta.sum(), lambda: na.sum()),
        }
        for op, fns in cases.items():
            _row(f"{op} 1e7 {name}", [measure(f, repeats=args.repeats, min_sample=0.05) if f is not None and
                                      (na is not None or k < 2) else None for k, f in enumerate(fns)])
    if args.part in ("complex", "all"):
        _complex_rows(args)
    mlps = (("float32", False), ("float16", False), ("bfloat16", False), ("bfloat16", True))
    for name, amp in mlps if args.part in ("mlp", "all") else ():
        label = f"MLP step {name}" + (" autocast" if amp else "")
        _row(label, [_mlp_alone(lib, name, amp, args) for lib in ("loom", "torch")] + [None])


COMPLEX_ROWS = ("mul 1e7 complex64", "abs 1e7 complex64", "exp 1e7 complex64", "sum 1e7 complex64",
                "matmul 1024^2 complex64")


def _complex_rows(args):
    """The complex64 workloads, each library in a process of its own (as the MLP rows)."""
    import subprocess
    times = {}
    for lib in ("loom", "torch", "numpy"):
        r = subprocess.run([sys.executable, __file__, "--complex", lib, "--threads", str(args.threads),
                            "--repeats", str(args.repeats)], capture_output=True, text=True, check=True)
        times[lib] = [float(v) for v in r.stdout.split()]
    for i, label in enumerate(COMPLEX_ROWS):
        _row(label, [times[lib][i] for lib in ("loom", "torch", "numpy")])


def _complex_times(lib_name, repeats):
    """Seconds per workload of COMPLEX_ROWS in one library (loom, torch or numpy)."""
    import importlib
    import numpy as np
    from timing import measure
    rng = np.random.default_rng(0)
    n, m = 10 ** 7, 1024
    a, b = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64) for _ in range(2))
    A, B = ((rng.standard_normal((m, m)) + 1j * rng.standard_normal((m, m))).astype(np.complex64) for _ in range(2))
    if lib_name != "numpy":
        lib = importlib.import_module(lib_name)
        lib.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
        a, b, A, B = (lib.from_numpy(x) for x in (a, b, A, B))
    fns = (lambda: a * b, lambda: abs(a), lambda: np.exp(a) if lib_name == "numpy" else a.exp(),
           lambda: a.sum(), lambda: A @ B)
    return [measure(f, repeats=repeats, min_sample=0.05) for f in fns]


def _mlp_alone(lib, name, amp, args):
    """The MLP step timed in a process of its own (one library loaded: their OpenMP threads would
    otherwise spin against each other)."""
    import subprocess
    r = subprocess.run([sys.executable, __file__, "--mlp", lib, name, "--threads", str(args.threads),
                        "--repeats", str(args.repeats)] + (["--autocast"] if amp else []),
                       capture_output=True, text=True, check=True)
    return float(r.stdout.split()[-1])


def _mlp_step(lib_name, name, amp, repeats):
    """Seconds per SGD step of a 784-512-512-10 MLP on a batch of 256: parameters and data in the dtype,
    or (amp) float32 parameters under autocast to it."""
    import importlib
    import numpy as np
    from timing import measure
    lib = importlib.import_module(lib_name)
    lib.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    dt = getattr(lib, name)
    model = lib.nn.Sequential(lib.nn.Linear(784, 512), lib.nn.ReLU(), lib.nn.Linear(512, 512), lib.nn.ReLU(),
                              lib.nn.Linear(512, 10))
    model = model if amp else model.to(dt)
    opt = lib.optim.SGD(model.parameters(), lr=0.01)
    x = lib.tensor(np.random.default_rng(1).standard_normal((256, 784)).astype(np.float32))
    x = x if amp else x.to(dt)
    y = lib.tensor(np.random.default_rng(2).integers(0, 10, 256))

    def step():
        opt.zero_grad()
        with lib.autocast("cpu", dtype=dt, enabled=amp):
            loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
    return measure(step, repeats=repeats, min_sample=0.05)


def _row(label, t):
    def ms(v):
        return f"{v * 1e3:8.3f}ms" if v is not None else f"{'-':>10s}"

    def ratio(v):
        return f"{v / t[0]:8.2f}x" if v is not None else f"{'-':>9s}"
    print(f"{label:26s} {ms(t[0])} {ms(t[1])} {ms(t[2])} {ratio(t[1])} {ratio(t[2])}", flush=True)


if __name__ == "__main__":
    main()
