"""linalg: solve, cholesky, qr, eigh, svd, loom against NumPy and PyTorch in one run (issue 14's
workloads): one 512x512 float64 matrix, and a batch of 256 8x8 float64 matrices (NumPy's
batched linalg loops over the batch in its gufunc; PyTorch's calls LAPACK per matrix too).

    python tools/bench/linalg.py [--threads 2] [--repeats 5]

Prints the median time of each and loom's speed relative to each library (>1: loom faster).
"""
import argparse
import os
import sys


def workloads(n, batch, rng, dtype):
    import numpy as np
    shape = (batch, n, n) if batch else (n, n)
    A = rng.standard_normal(shape) + n ** 0.5 * np.eye(n)
    B = rng.standard_normal(shape[:-1])   # one right-hand side vector per matrix
    X = rng.standard_normal(shape)
    S = X @ np.swapaxes(X, -1, -2) + n * np.eye(n)
    return A.astype(dtype), B.astype(dtype), S.astype(dtype)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated workload names (default: all)")
    ap.add_argument("--dtype", default="float64", choices=("float32", "float64"))
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(args.threads))
    sys.path.insert(0, os.path.dirname(__file__))
    import numpy as np
    import torch
    import loom
    from timing import measure
    torch.set_num_threads(args.threads)
    loom.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    print(f"{args.dtype}; threads {args.threads}; median of {args.repeats}; ratio = other's time / loom's (>1: loom faster)")
    print(f"{'workload':26s} {'loom':>10s} {'numpy':>10s} {'torch':>10s} {'vs numpy':>9s} {'vs torch':>9s}")
    for label, n, batch in (("512x512", 512, 0), ("256 x 8x8", 8, 256)):
        A, B, S = workloads(n, batch, rng, args.dtype)
        la, lb, ls = (loom.tensor(x) for x in (A, B, S))
        ta, tb, ts = (torch.tensor(x) for x in (A, B, S))
        cases = {
            "solve": (lambda: loom.linalg.solve(la, lb), lambda: np.linalg.solve(A, B[..., None]),
                      lambda: torch.linalg.solve(ta, tb)),
            "cholesky": (lambda: loom.linalg.cholesky(ls), lambda: np.linalg.cholesky(S),
                         lambda: torch.linalg.cholesky(ts)),
            "qr": (lambda: loom.linalg.qr(la), lambda: np.linalg.qr(A), lambda: torch.linalg.qr(ta)),
            "eigh": (lambda: loom.linalg.eigh(ls), lambda: np.linalg.eigh(S), lambda: torch.linalg.eigh(ts)),
            "svd": (lambda: loom.linalg.svd(la, full_matrices=False), lambda: np.linalg.svd(A, full_matrices=False),
                    lambda: torch.linalg.svd(ta, full_matrices=False)),
            "inv": (lambda: loom.linalg.inv(la), lambda: np.linalg.inv(A), lambda: torch.linalg.inv(ta)),
            "det": (lambda: loom.linalg.det(la), lambda: np.linalg.det(A), lambda: torch.linalg.det(ta)),
        }
        only = [w for w in args.only.split(",") if w]
        for name, (fl, fn, ft) in cases.items():
            if only and name not in only:
                continue
            t = [measure(f, repeats=args.repeats, min_sample=0.05) for f in (fl, fn, ft)]
            print(f"{name + ' ' + label:26s} {t[0] * 1e3:8.3f}ms {t[1] * 1e3:8.3f}ms {t[2] * 1e3:8.3f}ms "
                  f"{t[1] / t[0]:8.2f}x {t[2] / t[0]:8.2f}x", flush=True)


if __name__ == "__main__":
    main()
