"""Speed of the exact samplers (issue 19), beside numpy's floating-point ones in the same run, and the
sampled Laplace audit with each sampler.

    python3 benchmarks/exact_samplers.py [--draws 4000000] [--repeats 5] [--seeds 7]

1. draws per second (median over repeats, after a warm-up that loads numba): discrete Laplace of scale 10 and
   of 2^20 + 1 (the grid Laplace's scale at ε = 1) against ``rng.laplace``; discrete Gaussian of σ² = 100
   against ``rng.normal``, of σ² = 101 (no integer σ: the vectorised acceptance test), and of σ = 887 in calls of
   16,848 draws (one run's noise in examples/linear_rl.py);
2. the whole ``privcheck audit laplace --epsilon 1 --pair 0 1 --method sample --samples 1000000`` command with
   ``--sampler exact`` (the grid, the default) and ``--sampler float``, over seeds: median ε_lower and wall time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from fractions import Fraction

import numpy as np

from privcheck.mechanisms.exact_sampling import discrete_gaussian, discrete_laplace


def rate(fn, draws, repeats):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(draws)
        out.append(draws / (time.perf_counter() - t0))
    return statistics.median(out)


def _calls(rng, sigma, n, per_call):
    """n draws in calls of ``per_call`` (an agent's noise for one run: examples/linear_rl.py draws 16,848)."""
    for _ in range(max(1, n // per_call)):
        discrete_gaussian(rng, Fraction(sigma * sigma), per_call)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=4_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seeds", type=int, default=7)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    discrete_laplace(rng, 10, 10)  # warm-up: numba and its cache
    rows = [
        ("discrete Laplace, t = 10", lambda n: discrete_laplace(rng, 10, n)),
        ("discrete Laplace, t = 2^20 + 1", lambda n: discrete_laplace(rng, (1 << 20) + 1, n)),
        ("rng.laplace(0, 10)", lambda n: rng.laplace(0.0, 10.0, n)),
        ("discrete Gaussian, σ² = 100", lambda n: discrete_gaussian(rng, Fraction(100), n)),
        (
            "discrete Gaussian, σ² = 101 (no integer σ: the vectorised test)",
            lambda n: discrete_gaussian(rng, Fraction(101), n),
        ),
        ("discrete Gaussian, σ = 887, 16,848 a call", lambda n: _calls(rng, 887, n, 16_848)),
        ("rng.normal(0, 10)", lambda n: rng.normal(0.0, 10.0, n)),
    ]
    for name, fn in rows:
        print(f"{name}: {rate(fn, a.draws, a.repeats) / 1e6:.2f}·10⁶ draws/s", flush=True)
    for sampler in ("exact", "float"):
        eps, secs = [], []
        for s in range(a.seeds):
            t0 = time.perf_counter()
            out = subprocess.run(
                [
                    "privcheck",
                    "audit",
                    "laplace",
                    "--epsilon",
                    "1",
                    "--pair",
                    "0",
                    "1",
                    "--method",
                    "sample",
                    "--samples",
                    "1000000",
                    "--sampler",
                    sampler,
                    "--seed",
                    str(s),
                    "--json",
                ],
                capture_output=True,
                text=True,
                cwd=tempfile.gettempdir(),
            )
            secs.append(time.perf_counter() - t0)
            eps.append(json.loads(out.stdout)["epsilon_lower"])
        print(
            f"sampled Laplace audit, --sampler {sampler}: median ε_lower {statistics.median(eps):.4f} "
            f"(min {min(eps):.4f}), median {statistics.median(secs):.2f} s (max {max(secs):.2f}) over "
            f"{a.seeds} seeds",
            flush=True,
        )


if __name__ == "__main__":
    main()
