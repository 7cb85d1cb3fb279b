"""Screening: when a mechanism has several candidate pairs, successive halving over them within the selection
budget (:func:`screen`) — each round draws afresh, ranks the surviving pairs by their best event (real vectors by
their separation under a covariance pooled over the round, :func:`_worth`) and keeps the better half — with looks
during its rounds (:class:`Looks`): the event a round ranked first is counted on the next round's draws of its pair,
and where those counts promise a refutation it is certified on fresh draws of its own at a share of the failure
probability, the audit stopping there when it refutes (not with ``full_budget``)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ..result import EngineResult
from ..rules import by_ratio, claimed_score
from ..sampling import screen_rounds
from ..verdict import Verdict, decide
from .certification import certified, fresh_counts, stated_reach
from .continual import Stepped, stepped_fit
from .runner import LOOK, SCREEN, Drawing, Stream
from .events import InSet, Kind, Threshold
from .selection import (
    SCREEN_SHORTLIST,
    Scoring,
    best_candidates,
    best_event,
    gaussian_score,
    held_out_scores,
    oriented_counts,
    selection_score,
)
from .whitening import mean_of, pooled_covariance

__all__ = ["Drawing", "Looks", "screen"]


def screen(
    d: Drawing, s: Scoring, pairs, budget: int, floor: int, per_round=None, look=None
) -> tuple[int, EngineResult | None]:
    """The index of the pair to audit, drawn as ``d`` says, by successive halving: every pair gets an equal share of
    a round's draws, the better half (by the bound its best fixed-family event would certify, scored as ``s`` says —
    or, for real vectors, by its separation: :func:`_worth`) goes on to the next round with twice the draws each;
    about ``budget`` draws per side in all (:func:`screen_rounds`), every round on fresh draws.  Where the draws are
    real vectors, the round's covariance is pooled over its every pair and side
    (:func:`~.whitening.pooled_covariance`): each pair's whitened projection and separation read it, not the pair's
    own few rows.  From the second round on, ``look`` (a
    :class:`Looks`), when given, is shown the event the last round ranked first, with its counts on this round's
    draws of its pair (drawn after the event was chosen), and may certify it on draws of its own: its result, when it
    refuted, is returned beside the pair (else None)."""
    alive, held = list(range(len(pairs))), None  # held: (pair, candidate) the last round ranked first
    for r, (_, n) in enumerate(screen_rounds(len(pairs), budget, floor, per_round)):
        drawn = d.runner.sample(
            [Stream(d.target, x, (SCREEN, i, side, r), d.name) for i in alive for side, x in enumerate(pairs[i])],
            d.seed,
            n,
        )
        if look is not None and held is not None:
            i, cand = held
            j = alive.index(i)  # (the first of a round always goes on)
            ours = drawn[2 * j], drawn[2 * j + 1]
            found = look(r, i, cand, oriented_counts(cand[1], cand[2], *ours), n, ours)
            if found is not None:
                return i, found
        ranked, best = [], {}
        pooled = pooled_covariance(drawn)  # (real vectors: the whitened projection's covariance, from every pair's)
        sides = None if pooled is None else _side_means([pairs[i] for i in alive], drawn)
        for j, i in enumerate(alive):
            a, b = drawn[2 * j], drawn[2 * j + 1]
            step = _stepped(s, a, b)
            stepped = _stepped_worth(s, step)
            top = _best(s, a, b, pooled, step)
            ranked.append(((_worth(s, top, pooled, sides and sides[j], stepped) if top else -math.inf, -j), i))
            best[i] = _looked_at(s, top, step, stepped, a, b)
        del drawn
        ranked.sort(reverse=True)
        held = None if best[ranked[0][1]] is None else (ranked[0][1], best[ranked[0][1]])
        alive = [i for _, i in ranked[: len(alive) // 2]]
    return alive[0], None


#: the statistics whose threshold events and sets of values read a shift of the sides' means — which a pooled
#: covariance's separation reads on all of a pair's draws at once (:func:`_worth`)
SHIFTS = (Kind.COORD, Kind.PROJECTION, Kind.SIGNS)


def _side_means(pairs, drawn) -> list:
    """For each of ``pairs`` (a round's, ``drawn`` their draws: x's, x′'s, pair after pair), each side's
    (mean, rows) (:func:`~.whitening.mean_of`) — a side's input drawn for other pairs of the round too (a stream's
    neighbours all move one element of one stream) read on all its draws there: half the noise of the pair's mean
    difference, where the pair's own draws alone would give it twice."""
    inputs = [x for p in pairs for x in p]
    first = [next(m for m in range(k + 1) if m == k or _same(inputs[m], x)) for k, x in enumerate(inputs)]
    means = {m: mean_of(*(out for f, out in zip(first, drawn) if f == m)) for m in set(first)}
    return [(means[first[2 * j]], means[first[2 * j + 1]]) for j in range(len(pairs))]


