"""Counters under continual observation: how close an audit of a correct counter comes to its exact privacy, how
fast each planted bug is refuted, and what a draw costs.

    python3 benchmarks/counters.py --tightness --lengths 16,64,256 --samples 100000 [--counters binary,smooth-binary]
        [--claims rho] [--selection 200000]
    python3 benchmarks/counters.py --bugs          # examples/counters.py's planted bugs, the default command
    python3 benchmarks/counters.py --draw-cost --lengths 1024,65536

Tightness: each built-in counter (:mod:`privcheck.mechanisms.counters`) calibrated to μ = 1 (GDP) and, separately,
ρ = 0.5 (zCDP), audited on the all-zero stream with its event-level neighbours searched; printed: the releases' exact
μ and ρ (:meth:`~privcheck.mechanisms.counters.GaussianCounter.exact_rho`), the certified ones, their ratios, the
verdict and the seconds.  Bugs: the default command on each function of examples/counters.py, its verdict, bound and
seconds.  Draw cost: seconds per draw of the exact binary counter (and its float form) at each length.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def tightness(lengths, samples: int, seed: int, names=None, claims=("mu", "rho"), selection=None) -> None:
    from privcheck import audit
    from privcheck.mechanisms import counters

    every = (counters.BinaryCounter, counters.HonakerCounter, counters.SmoothBinaryCounter, counters.ToeplitzCounter)
    chosen = [c for c in every if names is None or c.name.removesuffix("-counter") in names]

    print(
        "| counter | T | claim | exact ρ or μ (worst element) | of the pair audited | certified | certified / pair's "
        "| certified / worst | verdict | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for cls in chosen:
        for T in lengths:
            for kind, kw in (("mu", {"mu": 1.0}), ("rho", {"rho": 0.5})):
                if kind not in claims:
                    continue
                m = cls(T, **kw)
                per = m.rho_per_element()
                t0 = time.perf_counter()
                r = audit(m, input=np.zeros(T), samples=samples, selection_samples=selection, seed=seed)
                took = time.perf_counter() - t0
                x, x2 = (np.asarray(v, dtype=float) for v in r.witness["pair"])
                i = int(np.flatnonzero(x != x2)[0])  # the element the audited pair changes
                worst, pair = (max(per), per[i]) if kind == "rho" else ((2 * max(per)) ** 0.5, (2 * per[i]) ** 0.5)
                got = r.mu_lower if kind == "mu" else r.rho_lower
                claim = f"μ = {kw['mu']:g}" if kind == "mu" else f"ρ = {kw['rho']:g}"
                print(
                    f"| {cls.__name__} | {T} | {claim} | {worst:.4f} | {pair:.4f} (element {i}) | {got:.4f} | "
                    f"{got / pair:.3f} | {got / worst:.3f} | {r.verdict} | {took:.1f} |",
                    flush=True,
                )


BUGS = [
    "examples/counters.py:binary --rho 4 --stream-length 16",
    "examples/counters.py:variance_as_sd --rho 4 --stream-length 16",
    "examples/counters.py:reused_noise --rho 4 --stream-length 16",
    "examples/counters.py:missing_level --rho 4 --stream-length 16",
    "examples/counters.py:binary --rho 4 --stream-length 16 --neighbours user:4,2",
    "examples/counters.py:user_level --rho 4 --stream-length 16 --neighbours user:4,2",
]


def bugs(seed: int) -> None:
    print("| command (privcheck audit …) | verdict | certified ρ | seconds |\n|---|---|---|---|")
    for cmd in BUGS:
        argv = [sys.executable, "-m", "privcheck.cli", "audit", *cmd.split(), "--seed", str(seed), "--json", "--quiet"]
        t0 = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
        took = time.perf_counter() - t0
        import json

        try:
            r = json.loads(done.stdout)
            print(f"| `{cmd}` | {r['verdict']} | {r['rho_lower']:.4f} | {took:.1f} |", flush=True)
        except ValueError:
            print(f"| `{cmd}` | error: {done.stderr.strip()[-200:]} | | {took:.1f} |", flush=True)


def draw_cost(lengths) -> None:
    from privcheck.mechanisms.counters import BinaryCounter

    print("| T | exact: seconds per draw | float: seconds per draw |\n|---|---|---|")
    for T in lengths:
        row = []
        for sampler in ("exact", "float"):
            m = BinaryCounter(T, rho=0.5, sampler=sampler)
            rng = np.random.default_rng(0)
            n = max(1, 2**22 // (2 * T))  # about 4·10⁶ noisy blocks a batch
            m.sample(np.zeros(T), rng, 1)
            t0 = time.perf_counter()
            m.sample(np.zeros(T), rng, n)
            row.append((time.perf_counter() - t0) / n)
        print(f"| {T} | {row[0]:.3g} | {row[1]:.3g} |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tightness", action="store_true")
    p.add_argument("--bugs", action="store_true")
    p.add_argument("--draw-cost", action="store_true")
    p.add_argument("--lengths", default="16,64")
    p.add_argument("--samples", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--counters", default=None, help="e.g. binary,smooth-binary (default: all four)")
    p.add_argument("--claims", default="mu,rho", help="the calibrations audited: mu, rho or both (the default)")
    p.add_argument("--selection", type=int, default=None, help="selection draws a side (default: the audit's)")
    args = p.parse_args()
    lengths = [int(v) for v in args.lengths.split(",")]
    if args.tightness:
        names = None if args.counters is None else args.counters.split(",")
        tightness(lengths, args.samples, args.seed, names, tuple(args.claims.split(",")), args.selection)
    if args.bugs:
        bugs(args.seed)
    if args.draw_cost:
        draw_cost(lengths)


if __name__ == "__main__":
    main()
