"""Time to refute each planted bug of examples/ with the default command — the audit staged (stages of growing
size, each a sixteenth of the next's runs, ending at the first that refutes) — and, with --before, the same audit with
full_budget=True (the full plan only, as before staging), in the same process one after the other.  No samples,
no table, no pair: what a user types, `privcheck audit FILE:FACTORY --epsilon 1 --definition D --arms 2 [--dim 2]
--horizon T` (`--arms 4` for the leak that grows with the arms); the wall time of the whole audit (cost timing,
search, selection, certification).

With --correct, the price instead: the calibrated policies, each audited staged and with full_budget=True one
after the other, the time and the bound of each and their ratios (the earlier stages' runs, and their 1% each of
the failure probability, are what a correct policy pays) — and the earlier stages' own seconds, timed inside the
staged run, over its full stage's (the price without the machine's spread between two runs).

With --correct --large, the same at the default command's own size: the elimination policy with no samples given (the
default runs per side, or fewer where the library sizes them to its ten minutes; about twenty minutes for the row).

With --arms K, every planted bug at K arms (the same default command, `--arms K`): a bug found at two arms should be
found at the arms a policy is published with.

Run: python3 benchmarks/staged_refutation.py [--before] [--arms K] [--only NAME ...] | [--correct [--large]]
"""

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import elimination  # noqa: E402
import epoch_ucb  # noqa: E402
import linear  # noqa: E402
import sequential  # noqa: E402

from privcheck import ApproxDP, PureDP, audit_policy  # noqa: E402
from privcheck.policies import p2b_agents  # noqa: E402

EPS = PureDP(1.0)
CASES = [  # (name, factory, claim, definition, options)
    ("elimination:make_tie_leak", elimination.make_tie_leak, EPS, "table", dict(horizon=1000)),
    ("elimination:make_small_noise", elimination.make_small_noise, EPS, "table", dict(horizon=1000)),
    ("elimination:make_shared_noise", elimination.make_shared_noise, EPS, "table", dict(horizon=1000)),
    ("elimination:make_raw_leader", elimination.make_raw_leader, EPS, "table", dict(arms=4, horizon=1000)),
    ("sequential:make_shared_noise", sequential.make_shared_noise, EPS, "table", dict(horizon=40)),
    ("sequential:make_gaussian_noise", sequential.make_gaussian_noise, EPS, "table", dict(horizon=40)),
    ("sequential:make_raw_reexplore", sequential.make_raw_reexplore, EPS, "table", dict(horizon=100)),
    ("epoch_ucb:make_cached_noise", epoch_ucb.make_cached_noise, EPS, "table", dict(horizon=200)),
    ("linear:make_raw_gram", linear.make_raw_gram, EPS, "joint", dict(dim=2, horizon=12)),
    ("linear:make_unit_bound", linear.make_unit_bound, EPS, "joint", dict(dim=2, horizon=12, context_bound=4.0)),
    ("linear:make_shared_noise", linear.make_shared_noise, EPS, "joint", dict(dim=2, horizon=12)),
    ("linear:make_local_raw_context", linear.make_local_raw_context, EPS, "local", dict(dim=2, horizon=12)),
    (
        "p2b_agents:make_code_threshold",
        p2b_agents.make_code_threshold,
        ApproxDP(1.0, 0.0215),
        "joint",
        dict(dim=2, horizon=100),
    ),
]

CORRECT = [  # (name, factory, claim, definition, options): the calibrated twins
    ("sequential:make", sequential.make, EPS, "table", dict(horizon=40)),
    ("elimination:make (2,000 runs)", elimination.make, EPS, "table", dict(horizon=1000, samples=2000)),
    ("linear:make", linear.make, EPS, "joint", dict(dim=2, horizon=12)),
]
LARGE = [  # --large: the default command's own size (no samples given), about twenty minutes a row
    ("elimination:make (the default's runs)", elimination.make, EPS, "table", dict(horizon=1000)),
]