def _same(x, y) -> bool:
    """Whether inputs ``x`` and ``y`` are the same (arrays alike; anything numpy cannot read as one array: only
    itself)."""
    try:
        return np.shape(x) == np.shape(y) and bool(np.array_equal(x, y))
    except (ValueError, TypeError):
        return x is y


def _stepped(s: Scoring, a, b) -> Stepped | None:
    """Where the draws are releases made after every round (``s.rounds``), the stepped projection fitted on the
    first half of a pair's round draws and its separation on the second, however small (:func:`~.continual.stepped_fit`:
    a pair is ranked by the estimate, not offered on it); else None."""
    if s.rounds is None or a.dtype.kind not in "biuf":
        return None
    return stepped_fit(a, b, *s.rounds, held_out_z=0.0)


def _best(s: Scoring, a, b, pooled, step: Stepped | None = None):
    """A pair's best candidate on a round's draws ``a``, ``b`` (None where there is none): chosen and scored on all of
    them — or, where the round's covariance is pooled or the draws are a continual release (``step``: its stepped
    projection, fitted on the first half, :func:`_stepped`; offered beside the fixed families, in place of one fitted
    again), chosen on the first half of each side and scored on its counts on the second (:func:`_worth` reads that
    score against the claim: chosen among thousands on a round's few draws,
    an event's own score is mostly their noise — the bit windows of a Laplace tree's prefix sums on a grid, whose
    exact ε is the claim's, scored 2.1–2.9 against a claimed ε of 1 on a screening's rounds and outranked its least
    private element, kept on 1 of 6 seeds within 100,000 draws a side, 0 of 6 within 20,000; now 6 of 6 at both)."""
    if pooled is None and s.rounds is None:
        top, _ = best_candidates(s, a, b, 1, shortlist=SCREEN_SHORTLIST)
        return top[0] if top else None
    h = min(a.shape[0], b.shape[0]) // 2
    if s.rounds is not None:
        s = s._replace(rounds=None, extra=(*s.extra, *(() if step is None else (step.statistic,))))
    top, _ = best_candidates(s, a[:h], b[:h], 1, shortlist=SCREEN_SHORTLIST, pooled=pooled)
    return held_out_scores(s, top, a[h : 2 * h], b[h : 2 * h], s.alpha_side)[0] if top else None


def _worth(s: Scoring, top, pooled, sides, stepped: float = -math.inf) -> float:
    """A pair's rank in a screening round, ``top`` its best candidate on the round's draws (:func:`_best`): the
    candidate's score, and where the draws are a continual release the score a Gaussian pair of its stepped projection's
    held-out separation would certify where that is more (``stepped``, :func:`_stepped_worth`: a user's early round
    reaches every later release, which the best single event of a round's few draws cannot read — at 1,000 rounds the
    first user's pair separates by 2.5 along it, the second to last user's by 0.75, and the events' scores ranked the
    latter first: ``benchmarks/RESULTS.md``) — or, where the round's covariance is pooled
    (:func:`~.whitening.pooled_covariance`), the score a Gaussian pair of the pair's estimated separation would certify
    (:func:`~.selection.gaussian_score` of :meth:`~.whitening.Pooled.separation`, ``sides`` its sides' means:
    :func:`_side_means`), and beside it the candidate's own score — on the half of the draws it was not chosen on — only
    where the candidate reads what the separation cannot (bits, a whole row, the user's statistic: not a threshold or
    set of values of :data:`SHIFTS`) and would refute the claim on its own.  The best of a pair's events, chosen and
    scored on a round's own few thousand draws, is mostly their noise (a binary counter of T = 256, 2,000 draws a side:
    scores from 0.43 to 0.84 among pairs of one exact ρ, the worst element's not first beyond them; at T = 64, a bit
    window of the last prefix sum, whose element is in a seventh of the worst's blocks, scored above every pair's
    separation on 500 draws); the separation reads every draw of the pair at once, debiased (the first element of a
    counter of T = 32, a sixth more private than the next, ranked first on 6 of 8 rounds, by the scores on 1 of 8:
    ``tests/audit/mechanism/test_whitening.py``; whole screenings: ``benchmarks/RESULTS.md``)."""
    score, ev = top[0], top[1]
    if pooled is None:
        return max(score, stepped)
    worth = max(gaussian_score(s.claim, pooled.separation(*sides), s.n_cert, s.alpha_side), stepped)
    shift = isinstance(ev, (Threshold, InSet)) and ev.statistic.kind in SHIFTS
    return max(worth, score) if not shift and score > claimed_score(s.claim) else worth


