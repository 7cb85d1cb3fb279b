"""The stated reach against the bound achieved: for targets of known privacy loss, over seeds, the reach's ε (the
bound an event chosen as the audit's was would certify had its probabilities been those counted on selection draws it
was not chosen on) beside the certified ε of the same report, and their ratio.  The reach is an estimate: this
measures how well it predicts.

With --factor, the detectable factor's own calibration: each target's median stated factor f (from its correct
audits) is taken at its word — the same target made f times leakier (calibrated for ε = f while the claim stays 1)
is audited over seeds at the same sizes, and the share refuted is set beside the 80% the factor promises.

With --oracle, for the targets whose tails are known exactly, the best any reach could do: the bound the certified
event would give at its true probabilities, beside the bound certified.

Run: python3 benchmarks/reach_calibration.py [--seeds 10] [--factor | --oracle] [--only TEXT]
"""

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import sequential as ex  # noqa: E402

from privcheck import ApproxDP, PureDP, ReplaceOne, Unspecified, audit, audit_policy  # noqa: E402
from privcheck.mechanisms import optimal_randomized_response  # noqa: E402
from privcheck.mechanisms.laplace import GridLaplace  # noqa: E402
from privcheck.mechanisms import GridGaussian  # noqa: E402

L1 = ReplaceOne("l1", 1.0)
L2 = ReplaceOne("l2", 1.0)


def rare_tell(epsilon: float, p: float = 0.01, bulk: float = 0.5):
    """A randomized response of one bit whose leak lives in rare draws: with probability ``p`` it answers at
    ``epsilon`` on symbols of its own (2, 3), otherwise at ``bulk`` (0, 1) — exactly max(epsilon, bulk)-DP, the
    largest ratio on the rare symbols only (about 1% of draws)."""

    def tell(x, rng, size):
        rare = rng.random(size) < p
        eps = np.where(rare, epsilon, bulk)
        keep = rng.random(size) < np.exp(eps) / (1.0 + np.exp(eps))
        return np.where(keep, int(x), 1 - int(x)) + 2 * rare

    return tell


def integer_vector(epsilon: float):
    """Ten coordinates, each x_i plus two-sided geometric noise at ε/10, as int64: exactly ε-DP for inputs apart by
    one in all ten (the sum of the ten privacy losses)."""

    def mech(x, rng, size):
        a = np.exp(-epsilon / 10)
        return np.asarray(x, dtype=np.int64) + rng.geometric(1 - a, (size, 10)) - rng.geometric(1 - a, (size, 10))

    return mech


TARGETS = {  # name: run(seed, the target's true ε while the claim is 1)
    "grid Laplace ε = 1, 10⁵ per side": lambda s, e=1.0: audit(
        GridLaplace(epsilon=e), PureDP(1.0, L1), pairs=[(0.0, 1.0)], method="sample", samples=100_000, seed=s
    ),
    "grid Laplace ε = 1, 2·10³ per side": lambda s, e=1.0: audit(
        GridLaplace(epsilon=e), PureDP(1.0, L1), pairs=[(0.0, 1.0)], method="sample", samples=2_000, seed=s
    ),
    "randomized response ε = 1, 10⁴ per side": lambda s, e=1.0: audit(
        optimal_randomized_response(e), optimal_randomized_response(1.0).claim, method="sample", samples=10_000, seed=s
    ),
    "rare tell ε = 1 on 1% of draws, 10⁵ per side": lambda s, e=1.0: audit(
        rare_tell(e), PureDP(1.0, L1), pairs=[(0.0, 1.0)], method="sample", samples=100_000, seed=s
    ),
    "rare tell ε = 1 on 1% of draws, a (1, 10⁻⁶) claim, 10⁵ per side": lambda s, e=1.0: audit(
        rare_tell(e), ApproxDP(1.0, 1e-6, L1), pairs=[(0.0, 1.0)], method="sample", samples=100_000, seed=s
    ),
    "grid Gaussian (1, 10⁻³), a (1, 10⁻³) claim, 10⁴ per side": lambda s, e=1.0: audit(
        GridGaussian.for_approx(e, 1e-3),
        ApproxDP(1.0, 1e-3, L2),
        pairs=[(0.0, 1.0)],
        method="sample",
        samples=10_000,
        seed=s,
    ),
    "integer vector ε = 1, its sum as the user's statistic, 5·10⁴ per side": lambda s, e=1.0: audit(
        integer_vector(e),
        PureDP(1.0, Unspecified()),
        pairs=[([1] * 10, [0] * 10)],
        method="sample",
        samples=50_000,
        seed=s,
        classifier="off",
        event=lambda o: o.sum(axis=1),
    ),
    "explore-then-commit T = 40, 2·10³ runs": lambda s, e=1.0: audit_policy(
        lambda n_arms, horizon, rng: ex.ExploreThenCommit(n_arms, horizon, rng, e),
        PureDP(1.0),
        "table",
        arms=2,
        horizon=40,
        samples=2_000,
        seed=s,
    ),
}


