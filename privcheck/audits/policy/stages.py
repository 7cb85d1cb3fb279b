"""Anytime verdicts for sampled policy audits: a quick stage — the whole audit, search, selection and
certification, at a sixteenth of the runs — before the full one, and the audit ends there when it refutes.

A loud leak (a reward that decides an action, a threshold on codes that shows a user) is refuted on a few hundred
runs; the full plan, sized for quiet leaks, takes minutes.  The quick stage runs the same pipeline on its own
fresh draws — its own seed, derived from the audit's, so that no draw of it is reused by the full stage, and every
look certifies on draws not used to choose its pair or event — at a share :data:`QUICK_SHARE` of the failure
probability; the full stage runs as it would alone at the rest.  By the union bound every bound either stage reports
holds with the audit's stated confidence, wherever it stopped.  A refutation at the quick stage says so, and that
its ε is the quick stage's (``full_budget=True`` runs the full audit only, for the full magnitude); a correct
policy pays the quick stage's runs (at most a sixteenth of the plan's) and a hundredth of the failure probability
in its bound.  The quick stage runs silently: the plan the progress is told of is the full stage's.  A lower bound
never certifies privacy.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from privcheck.core.resources import ResourceRefused

from ..options import Options
from ..report import AuditReport
from ..stats import confidence_text
from .sampled import said

__all__ = ["staged", "QUICK_SHARE", "QUICK_FRACTION", "QUICK_MIN", "QUICK_MAX"]

#: the share of the failure probability the quick stage spends (the full stage spends the rest)
QUICK_SHARE = 0.01
#: the quick stage's runs per side: this fraction of the full stage's, at most :data:`QUICK_MAX`; no quick stage
#: when that is below :data:`QUICK_MIN` (the full audit is then small itself)
QUICK_FRACTION, QUICK_MIN, QUICK_MAX = 1 / 16, 64, 500


def quick_seed(seed: int) -> int:
    """The quick stage's seed: derived from the audit's, its draws apart from the full stage's."""
    return int(np.random.SeedSequence([seed, 0x51]).generate_state(1, np.uint64)[0] >> 1)


def staged(run, opts: Options, seed: int) -> AuditReport:
    """``run(options, seed) -> report``, the sampled audit, staged: the quick stage, then — unless it refuted —
    the full stage (the module's docstring says how).  ``opts`` are the full audit's."""
    n = opts.samples
    n0 = min(QUICK_MAX, int(n * QUICK_FRACTION))
    if opts.full_budget or n0 < QUICK_MIN:
        return run(opts, seed)
    alpha = 1 - opts.confidence
    # the input search's budget, and each candidate pair's screening: as many runs as the stage samples (a quarter
    # of them, as the full audit's sizing shrinks screening, loses the pair a loud leak lives in too often)
    search = min(opts.screening_given or opts.screening, n0)
    screening = max(2, min(opts.screening, n0))
    quick = replace(
        opts,
        samples=n0,
        selection_samples=min(n0, opts.selection_samples),
        screening=screening,
        screening_given=search,
        sized=False,
        confidence=1 - alpha * QUICK_SHARE,
        progress=None,
    )
    try:
        first = run(quick, quick_seed(seed))
    except ResourceRefused:  # the quick stage's plan is beyond max_hours: the full audit's is too, and says so
        return run(opts, seed)
    if first.violates_claim:
        note = (
            f"stopped early: a quick stage ({n0:,} runs per side, its input search scaled to screening={search}, "
            f"{QUICK_SHARE:.0%} of the failure probability) refuted the claim, so the full audit ({n:,} runs per "
            "side) did not run; the bounds are the quick stage's — full_budget=True runs the full audit for the full "
            "magnitude"
        )
        return _overall(first, quick.confidence, opts, note, "quick")
    full = run(replace(opts, confidence=1 - alpha * (1 - QUICK_SHARE)), seed)
    note = (
        f"staged: a quick stage ({n0:,} runs per side, {QUICK_SHARE:.0%} of the failure probability) did not refute "
        f"the claim (ε ≥ {first.epsilon_lower:.6g} there); the bounds are the full stage's, at the rest"
    )
    return _overall(full, 1 - alpha * (1 - QUICK_SHARE), opts, note, "full")


def _overall(report: AuditReport, stage_confidence: float, opts: Options, note: str, stage: str) -> AuditReport:
    """The report of ``stage`` ("quick" or "full") said as the audit's: its confidence the audit's (each stage
    certified at its share of the failure probability, so all hold at once), its call the audit's own (the
    reproduce line runs the stages again), and the note that says where it stopped."""
    certification = report.certification.replace(
        f"confidence {confidence_text(stage_confidence)}",
        f"confidence {confidence_text(opts.confidence)} shared by a quick stage and the full audit",
    )
    call = said(report.call, "sample", opts) if report.call is not None else None
    return replace(
        report,
        confidence=opts.confidence,
        certification=certification,
        notes=tuple(n.replace(report.certification, certification) for n in report.notes) + (note,),
        call=call,
        extra={**report.extra, "stage": stage},
    )