def _stepped_worth(s: Scoring, step: Stepped | None) -> float:
    """The score a Gaussian pair of the stepped projection's held-out separation would certify (−∞ without one,
    :func:`_stepped`): what a pair is ranked by (:func:`_worth`) and looked at by (:func:`_looked_at`) beside its best
    event."""
    return -math.inf if step is None else gaussian_score(s.claim, step.separation, s.n_cert, s.alpha_side)


def _looked_at(s: Scoring, top, step: Stepped | None, stepped: float, a, b):
    """The candidate a look (:class:`Looks`) counts on the next round's draws of a pair whose round ranked it first:
    its best event ``top`` (:func:`_best`) — or, for a continual release whose stepped projection's held-out
    separation is worth more than that event's score (``step``, worth ``stepped``: what ranked the pair), that
    projection's best threshold event, chosen on the half of the round's draws ``a``, ``b`` it was not fitted on.
    The best event of a wide release's round is one of thousands chosen on a few dozen runs: at 1,000 episodes,
    the pair whose projection separated fresh runs by 2.1–2.5 had its best event score 0.1–0.8 on the held-out half
    (``benchmarks/RESULTS.md``), which promises no look; its projection's threshold does."""
    if top is None or step is None or not stepped > top[0]:
        return top
    h = min(a.shape[0], b.shape[0]) // 2
    found = best_event(s, step.statistic, a[h : 2 * h], b[h : 2 * h])
    return top if found is None else found


#: a look during the screening (:class:`Looks`): its fresh draws per side are the certification's divided by a
#: power of :data:`LOOK_GROWTH` (the smallest at which a refutation is promised, at most a quarter of them and at
#: least :data:`LOOK_MIN` — for a continual release, a quarter however few: an agent's releases are wide and its
#: runs slow, its runs sized to some 500 a side and its screening most of its audit), each look spends
#: :data:`LOOK_SHARE` of the failure probability, and an audit makes at most :data:`LOOKS_MAX` of them (one per
#: pair); the promise reads the event's held-out counts moved the pessimistic way by :data:`LOOK_DOUBT` standard
#: deviations
LOOK_GROWTH, LOOK_STEPS, LOOK_MIN, LOOK_SHARE, LOOKS_MAX, LOOK_DOUBT = 4, 3, 500, 0.02, 2, 1.0