def factor_check(seeds) -> None:
    """Each target at its median stated factor: the share of seeds refuted (the factor promises 80%)."""
    print("| target | median stated factor f | refuted at true ε = f (of seeds) | mean certified ε there |")
    print("|---|---|---|---|")
    for name, run in TARGETS.items():
        stated = [run(s).extra["reach"]["detectable_factor"] for s in seeds]
        f = statistics.median([x for x in stated if x is not None])
        leaky = [run(1000 + s, f) for s in seeds]  # other seeds than those that stated f
        hits = sum(r.violates_claim for r in leaky)
        mean = statistics.mean(r.epsilon_lower for r in leaky)
        print(f"| {name} | {f:.3f} | {hits}/{len(leaky)} | {mean:.3f} |", flush=True)


#: the targets whose tails are known exactly: the certified event's true probabilities (``oracle_check``)
EXACT = {
    "grid Laplace ε = 1, 10⁵ per side": GridLaplace(epsilon=1.0),
    "grid Laplace ε = 1, 2·10³ per side": GridLaplace(epsilon=1.0),
    "grid Gaussian (1, 10⁻³), a (1, 10⁻³) claim, 10⁴ per side": GridGaussian.for_approx(1.0, 1e-3),
}


def oracle_check(seeds) -> None:
    """The best any reach could do: for targets whose tails are known exactly, the bound the certified event would
    give at the report's draws were its counts its true expected ones (the event's exact probabilities on the
    report's pair, at the report's level), beside the certified bound — what separates them is the certificate's
    own sampling noise, which no estimate made before certification can predict."""
    from privcheck.audits.mechanism.certification import stated_reach

    big = 10**12  # the exact probabilities as counts of a sample too large to round them
    print(
        "| target | mean certified ε | mean ε at the event's true probabilities | ratio (min … max) | beyond ±20 % "
        "(of threshold events) |"
    )
    print("|---|---|---|---|---|")
    for name, mech in EXACT.items():
        if name not in TARGETS:
            continue
        got, best = [], []
        for s in seeds:
            r = TARGETS[name](s)
            w = r.witness
            ev, (x, x2), n = w["event"], w["pair"], w["counts"]["samples"]
            if ev["kind"] != "threshold":  # (a set of values: its exact mass is not computed here)
                continue
            tail = mech.logsf if ev["direction"] == "above" else mech.logcdf
            p, q = (float(np.exp(tail(float(v), ev["threshold"]))) for v in (x, x2))
            alpha_side = 2 * (1 - w["bounds"]["level_per_side"])  # (the intervals are at half a candidate's share)
            got.append(r.epsilon_lower)
            best.append(stated_reach(r.claim, round(p * big), round(q * big), big, n, alpha_side)["epsilon"])
        q = [b / g for b, g in zip(best, got) if g > 0]
        print(
            f"| {name} | {statistics.mean(got):.3f} | {statistics.mean(best):.3f} | {statistics.mean(q):.2f} "
            f"({min(q):.2f} … {max(q):.2f}) | {sum(not 0.8 <= v <= 1.2 for v in q)}/{len(q)} |",
            flush=True,
        )


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--factor", action="store_true", help="the detectable factor's calibration instead")
    p.add_argument("--oracle", action="store_true", help="the bound at the certified event's true probabilities")
    p.add_argument("--only", help="the targets whose name contains this text")
    a = p.parse_args()
    if a.only:
        for name in [n for n in TARGETS if a.only not in n]:
            del TARGETS[name]
    seeds = range(1, a.seeds + 1)
    if a.factor:
        return factor_check(seeds)
    if a.oracle:
        return oracle_check(seeds)
    print(
        "| target | mean certified ε | mean reach ε | reach / certified (min … max) | beyond ±20 % (of seeds) "
        "| mean detectable factor |"
    )
    print("|---|---|---|---|---|---|")
    for name, run in TARGETS.items():
        got, said, factors = [], [], []
        for s in seeds:
            r = run(s)
            got.append(r.epsilon_lower)
            said.append(r.extra["reach"]["epsilon"])
            factors.append(r.extra["reach"]["detectable_factor"] or float("nan"))
        ratios = [a / b for a, b in zip(said, got) if b > 0]
        print(
            f"| {name} | {statistics.mean(got):.3f} | {statistics.mean(said):.3f} | "
            f"{statistics.mean(ratios):.2f} ({min(ratios):.2f} … {max(ratios):.2f}) | "
            f"{sum(not 0.8 <= q <= 1.2 for q in ratios)}/{len(ratios)} | {statistics.mean(factors):.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
