"""The digits training steps timed with one library per process, so no other
library's thread pools share the cores (tools/bench/run.py puts all three in one).

    python tools/bench/alone.py [--threads N]
"""
import argparse
import os
import subprocess
import sys
import time

STEPS = 200


def child(lib, threads):
    import numpy as np
    mod = __import__(lib)
    mod.set_num_threads(threads)
    sys.path.insert(0, os.path.dirname(__file__))
    from nn_workloads import _cnn, _digits, _mlp, _trainer
    x, y = _digits()
    for name, build in (("MLP 64-128-128-10 step", _mlp), ("CNN step", _cnn)):
        step, _, _ = _trainer(mod, build, x, y, 64)
        for _ in range(50):
            step()
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(STEPS):
                step()
            best = min(best, (time.perf_counter() - t0) / STEPS)
        print(f"{lib:6s} {name:24s} {best * 1e6:9.1f} us  (batch 64, best of 5 x {STEPS})", flush=True)
    del np


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.threads)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OPENBLAS_NUM_THREADS=str(args.threads))
    for lib in ("loom", "torch"):
        subprocess.run([sys.executable, __file__, "--child", lib, "--threads", str(args.threads)], env=env, check=False)


if __name__ == "__main__":
    main()
