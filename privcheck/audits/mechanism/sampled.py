"""The sampled engine: choose a pair and an event on a selection sample, certify on fresh samples.

1. *Screening* (only when several candidate pairs exist): successive halving over the pairs within the
   selection budget — each round draws afresh, ranks the surviving pairs by their best event (real vectors by their
   separation under a covariance pooled over the round: :mod:`~privcheck.audits.mechanism.whitening`) and keeps the
   better half.  The event a round ranked first is counted on the next round's draws of its pair; where those
   counts promise a refutation, it is certified on fresh draws of its own at a share of the failure probability, and
   the audit stops there when it refutes (:class:`~.screening.Looks`; not with ``full_budget``).
2. *Selection*: ``selection_samples`` draws on each side of the kept pair; every candidate event of every statistic
   (:mod:`privcheck.audits.mechanism.events`; the user's own event competes with them) is scored — likelihood-ratio
   sets of values, which are ordered on the draws, on the half of each side they were not ordered on —, in both
   directions, by the bound it would certify at the certification sample size (ε at the claimed δ for (ε, δ) claims,
   D_α for Rényi claims, ρ for zCDP), with Clopper–Pearson bounds at a level divided by the number of candidates so
   that lucky rare events are not preferred; the best ``candidates`` are kept.  Beside them, the best threshold event
   of a classifier's score (:mod:`privcheck.audits.mechanism.learned`: by default boosted trees on the values and bits
   of real outputs — the values only on a grid —, and logistic regression for vectors and symbols) is kept too when,
   on selection draws neither was chosen on, it beats the best fixed one beyond doubt, so that the largest certified
   bound wins.  For a Rényi or zCDP claim, a ladder of nested thresholds on one real statistic
   (:mod:`~privcheck.audits.mechanism.ladders`) competes with the fixed events: its rungs are counted together and
   its cells certify the divergence at once (:mod:`privcheck.audits.cells`).  The number certified is fixed here,
   before any certification draw.
3. *Certification*: ``samples`` fresh draws per side; one-sided Clopper–Pearson bounds at level α/(2m) on each
   side, m the number of candidates kept and α = 1 − confidence, so that with probability ≥ confidence every
   bound of the report holds at once.  An (ε, δ) claim (pure or approximate) is certified on a Poissonized sample
   — each side's number of draws Poisson(``samples``), drawn from the seed — by the two intervals at α/(4m) each
   and, at α/(2m), a conditional bound on the ratio of the event's probabilities
   (:func:`~privcheck.audits.stats.ratio_epsilon`: given how many draws of both sides fell in the event, the share
   on x is binomial in p/(p + q)); its ε (at the claimed δ) and its δ at the claimed ε are the larger of what the
   two intervals give and what the ratio bound gives with p's lower bound (q ≤ p·r: δ ≥ p_lo(1 − e^ε r), ε at δ ≥
   ln((p_lo − δ)/(p_lo·r))).  On an event of about 1 % of draws the ratio bound certifies about twice the ε of the
   two intervals (RESULTS.md).
   With ``stop_early`` the draws come in stages and are looked at after each (:func:`looks`: the counts so far at
   n/4^j draws, …, n/4, n): an interim look spends :data:`INTERIM_SHARE`/(number of interim looks) of the failure
   probability, the last look the rest, and certification stops at the first look whose bounds refute the claim.
   By the union bound over the looks every bound reported still holds with probability ≥ confidence, wherever it
   stopped.

Every bound in the report is a monotone function of the same (p_lower, q_upper) of the chosen candidate — and,
for pure ε, of its ratio bound — so ε, δ, D_α, ρ and μ (Gaussian DP) are certified simultaneously; the certified
candidates are the points of the report's trade-off curve.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from privcheck.core import CHUNK_SIZE
from privcheck.core.execution import plan
from privcheck.core.protocols import OwnStatistics, ReleasedOverRounds, provides
from privcheck.core.threads import Beside

from ..options import Options
from ..result import EngineResult
from ..rules import by_ratio
from ..sampling import INTERIM_SHARE, DrawCost, looks, planned_draws, sampling_seconds
from ..verdict import Verdict, decide
from .certification import BITS_NOTE, certified, counted_events, fresh_counts, reads_bits, stated_reach
from .events import Empty, Kind, counted, user_statistic
from .learned import prefetch
from .runner import CERTIFY, SELECT, ChunkRunner, Stream
from .screening import Drawing, Looks, screen
from .selection import MIN_TRAIN, Scoring, best_candidates, cross_fitted_counts
from .whitening import SELECTED_WORK

__all__ = ["sampled_audit"]


def sampled_audit(
    mechanism,
    claim,
    pairs,
    opts: Options,
    *,
    seed: int,
    executor=None,
    target=None,
    name: str = "target",
    cost: DrawCost | None = None,
    like: np.ndarray | None = None,
) -> EngineResult:
    """``mechanism`` is the target built here; ``target`` is what travels to the executor's workers (a
    description, or by default the mechanism itself); ``opts`` says how many draws (``samples`` and
    ``selection_samples`` resolved), at what confidence, over how many candidates, with which classifier
    (:func:`~.selection.best_candidates`) and the user's own event (``event``: its statistic competes with the
    families').  ``opts.progress(n)`` is told of every n draws made, after the plan
    (:func:`~privcheck.core.execution.plan`); a caller auditing several mechanisms as one plan passes
    ``part_of_plan`` of its own.  With a measured ``cost`` per draw the plan's estimated time is announced too.  With
    ``like`` (a few draws like the audit's: the caller's reproducibility probe), the classifiers' library is imported
    on a thread while the selection draws are made, where the classifiers would need it (:func:`~.learned.prefetch`).
    The caller has checked the whole plan, every stage's, before the first (:func:`~..sampling.plan_sampling`)."""
    samples, selection_samples, confidence = opts.samples, opts.selection_samples, opts.confidence
    floor, progress = opts.screening, opts.progress
    extra = tuple(mechanism.statistics()) if provides(mechanism, OwnStatistics) else ()  # its own features
    rounds = mechanism.released_over() if provides(mechanism, ReleasedOverRounds) else None  # a continual release
    alpha = (1.0 - confidence) / (2 * opts.candidates)
    scoring = Scoring(claim, samples, alpha, user_statistic(opts.event), extra, rounds)
    seconds = None
    if cost is not None:
        workers = 1 if executor is None else executor.workers
        seconds = sampling_seconds(cost, len(pairs), samples, selection_samples, workers, floor, opts.screening_round)
    plan(progress, planned_draws(len(pairs), samples, selection_samples, floor, opts.screening_round), seconds=seconds)
    target = mechanism if target is None else target
    chunk = CHUNK_SIZE if cost is None else cost.per_chunk  # (a wide release's chunks hold at most CHUNK_BYTES)
    drawing = Drawing(ChunkRunner(executor, progress, chunk), target, name, seed)
    # 1. screening, when there are several candidate pairs, with looks during its rounds (their draws are not in the
    # plan: a look is made only where a refutation is promised, and ends the audit when it refutes)
    chosen, screen_looks = 0, None
    if len(pairs) > 1:
        if not opts.full_budget:
            looking = drawing._replace(runner=ChunkRunner(executor, None, chunk))
            screen_looks = Looks(looking, claim, pairs, samples, confidence, continual=rounds is not None)
        chosen, looked = screen(drawing, scoring, pairs, selection_samples, floor, opts.screening_round, screen_looks)
        if looked is not None:
            return looked
    spent = 0.0 if screen_looks is None else screen_looks.spent  # the looks' share of the failure probability
    # 2. selection
    if like is not None and opts.classifier != "off" and selection_samples >= 2 * MIN_TRAIN:
        # the classifiers' library, where they would need it, imported while the selection draws are made
        prefetch(like)
    top, notes, shapes, draws = _selected(drawing, scoring, pairs, chosen, opts)
    # the counts the reach reads, a second selection on halves of the selection draws (for the report only), made on
    # a thread while the certification's draws are counted — on other processes, or mostly outside the lock
    crossing = Beside(cross_fitted_counts, scoring, *draws)
    del draws
    # 3. certification on fresh draws, the failure probability split over every candidate certified (the learned one
    # beside the fixed ones)
    alpha_side = (1.0 - confidence) * (1.0 - spent) / (2 * max(1, len(top)))
    found, n = _certified_in_looks(drawing, claim, top, shapes, (chosen, pairs[chosen]), alpha_side, opts)
    seen, basis = _reach_counts(found, top, crossing.result())
    reach = {**stated_reach(claim, *seen, n, alpha_side), "basis": basis}
    extra = {**found.extra, "reach": reach}
    if screen_looks is not None and screen_looks.notes:
        notes = (
            *notes,
            *screen_looks.notes,
            f"the certification's share of the failure probability: the rest ({1 - spent:.0%})",
        )
    if decide(claim, found.figures) is Verdict.REFUTED and reads_bits(found.event):
        notes = (*notes, BITS_NOTE)
    return replace(
        found,
        pairs_considered=len(pairs),
        certified=len(top),
        extra=extra,
        notes=found.notes + notes,
    )


