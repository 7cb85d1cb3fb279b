"""The certification's interval, compared: two separate one-sided Clopper–Pearson bounds (α/2 on each side, the
engine's until the ratio bound), a conditional test made exact by Poissonized sample sizes (at α), and the engine's
certification of pure ε now (on Poissonized sizes, the larger of the conditional bound at α/2 and the two intervals
at α/4 each: the intervals are kept for δ, ρ and μ).

Poissonized: each side draws N ~ Poisson(n) runs instead of n, so that the event's counts are K ~ Poisson(n·p) and
K' ~ Poisson(n·q), independent.  Given their sum m, K ~ Binomial(m, π) with π = p/(p + q), whatever n is: a
one-sided Clopper–Pearson lower bound π_lo at level α on K of m gives ε ≥ ln(π_lo/(1 − π_lo)), and since
ln(π/(1 − π)) = ln(p/q) the bound exceeds ln(p/q) with probability at most α given m, hence at most α overall.  It
bounds the ratio only: it serves pure ε-DP claims (and ε at δ = 0), not δ(ε), ρ or D_α, whose certificates need
p and q apart.

For events of probability p (the larger side) at a true ratio e^ε, n runs per side, α = 0.05 and one event (the
engine further divides α over its candidates), each row is over TRIALS simulated audits: the mean certified ε of
each method, its false-alarm rate at the truth (the fraction of audits certifying more than the true ε: at most α
for a valid method), and its power against a claim of half the true ε (a 2× overclaim: the fraction refuting it).
Fixed sizes for the two-interval method, Poissonized for the conditional one (each as it is valid).

With --delta D, the same for ε at δ = D > 0 (an (ε, D) claim): the two intervals give ln(p_lo − D) − ln q_hi; the
engine's certification of (ε, δ) claims now adds, on Poissonized sizes, the ratio bound read with p's lower bound
(q ≤ p·r, so ε at D ≥ ln(p_lo − D) − ln(p_lo·r)), the two intervals at α/4 and the ratio at α/2; the truth is the
event's own ε at D, ln(p − D) − ln q, and "power at 2×" refutes a claim of half of it.  (The conditional bound
alone does not serve δ > 0: its column is then the ratio with p_lo, each at α/2.)

Run: python3 benchmarks/interval_comparison.py [--trials N] [--seed S] [--delta D]
"""

import argparse
import math

import numpy as np

from privcheck import ApproxDP, PureDP
from privcheck.audits.mechanism.certification import certified_bound as _bound
from privcheck.audits.stats import cp_lower, cp_upper, epsilon_from_bounds, ratio_epsilon, ratio_epsilon_at_delta

ALPHA = 0.05
CASES = [(p, eps, n) for eps in (1.0, 2.0) for p in (0.5, 0.1, 0.01, 0.001) for n in (2_000, 20_000)]


def two_intervals(k, kp, n, alpha=ALPHA, delta=0.0):
    return epsilon_from_bounds(cp_lower(k, n, alpha / 2), cp_upper(kp, n, alpha / 2), delta)


def conditional(k, kp, alpha=ALPHA, delta=0.0, n=None):
    if delta == 0:
        return ratio_epsilon(k, kp, alpha)
    return ratio_epsilon_at_delta(cp_lower(k, n, alpha / 2), k, kp, alpha / 2, delta)


def engine(k, kp, nk, nkp, delta=0.0):
    """The engine's own certification of an (ε, δ) claim (its bound, on Poissonized sizes ``nk``, ``nkp``): the two
    intervals at α/4 each, the ratio bound at α/2 — alone for pure ε, with p's lower bound for ε at δ > 0."""
    claim = ApproxDP(1.0, delta) if delta > 0 else PureDP(1.0)
    return _bound(claim, k, kp, nk, nkp, ALPHA / 2)


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--trials", type=int, default=20_000)
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--delta", type=float, default=0.0)
    args = a.parse_args()
    rng = np.random.default_rng(args.seed)
    d = args.delta
    print(
        f"| p | true ε{' at δ' if d else ''} | n per side | two intervals: mean ε ≥ | false alarms | power at 2× | "
        "conditional: mean ε ≥ | false alarms | power at 2× | engine now: mean ε ≥ | false alarms | power at 2× |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p, eps, n in CASES:
        if p <= 2 * d:
            continue
        q = p / math.exp(eps)
        truth = math.log(p - d) - math.log(q)  # the event's own ε at δ (ε itself when δ = 0)
        k, kp = rng.binomial(n, p, args.trials), rng.binomial(n, q, args.trials)
        a_eps = two_intervals(k, kp, n, delta=d)
        nk = rng.poisson(n, args.trials)
        k, kp = rng.binomial(nk, p), rng.poisson(n * q, args.trials)
        b_eps = conditional(k, kp, delta=d, n=nk)
        # the engine: Poisson(n) draws a side, of which Poisson(n p) and Poisson(n q) fall in the event
        nk, nkp = rng.poisson(n, (2, args.trials))
        k, kp = rng.binomial(nk, p), rng.binomial(nkp, q)
        c_eps = engine(k, kp, nk, nkp, d)
        row = [f"{p:g}", f"{truth:.4g}", f"{n:,}"]
        for e in (a_eps, b_eps, c_eps):
            row += [f"{e.mean():.3f}", f"{(e > truth).mean():.4f}", f"{(e > truth / 2).mean():.3f}"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
