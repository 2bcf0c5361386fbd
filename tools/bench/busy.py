"""Issue 17's busy-machine mode: the digits training steps while other processes hold cores.

Starts --competitors processes that spin in pure Python for the whole run (as another job on a
shared machine would), then times the digits MLP and CNN training steps, one library per process:
loom at 1 thread, loom at --threads, PyTorch at --threads. The targets: loom at --threads is never
slower than loom at 1 thread, nor than PyTorch at --threads. Each figure is the median of --rounds
rounds of 100 steps (the median, not the best: a busy machine's cost is in its bad rounds).

    python tools/bench/busy.py [--threads 2] [--competitors 1] [--rounds 7]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

STEPS = 100


def spin():
    while True:
        pass


def child(lib, threads, rounds):
    mod = __import__(lib)
    mod.set_num_threads(threads)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from nn_workloads import _cnn, _digits, _mlp, _trainer
    x, y = _digits()
    for name, build in (("MLP 64-128-128-10 step", _mlp), ("CNN step", _cnn)):
        step, _, _ = _trainer(mod, build, x, y, 64)
        for _ in range(20):
            step()
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(STEPS):
                step()
            times.append((time.perf_counter() - t0) / STEPS)
        print(f"{name}\t{statistics.median(times) * 1e6:.1f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--competitors", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--spin", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.spin:
        return spin()
    if args.child:
        return child(args.child, args.threads, args.rounds)
    hogs = [subprocess.Popen([sys.executable, __file__, "--spin"]) for _ in range(args.competitors)]
    results = {}
    try:
        for lib, threads in (("loom", 1), ("loom", args.threads), ("torch", args.threads)):
            env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
            out = subprocess.run([sys.executable, __file__, "--child", lib, "--threads", str(threads),
                                  "--rounds", str(args.rounds)], env=env, capture_output=True, text=True)
            if out.returncode:
                sys.exit(f"{lib} at {threads} threads failed:\n{out.stderr}")
            for line in out.stdout.splitlines():
                name, us = line.split("\t")
                results[(name, lib, threads)] = float(us)
    finally:
        for h in hogs:
            h.kill()
    t = args.threads
    print(f"{args.competitors} competing busy process(es); median of {args.rounds} x {STEPS} steps, us per step")
    print(f"{'workload':26s} {'loom 1T':>9s} {f'loom {t}T':>9s} {f'torch {t}T':>9s}  {f'loom {t}T vs 1T':>14s}  "
          f"{f'vs torch {t}T':>13s}")
    for name in dict.fromkeys(k[0] for k in results):
        one, many, torch = (results[(name, "loom", 1)], results[(name, "loom", t)], results[(name, "torch", t)])
        print(f"{name:26s} {one:9.1f} {many:9.1f} {torch:9.1f}  {one / many:13.2f}x  {torch / many:12.2f}x  "
              f"{'met' if many <= one * 1.0 and many <= torch else 'MISSED'}")


if __name__ == "__main__":
    main()