class Looks:
    """Looks during the screening, so that a leak the screening already shows ends the audit before its selection
    and certification.  The event a screening round ranked first (and its pair) is counted on the next round's
    draws of that pair — drawn after it was chosen, so that its counts there are honest where its own round's
    flatter it (the best of thousands of candidates: a Laplace's tail event seen 10 times against 0 in 17,857 draws
    certified ε ≥ 0 on fresh ones) — and when those counts promise a refutation at a quarter, a sixteenth or a
    sixty-fourth of the certification's draws per side (the smallest that does), it is certified on that many fresh
    draws at :data:`LOOK_SHARE` of the failure probability; the audit stops at the first look that refutes.  A
    quiet leak whose event holds a few runs in a thousand shows in the screening of a sampling sized for it long
    before the selection and certification have run (the raw re-exploration of examples/sequential.py, seed 1: 36 runs
    against 0 of 16,666 in the screening's third round, 281 against 0 of 100,000 at its certification).  A look is
    made only where promised, so a target with room to spare pays nothing; every look certifies on draws of its
    own, not used to choose its pair or event, and by the union bound the looks' shares and the certification's
    (the rest: :attr:`spent`) hold at once at the audit's confidence."""

    def __init__(self, d: Drawing, claim, pairs, samples: int, confidence: float, continual: bool = False):
        """``continual``: the draws are a release made after every round — looked at a quarter of the certification's
        draws however few (:data:`LOOK_MIN`)."""
        self.drawing, self.claim, self.pairs = d, claim, pairs
        least = max(1, min(LOOK_MIN, samples // LOOK_GROWTH)) if continual else LOOK_MIN
        self.sizes = [m for j in range(LOOK_STEPS, 0, -1) if (m := samples // LOOK_GROWTH**j) >= least]
        self.confidence = confidence
        self.alpha_side = (1.0 - confidence) * LOOK_SHARE / 2  # one candidate a look
        self.poissonized = by_ratio(claim)
        self.looked: set[int] = set()  # the pairs looked at
        self.notes: list[str] = []  # the looks that did not refute

    @property
    def spent(self) -> float:
        """The share of the failure probability the looks made have spent."""
        return LOOK_SHARE * len(self.looked)

    def promised_size(self, held, n_held: int) -> int | None:
        """The fewest draws per side among :attr:`sizes` at which counts ``held`` (numerator, denominator) of
        ``n_held`` per side, moved the pessimistic way by :data:`LOOK_DOUBT` standard deviations, would refute the
        claim at a look's failure probability; None when none would."""
        sizes = np.array(self.sizes)
        num = max(0.0, held[0] - LOOK_DOUBT * math.sqrt(held[0]))
        den = min(float(n_held), held[1] + LOOK_DOUBT * math.sqrt(held[1] + 1.0))  # (a count of 0 doubted too)
        promised = selection_score(
            self.claim, np.full(len(sizes), num), np.full(len(sizes), den), n_held, sizes, self.alpha_side
        )
        promising = np.flatnonzero(promised > claimed_score(self.claim))
        return int(sizes[promising[0]]) if promising.size else None

    def __call__(self, r: int, i: int, cand, held, n_held: int, drawn: tuple) -> EngineResult | None:
        """The result of a look at pair ``i``'s candidate ``cand`` (chosen on screening round ``r`` − 1's draws),
        whose (numerator, denominator) counts on round ``r``'s ``n_held`` draws per side (``drawn``: of x and of x′)
        are ``held``, when it refutes the claim; None when no look was made or it did not refute."""
        if len(self.looked) >= LOOKS_MAX or i in self.looked or not self.sizes:
            return None
        m = self.promised_size(held, n_held)
        if m is None:
            return None
        ev = cand[1]
        shapes = [(d.shape[1:], d.dtype.kind) for d in drawn]
        self.looked.add(i)
        x, x2 = self.pairs[i]
        counts = fresh_counts(self.drawing, (x, x2), m, [ev], shapes, self.poissonized, (LOOK, r, i))
        found = certified(self.claim, [cand], counts, m, self.alpha_side, self.confidence, (x, x2))
        said = (
            f"a look in the screening's round {r + 1} (pair {i + 1} of {len(self.pairs)} and its event chosen on the "
            f"round before, counted {held[0]:,} against {held[1]:,} of this round's {n_held:,} draws per side, "
            f"certified on {m:,} fresh draws per side at {LOOK_SHARE:.0%} of the failure probability)"
        )
        if decide(self.claim, found.figures) is not Verdict.REFUTED:
            self.notes.append(f"{said} did not refute the claim (ε ≥ {found.figures.epsilon.lo:.6g} there)")
            return None
        note = (
            f"stopped early: {said} refuted the claim, so the selection and the certification on the pair kept did "
            "not run; the bounds are the look's — full_budget=True samples the full plan for the full magnitude"
        )
        reach = {**stated_reach(self.claim, held[0], held[1], n_held, m, self.alpha_side), "basis": "screening"}
        looks = {"at": [m], "stopped_at": m, "screening_round": r + 1}
        return replace(
            found,
            witness={**found.witness, "looks": looks},
            notes=found.notes + (note,),
            pairs_considered=len(self.pairs),
            certified=1,
            extra={**found.extra, "reach": reach},
        )