def _run(factory, claim, definition, kw, **more):
    t0 = time.perf_counter()
    r = audit_policy(factory, claim, definition, seed=1, **{"arms": 2, **kw}, **more)
    return r, time.perf_counter() - t0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--before", action="store_true", help="also run each with full_budget=True")
    p.add_argument("--only", nargs="*", default=None)
    p.add_argument("--correct", action="store_true", help="the price on the calibrated policies instead")
    p.add_argument("--large", action="store_true", help="with --correct: the default command's size instead")
    p.add_argument("--arms", type=int, default=None, help="every planted bug at this many arms (default: its own)")
    a = p.parse_args()
    if a.correct:
        return price(LARGE if a.large else CORRECT)
    print(
        "| planted bug | definition | T | K | verdict | stage | runs per side | ε ≥ | seconds | full budget: ε ≥ | s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, factory, claim, definition, kw in CASES:
        if a.only and name not in a.only:
            continue
        kw = {**kw, "arms": a.arms} if a.arms else kw
        r, took = _run(factory, claim, definition, kw)
        before = "| |"
        if a.before:
            full, full_took = _run(factory, claim, definition, kw, full_budget=True)
            before = f"| {full.epsilon_lower:.3g} ({full.verdict}) | {full_took:.1f} |"
        stage = r.extra.get("stage", "—")
        if "screening_round" in r.witness.get("looks", {}):  # stopped by a look during a stage's screening
            stage += f", a look in its screening's round {r.witness['looks']['screening_round']}"
        print(
            f"| {name} | {definition} | {kw['horizon']} | {kw.get('arms', 2)} | {r.verdict} | {stage} | "
            f"{r.samples_per_side:,} | {r.epsilon_lower:.3g} | {took:.1f} {before}",
            flush=True,
        )


def _timing_stages():
    """Each stage's engine seconds of the next staged audit, by name, in the order they ran (the policy audit's
    run_stages wrapped: what the earlier stages cost, measured inside the one staged run)."""
    from privcheck.audits.policy import sampled

    took = []
    inner = sampled.run_stages

    def timed(claim, opts, seed, engine, *args, **kw):
        def stage(o, s, name):
            t0 = time.perf_counter()
            out = engine(o, s, name)
            took.append((name, time.perf_counter() - t0))
            return out

        return inner(claim, opts, seed, stage, *args, **kw)

    sampled.run_stages = timed
    return took


def price(cases):
    """Two measures of the price: the staged audit's wall time over the full-budget audit's (two runs: the machine's
    spread between runs is in it), and, inside the staged run, the earlier stages' seconds over the full stage's (one
    run: what staging adds to the same full sampling)."""
    print(
        "| calibrated policy | definition | T | staged: ε ≥ | runs per side | s | earlier stages: s | of the full "
        "stage's | full budget: ε ≥ | s | time ratio | bound ratio |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    took = _timing_stages()
    for name, factory, claim, definition, kw in cases:
        took.clear()
        r, t_staged = _run(factory, claim, definition, kw)
        early = sum(s for stage, s in took if stage in ("quick", "middle"))
        late = sum(s for stage, s in took if stage in ("full", "whole"))
        stages = " + ".join(f"{stage} {s:.1f}" for stage, s in took if stage in ("quick", "middle"))
        f, f_took = _run(factory, claim, definition, kw, full_budget=True)
        ratio = r.epsilon_lower / f.epsilon_lower if f.epsilon_lower > 0 else float("nan")
        share = f"{early / late:.2%}" if late > 0 else "—"
        print(
            f"| {name} | {definition} | {kw['horizon']} | {r.epsilon_lower:.4g} ({r.verdict}) | "
            f"{r.samples_per_side:,} | {t_staged:.1f} | {stages or '—'} | {share} | "
            f"{f.epsilon_lower:.4g} ({f.verdict}) | {f_took:.1f} | {t_staged / f_took:.3f} | {ratio:.4f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
