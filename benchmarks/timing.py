"""The benchmarks' timer: the best of a few calls after an untimed warm-up (imports, compilation, caches)."""

import time


def best_of(repeats: int, go) -> float:
    """Seconds of the fastest of ``repeats`` calls of ``go()``, after one untimed call."""
    go()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        go()
        times.append(time.perf_counter() - t0)
    return min(times)
