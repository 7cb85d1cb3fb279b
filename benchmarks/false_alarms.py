"""False-alarm calibration of the sampled engine on correct mechanisms.

Each row runs N independent small audits (seeds 0..N−1) of a mechanism whose claim is exactly its true level,
and counts refutations.  A sound auditor refutes a correct claim with probability at most 1 − confidence; the
observed rate is printed with its two-sided 95 % Clopper–Pearson interval beside that bound.

    python3 benchmarks/false_alarms.py --audits 1000 --samples 2000
"""

from __future__ import annotations

import argparse
import contextlib
import time

import numpy as np
from scipy.stats import beta

from privcheck import mechanisms as M
from privcheck.audits.mechanism import screening
from privcheck import ApproxDP, PureDP, ReplaceOne, ZCDP, audit
from privcheck.core import AllPairs, Unspecified


def symbol_rr(x, rng, size):
    """Randomized response at ε = 0.1 on each of 10 bits, released as symbols 'yes'/'no': exactly 1.0-DP for
    inputs that differ in every bit — vector symbolic outputs, where the classifier stage runs."""
    b = np.asarray(x, dtype=bool)
    flip = rng.random((size, b.size)) >= np.exp(0.1) / (1 + np.exp(0.1))
    return np.where(b ^ flip, "yes", "no")


def integer_rr(x, rng, size):
    """Randomized response at ε = 0.2 on each of 5 bits, released as integers 0/1: exactly 1.0-DP for inputs
    that differ in every bit — 32 distinct rows, which the learned score evaluates once each."""
    b = np.asarray(x, dtype=bool)
    flip = rng.random((size, b.size)) >= np.exp(0.2) / (1 + np.exp(0.2))
    return (b ^ flip).astype(np.int64)


def rare_tell(x, rng, size):
    """A randomized response of one bit that, with probability 1%, answers at ε = 1.5 on symbols of its own (2, 3)
    and otherwise at 0.5 (0, 1): exactly 1.5-DP, its largest ratio on the rare symbols only — where the
    conditional bound on the ratio, not the two intervals, certifies the most."""
    tell = rng.random(size) < 0.01
    e = np.where(tell, 1.5, 0.5)
    truthful = rng.random(size) < np.exp(e) / (1 + np.exp(e))
    return np.where(truthful, int(x), 1 - int(x)) + 2 * tell


def _cases():
    """Correct mechanisms only: the grid forms (a floating-point Laplace or Gaussian is not DP at all — Mironov —
    and the bit-level events refute it, rightly)."""
    g = M.GridGaussian.for_zcdp(0.5)
    ga = M.GridGaussian.for_approx(1.0, 1e-3)
    return [
        ("grid laplace, ε = 1 (pure)", M.GridLaplace(epsilon=1.0), PureDP(1.0, ReplaceOne("l1", 1.0)), [(0.0, 1.0)]),
        (
            "randomized response, ε = 1 (local)",
            M.optimal_randomized_response(1.0),
            PureDP(1.0, AllPairs((0, 1))),
            [(0, 1)],
        ),
        ("grid gaussian, ρ = 0.5 (zCDP)", g, ZCDP(0.5, g.relation), [(0.0, 1.0)]),
        ("grid gaussian, (1, 1e-3)", ga, ApproxDP(1.0, 1e-3, ReplaceOne("l2", 1.0)), [(0.0, 1.0)]),
        ("symbolic RR on 10 bits, ε = 1 (learned)", symbol_rr, PureDP(1.0, Unspecified()), [([1] * 10, [0] * 10)]),
        ("integer RR on 5 bits, ε = 1 (learned)", integer_rr, PureDP(1.0, Unspecified()), [([1] * 5, [0] * 5)]),
        ("rare tell, ε = 1.5 on 1% (ratio bound)", rare_tell, PureDP(1.5, Unspecified()), [(1, 0)]),
        ("rare tell, (1.5, 1e-6) (ratio with p)", rare_tell, ApproxDP(1.5, 1e-6, Unspecified()), [(1, 0)]),
        # eight pairs, the first at the claim: the screening runs, and a look is made wherever one can be (two)
        ("grid laplace, 8 pairs, looks forced", M.GridLaplace(epsilon=1.0), PureDP(1.0, ReplaceOne("l1", 1.0)), EIGHT),
    ]


#: the pairs of the looks' row: x = 0 against x′ at distances 1, ½, ¼, …
EIGHT = [(0.0, d) for d in (1.0, 0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875)]


@contextlib.contextmanager
def _looks_forced(on: bool):
    """Every look of the screening made at its smallest size, promised or not (the looks' share of the failure
    probability then spent on every audit: their accounting under test, not their rule)."""
    if not on:
        yield
        return
    rule = screening.Looks.promised_size
    screening.Looks.promised_size = lambda self, held, n_held: self.sizes[0] if self.sizes else None
    try:
        yield
    finally:
        screening.Looks.promised_size = rule


def _cp(k, n, level=0.95):
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else beta.ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(1 - a, k + 1, n - k)
    return lo, hi


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--audits", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--confidence", type=float, nargs="+", default=[0.95, 0.5])
    ap.add_argument("--only", help="run the rows whose name contains this")
    args = ap.parse_args()
    print(f"{args.audits} audits per row, {args.samples} samples per side (selection = certification size)")
    print(
        f"{'mechanism and claim':<38} {'confidence':>10} {'refuted':>8} {'rate':>8} {'95% interval':>20} "
        f"{'bound':>7} {'seconds':>8}"
    )
    for name, mech, claim, pairs in _cases():
        if args.only and args.only not in name:
            continue
        for conf in args.confidence:
            t0 = time.perf_counter()
            with _looks_forced("looks forced" in name):
                k = sum(
                    audit(
                        mech, claim, pairs=pairs, method="sample", samples=args.samples, confidence=conf, seed=s
                    ).violates_claim
                    for s in range(args.audits)
                )
            lo, hi = _cp(k, args.audits)
            print(
                f"{name:<38} {conf:>10g} {k:>8d} {k / args.audits:>8.4f} {f'[{lo:.4f}, {hi:.4f}]':>20} "
                f"{1 - conf:>7.3g} {time.perf_counter() - t0:>8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
