"""Anytime verdicts for sampled policy audits: once the input search has kept its pairs, a quick stage — screening,
selection and certification at a sixteenth of the runs — before the full one, and the audit ends there when it
refutes.

A loud leak (a reward that decides an action, a threshold on codes that shows a user) is refuted on a few hundred
runs; the full plan, sized for quiet leaks, takes minutes.  The search runs once (it only chooses the pairs: every
bound is certified on fresh runs).  The quick stage then samples the kept pairs on its own fresh draws — its own
seed, derived from the audit's, so that no draw of it is reused by the full stage; within it, as within the full
stage, the event is chosen on draws apart from those that certify it — at a share :data:`QUICK_SHARE` of the
failure probability; the full stage samples as it would alone, at the rest.  By the union bound every bound either
stage reports holds with the audit's stated confidence, wherever it stopped.  A refutation at the quick stage says
so, and that its ε is the quick stage's (``full_budget=True`` samples the full plan only, for the full magnitude); a
correct policy pays the quick stage's runs (at most a sixteenth of the sampling's, and none of the search's) and a
hundredth of the failure probability in its bound.  A lower bound never certifies privacy.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..options import Options
from ..stats import confidence_text
from ..verdict import Verdict, decide

__all__ = ["run_stages", "stages_of", "said_at", "QUICK_SHARE", "QUICK_FRACTION", "QUICK_MIN", "QUICK_MAX"]

#: the share of the failure probability the quick stage spends (the full stage spends the rest)
QUICK_SHARE = 0.01
#: the quick stage's runs per side: this fraction of the full stage's, at most :data:`QUICK_MAX`; no quick stage
#: when that is below :data:`QUICK_MIN` (the full audit is then small itself)
QUICK_FRACTION, QUICK_MIN, QUICK_MAX = 1 / 16, 64, 500


def quick_seed(seed: int) -> int:
    """The quick stage's seed: derived from the audit's, its draws apart from the full stage's."""
    return int(np.random.SeedSequence([seed, 0x51]).generate_state(1, np.uint64)[0] >> 1)


def stages_of(opts: Options) -> list:
    """The sampling's stages, (name, options, share of the failure probability): ("quick", …, 1%) and ("full",
    ``opts``, 99%); or ("whole", ``opts``, 1) alone with ``full_budget`` or when a sixteenth is below
    :data:`QUICK_MIN` runs.  The quick stage screens each pair on at most its own runs, and reports no progress (the
    plan announced is the full stage's)."""
    n0 = min(QUICK_MAX, int(opts.samples * QUICK_FRACTION))
    if opts.full_budget or n0 < QUICK_MIN:
        return [("whole", opts, 1.0)]
    quick = replace(
        opts,
        samples=n0,
        selection_samples=min(n0, opts.selection_samples),
        screening=max(2, min(opts.screening, n0)),
        progress=None,
    )
    return [("quick", quick, QUICK_SHARE), ("full", opts, 1 - QUICK_SHARE)]


def run_stages(claim, opts: Options, seed: int, engine) -> tuple:
    """Sample in stages: ``engine(options, seed) -> (worst adversary, result, per-adversary ε)`` — its options at
    the stage's sizes and share of the failure probability as ``confidence`` — for the quick stage, then, unless
    its result refutes ``claim``, the full one.  Returns (stage name, the stage's options, the engine's output,
    the note that says how it went or None when the audit was not staged)."""
    stages = stages_of(opts)
    if stages[0][0] == "whole":
        return "whole", opts, engine(opts, seed), None
    alpha = 1 - opts.confidence
    (_, quick, quick_share), (_, full, full_share) = stages
    quick = replace(quick, confidence=1 - alpha * quick_share)
    out = engine(quick, quick_seed(seed))
    if decide(claim, out[1].figures) is Verdict.REFUTED:
        return (
            "quick",
            quick,
            out,
            (
                f"stopped early: a quick stage ({quick.samples:,} runs per side on the pairs the search kept, "
                f"{QUICK_SHARE:.0%} of the failure probability) refuted the claim, so the full sampling "
                f"({full.samples:,} runs per side) did not run; the bounds are the quick stage's — full_budget=True "
                "samples the full plan for the full magnitude"
            ),
        )
    note = (
        f"staged: a quick stage ({quick.samples:,} runs per side, {QUICK_SHARE:.0%} of the failure probability) did "
        f"not refute the claim (ε ≥ {out[1].figures.epsilon.lo:.6g} there); the bounds are the full stage's, at the "
        "rest"
    )
    full = replace(full, confidence=1 - alpha * full_share)
    return "full", full, engine(full, seed), note


def said_at(certification: str, stage_confidence: float, confidence: float, stage: str) -> str:
    """The certification's text said at the audit's confidence: a stage certifies at its share of the failure
    probability, so every bound of every stage holds at once at ``confidence``."""
    if stage == "whole":
        return certification
    return certification.replace(
        f"confidence {confidence_text(stage_confidence)}",
        f"confidence {confidence_text(confidence)} shared by a quick stage and the full sampling",
    )