#: said where the selection draws gave no candidate event (:class:`~.events.Empty`)
NOTHING_NOTE = (
    "no candidate event could be formed on the selection draws (every output distinct, and too few draws for the "
    "classifiers): the empty event was certified, which refutes nothing — more samples= give the search something to "
    "choose from"
)


def _selected(drawing: Drawing, scoring: Scoring, pairs, chosen: int, opts: Options) -> tuple:
    """The selection on the chosen pair's selection draws: (the candidates to certify, the notes on what the
    classifiers were not given, the draws' (trailing shape, dtype kind) a side, the draws themselves — from which
    the reach's counts are cross-fitted: :func:`~.selection.cross_fitted_counts`)."""
    x, x2 = pairs[chosen]
    a, b = drawing.runner.sample(
        [
            Stream(drawing.target, x, (SELECT, chosen, 0), drawing.name),
            Stream(drawing.target, x2, (SELECT, chosen, 1), drawing.name),
        ],
        drawing.seed,
        opts.selection_samples,
    )
    top, notes = best_candidates(
        scoring, a, b, opts.candidates, opts.classifier, drawing.seed, ladders=True, whitened_work=SELECTED_WORK
    )
    if not top:  # nothing to choose from: the empty event, certified, says so (ε ≥ 0)
        top, notes = [(0.0, Empty(), 0, (0, 0, min(a.shape[0], b.shape[0])))], (*notes, NOTHING_NOTE)
    shapes = [(a.shape[1:], a.dtype.kind), (b.shape[1:], b.dtype.kind)]
    return top, notes, shapes, (a, b)


