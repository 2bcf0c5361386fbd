"""Median timing with warmup and adaptive iteration counts, GC off while timing."""
import gc
import statistics
import time
import timeit


def measure(fn, repeats=7, min_sample=0.02, max_iters=1_000_000):
    """Median seconds per call of fn(), or of a (statement, globals) pair, which
    times the statement itself (a lambda call would add ~50 ns to a 1 us op)."""
    if isinstance(fn, tuple):
        fn = timeit.Timer(fn[0], globals=fn[1]).timeit   # timeit(n) runs the statement n times
        return _measure_timer(fn, repeats, min_sample, max_iters)
    fn()
    n, t = 1, 0.0
    while n < max_iters:   # grow the iteration count until one sample takes min_sample
        t = _sample(fn, n)
        if t >= min_sample:
            break
        n *= 10 if t < min_sample / 20 else 2
    samples = [t / n] + [_sample(fn, n) / n for _ in range(repeats - 1)]
    return statistics.median(samples)


def _measure_timer(timer, repeats, min_sample, max_iters):
    n = 1
    while n < max_iters and timer(n) < min_sample:
        n *= 10
    return statistics.median(timer(n) / n for _ in range(repeats))


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
