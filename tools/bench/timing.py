"""Median timing with warmup and adaptive iteration counts, GC off while timing."""
import gc
import statistics
import time


def measure(fn, repeats=7, min_sample=0.02, max_iters=1_000_000):
    """Median seconds per call of fn()."""
    fn()
    n, t = 1, 0.0
    while n < max_iters:   # grow the iteration count until one sample takes min_sample
        t = _sample(fn, n)
        if t >= min_sample:
            break
        n *= 10 if t < min_sample / 20 else 2
    samples = [t / n] + [_sample(fn, n) / n for _ in range(repeats - 1)]
    return statistics.median(samples)


def _sample(fn, n):
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()