def _certified_in_looks(drawing: Drawing, claim, top, shapes, chosen, alpha_side: float, opts: Options) -> tuple:
    """(the certified result, the draws per side it stopped at): ``top`` counted on fresh draws of the chosen pair
    (``chosen``: its index and the pair), both sides in one wave (only counts come back) — in looks with
    ``stop_early`` (:func:`~..sampling.looks`), stopping at the first that refutes."""
    samples, confidence = opts.samples, opts.confidence
    index, pair = chosen
    events = counted_events(top)
    plan_looks = looks(samples, opts.stop_early)
    poissonized = by_ratio(claim)
    ca, cb, drawn, done = 0, 0, np.zeros(2, dtype=np.int64), 0
    for i, (n, share) in enumerate(plan_looks):
        stage = () if len(plan_looks) == 1 else (1 + i,)  # each stage's own streams (one look: as always)
        # the look's more draws a side (Poissonized: Poisson(n − done) each, so that the look's are Poisson(n))
        more = n - done
        sa, sb, sizes = fresh_counts(
            drawing, pair, more, events, shapes, poissonized, (CERTIFY, index), stage, 2 * more
        )
        ca, cb, drawn, done = ca + sa, cb + sb, drawn + sizes, n
        found = certified(claim, top, (ca, cb, drawn), n, alpha_side * share, confidence, pair, len(plan_looks) > 1)
        if decide(claim, found.figures) is Verdict.REFUTED or i == len(plan_looks) - 1:
            break
    if len(plan_looks) > 1:
        stopped = "" if n == samples else " (stopped early: refuted)"
        found = replace(
            found,
            witness={**found.witness, "looks": {"at": [a for a, _ in plan_looks], "stopped_at": n}},
            notes=found.notes
            + (
                f"certified in looks at {', '.join(f'{a:,}' for a, _ in plan_looks)} draws per side, the failure "
                f"probability split over them ({INTERIM_SHARE:g} shared by the interim looks); stopped at "
                f"{n:,}{stopped}",
            ),
        )
    return found, n


def _reach_counts(found, top, crossed) -> tuple:
    """The counts the reach of the certified event reads, and what they are: a learned event's held-out counts, else
    the cross-fitted ones where there are (:func:`~.selection.cross_fitted_counts`), else its selection counts —
    ((numerator, denominator, draws per side), basis)."""
    chosen_top = next(c for c in top if c[1] is found.event or any(e is found.event for e in counted(c[1])))
    if getattr(getattr(found.event, "statistic", None), "kind", None) == Kind.LEARNED:
        return chosen_top[3], "held-out"  # a learned event's counts are on draws it was not trained on
    if crossed is None:
        return chosen_top[3], "selection"
    return crossed, "cross-fitted"
