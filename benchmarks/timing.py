"""The benchmarks' timers: the best of a few calls after an untimed warm-up (imports, compilation, caches), and one
whole command timed with its JSON report read."""

import json
import subprocess
import sys
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


def timed_report(cmd: list, cwd=None) -> tuple[dict, float]:
    """The JSON report of command ``cmd`` (a ``privcheck audit … --json``; exit 0 or 1, refuted or not) and its wall
    seconds, process start-up included; any other exit ends the benchmark with the command's error."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        sys.exit(f"command failed ({done.returncode}): {' '.join(map(str, cmd))}\n{done.stderr.strip()}")
    return json.loads(done.stdout), seconds
