"""How much one seed says on the field benchmark's rows with exact output laws: privcheck's certified ε over
several seeds, beside the *ceiling* — the best event of the exact laws (the likelihood-ratio prefix that the
reach of ``field_oracle.py`` picks), certified on fresh draws with the same seeds' noise.

A row's DP-Sniper figure is one number from 2·10⁸ draws; at 10⁶ draws the certificate itself moves by a few
hundredths between seeds, so on a row whose reach equals DP-Sniper's bound (SparseVectorTechnique6) even the
ceiling falls below it on about half the seeds.  Comparisons there are of medians.

    python3 benchmarks/field_spread.py [--seeds K] [--samples N] [--only NAME …]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from field_mechanisms import CASES  # noqa: E402
from field_oracle import _PAIRWISE, DISTRIBUTIONS, reach  # noqa: E402
from privcheck.audits.stats import cp_lower, cp_upper  # noqa: E402


def best_event(name, pair, n):
    """(the outcomes of the best likelihood-ratio prefix at n draws, which side is the numerator)."""
    if name in _PAIRWISE:  # the law of the bits where the two inputs' filters differ
        d1, d2 = DISTRIBUTIONS[name](pair[0], pair[1]), DISTRIBUTIONS[name](pair[1], pair[0])
    else:
        d1, d2 = (DISTRIBUTIONS[name](np.asarray(x)) for x in pair)
    keys = sorted(set(d1) | set(d2))
    p = np.array([d1.get(k, 0.0) for k in keys])
    q = np.array([d2.get(k, 0.0) for k in keys])
    alpha, best = 0.025, (-np.inf, None, 0)
    for side, (a, b) in enumerate(((p, q), (q, p))):
        order = np.argsort(-(a / np.maximum(b, 1e-300)), kind="stable")
        ka = np.floor(np.minimum(np.cumsum(a[order]), 1.0) * n)
        kb = np.ceil(np.minimum(np.cumsum(b[order]), 1.0) * n)
        with np.errstate(divide="ignore"):
            eps = np.log(cp_lower(ka, n, alpha)) - np.log(cp_upper(kb, n, alpha))
        j = int(np.nanargmax(eps))
        if eps[j] > best[0]:
            best = (eps[j], {keys[i] for i in order[: j + 1]}, side)
    return best[1], best[2]


def _keys(case, out):
    """Each draw as a key of the exact law: the output itself, or (RAPPOR) the bits where the filters differ."""
    rows = np.asarray(out).reshape(len(out), -1)
    if case.name in _PAIRWISE:
        import field_mechanisms

        a, b = (set(field_mechanisms.bloom_bits(int(x[0]))) for x in case.pair)
        diff = sorted(a ^ b)
        return (rows[:, diff].astype(np.int64) << np.arange(len(diff))).sum(axis=1).tolist()
    return [tuple(r) if len(r) > 1 else r[0] for r in rows.tolist()]


def ceiling(case, seed, n):
    """The best event of the exact laws, certified on n fresh draws per side (95 %, as privcheck)."""
    event, side = best_event(case.name, case.pair, n)
    rng = np.random.default_rng([seed, 99])
    counts = []
    for x in case.pair:
        out = case.fn(np.asarray(x), rng, n)
        counts.append(sum(k in event for k in _keys(case, out)))
    k_num, k_den = (counts[0], counts[1]) if side == 0 else (counts[1], counts[0])
    return float(np.log(cp_lower(k_num, n, 0.025)) - np.log(cp_upper(k_den, n, 0.025)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--samples", type=int, default=10**6)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    print(f"{args.samples:,} samples per side, seeds 0–{args.seeds - 1}, 95 %, DP-Sniper's pairs")
    print(
        "| mechanism | DP-Sniper ε ≥ | reach | privcheck median [min, max] | ceiling median [min, max] | "
        "privcheck / ceiling (medians) | privcheck median / DP-Sniper | seconds per audit |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case in CASES:
        if case.name not in DISTRIBUTIONS or (args.only and case.name not in args.only):
            continue
        ours, ceil, t = [], [], []
        for seed in range(args.seeds):
            r, seconds = case.audited(args.samples, seed, pairs=[case.pair])
            t.append(seconds)
            ours.append(r.epsilon_lower)
            ceil.append(ceiling(case, seed, args.samples))
        fmt = lambda v: f"{np.median(v):.4f} [{min(v):.4f}, {max(v):.4f}]"  # noqa: E731
        print(
            f"| {case.name} | {case.sniper_eps:.4f} | {reach(case.name, case.pair, args.samples):.4f} | {fmt(ours)} | "
            f"{fmt(ceil)} | {np.median(ours) / np.median(ceil):.2f} | {np.median(ours) / case.sniper_eps:.2f} | "
            f"{np.median(t):.1f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
