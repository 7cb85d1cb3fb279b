"""The sampled engine: choose a pair and an event on a selection sample, certify on fresh samples.

1. *Screening* (only when several candidate pairs exist): successive halving over the pairs within the
   selection budget — each round draws afresh, ranks the surviving pairs by their best event and keeps the
   better half.  The event a round ranked first is counted on the next round's draws of its pair; where those
   counts promise a refutation, it is certified on fresh draws of its own at a share of the failure probability, and
   the audit stops there when it refutes (:class:`_Looks`; not with ``full_budget``).
2. *Selection*: ``selection_samples`` draws on each side of the kept pair; every candidate event of every statistic
   (:mod:`privcheck.audits.mechanism.events`; the user's own event competes with them) is scored — likelihood-ratio
   sets of values, which are ordered on the draws, on the half of each side they were not ordered on —, in both
   directions, by the bound it would certify at the certification sample size (ε at the claimed δ for (ε, δ) claims,
   D_α for Rényi claims, ρ for zCDP), with Clopper–Pearson bounds at a level divided by the number of candidates so
   that lucky rare events are not preferred; the best ``candidates`` are kept.  Beside them, the best threshold event
   of a classifier's score (:mod:`privcheck.audits.mechanism.learned`: by default boosted trees on the values and bits
   of real outputs — the values only on a grid —, and logistic regression for vectors and symbols) is kept too when,
   on selection draws neither was chosen on, it beats the best fixed one beyond doubt, so that the largest certified
   bound wins.  The number certified is fixed here, before any certification draw.
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

import math
from dataclasses import dataclass, replace

import numpy as np

from privcheck.core import CHUNK_SIZE, chunk_generator
from privcheck.core.execution import plan
from privcheck.core.protocols import OwnStatistics, provides
from privcheck.core.resources import check_memory, check_time
from privcheck.core.tradeoff import Curve

from ..figures import event_figures, with_ratio
from ..options import DEFAULT_SCREENING, Options
from ..result import EngineResult
from ..rules import by_ratio, claimed_score, needs, score
from ..verdict import Verdict, decide
from ..stats import (
    confidence_text,
    count_quantile,
    cp_lower,
    cp_upper,
    epsilon_from_bounds,
    ratio_epsilon,
    ratio_epsilon_at_delta,
)
from .events import SPARE_BITS, BitWindow, Kind, candidates_for, statistics_for
from .learned import MODELS, learned_statistics, n_train, prefetch, real_valued, worth_learning
from .runner import ChunkRunner, Stream

__all__ = ["sampled_audit", "plan_sampling", "planned_draws", "sampling_seconds", "DrawCost", "looks"]

SCREEN, SELECT, CERTIFY, LOOK = 0, 1, 2, 3
#: the place of a certification's Poissonized sizes among its keys (a stream's side is 0 or 1)
POISSON_SIZES = 2
#: draws per side and pair in a screening round, at least (unless the options say otherwise)
MIN_SCREEN = DEFAULT_SCREENING
#: the classifiers need this many draws per side to train on (below it, no classifier stage)
MIN_TRAIN = 1000
#: candidates per statistic and direction whose selection score is computed with exact Clopper–Pearson bounds
#: (the rest are ranked below them by Wilson's approximation)
SHORTLIST = 512
#: the same when screening pairs, where only the best candidate's score is wanted (to rank the pairs)
SCREEN_SHORTLIST = 64
#: held-out draws per side on which the classifiers' events are scored, at most
MAX_HELD_OUT = 200_000


#: stopping early: the share of the failure probability the interim looks spend (the last look spends the rest),
#: the draws of the first look at least, and the growth of the draws from one look to the next
INTERIM_SHARE, FIRST_LOOK, LOOK_GROWTH = 0.1, 500, 4


def looks(samples: int, stop_early: bool) -> list[tuple[int, float]]:
    """The looks of certification: (draws per side so far, share of the failure probability spent there).  One
    look at ``samples`` unless ``stop_early``; else looks at samples/4^j draws (j = J … 0, the first at least
    :data:`FIRST_LOOK`), the interim ones sharing :data:`INTERIM_SHARE` equally and the last the rest."""
    at = [samples]
    while stop_early and at[0] // LOOK_GROWTH >= FIRST_LOOK:
        at.insert(0, at[0] // LOOK_GROWTH)
    if len(at) == 1:
        return [(samples, 1.0)]
    each = INTERIM_SHARE / (len(at) - 1)
    return [(n, each) for n in at[:-1]] + [(samples, 1.0 - INTERIM_SHARE)]


def _scaled(k, n_sel, n_cert):
    """Selection counts ``k`` of ``n_sel`` draws carried to ``n_cert`` draws, each end pulled in by half a count:
    k ≤ n_sel/2 becomes (k + ½)·n_cert/n_sel − ½, and n_sel − k likewise from the other end.  Equal sizes leave k
    as it is; a count of 0 (or all) on a smaller sample is never carried to a certain 0 (or all) on a larger one
    (a rare event seen 3 times against 0 on 2,000 draws is not 60 against 0 on 40,000)."""
    k, n_sel = np.asarray(k, dtype=float), np.asarray(n_sel, dtype=float)  # (n_sel: one, or one per count)
    scaled = (k + 0.5) * (n_cert / n_sel) - 0.5
    pulled = np.clip(np.where(k > n_sel / 2, n_cert - ((n_sel - k) + 0.5) * (n_cert / n_sel) + 0.5, scaled), 0, n_cert)
    return np.where(n_sel == n_cert, k, pulled)


def _levels(claim, alpha_side: float) -> tuple[float, float | None]:
    """(level of each one-sided interval, level of the ratio bound or None) of a candidate given ``alpha_side``
    per side: an (ε, δ) claim (:func:`~privcheck.audits.rules.by_ratio`) is certified by the two intervals at
    half that each and the ratio bound at ``alpha_side``, on Poissonized draws; others by the two intervals at
    ``alpha_side``."""
    return (alpha_side / 2, alpha_side) if by_ratio(claim) else (alpha_side, None)


def _bound(claim, k_num, k_den, n_num, n_den, alpha_side, lower=cp_lower, upper=cp_upper):
    """The figure deciding ``claim`` that counts ``k_num`` of ``n_num`` and ``k_den`` of ``n_den`` certify, with
    :func:`_levels`' split of ``alpha_side``: the larger of the two intervals' and the ratio bound's, where the
    ratio bound serves — alone for pure ε, with the numerator's lower bound for ε at δ > 0 (vectorised;
    ``lower``/``upper`` the one-sided bounds used)."""
    side, ratio = _levels(claim, alpha_side)
    p_lo = lower(k_num, n_num, side)
    apart = score(claim, p_lo, upper(k_den, n_den, side))
    if ratio is None:
        return apart
    delta = needs(claim).delta
    if delta > 0:
        return np.maximum(apart, ratio_epsilon_at_delta(p_lo, k_num, k_den, ratio, delta, lower, upper))
    return np.maximum(apart, ratio_epsilon(k_num, k_den, ratio, lower, upper))


def _score(claim, ka, kb, n_sel, n_cert, alpha_side):
    """The bound each (event, direction) would certify, estimated from selection counts."""
    return _bound(claim, _scaled(ka, n_sel, n_cert), _scaled(kb, n_sel, n_cert), n_cert, n_cert, alpha_side)


def _wilson(sign):
    """Wilson's normal-approximation bound (lower for ``sign`` = −1, upper for +1), with the signature of
    :func:`cp_lower`."""
    from statistics import NormalDist

    def bound(k, n, alpha):
        k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
        z = NormalDist().inv_cdf(1 - alpha)
        z2n = z * z / n
        ph = np.clip(k / n, 0.0, 1.0)
        half = z * np.sqrt(ph * (1 - ph) / n + z2n / (4 * n))
        return np.clip((ph + z2n / 2 + sign * half) / (1 + z2n), 0.0, 1.0)

    return bound


def _rough_score(claim, ka, kb, n_sel, n_cert, alpha_side):
    """:func:`_score` with Wilson's bounds in place of Clopper–Pearson's: cheap, close for all but the smallest
    counts, used only to shortlist the candidates that :func:`_score` then ranks."""
    scaled = _scaled(ka, n_sel, n_cert), _scaled(kb, n_sel, n_cert)
    return _bound(claim, *scaled, n_cert, n_cert, alpha_side, _wilson(-1), _wilson(1))


def _scored(claim, found, n_cert, alpha_side, how_many, shortlist=SHORTLIST):
    """Top (score, event, numerator side, its selection counts (numerator, denominator, n per side)) of ``found`` =
    [(events, counts on x, counts on x', n per side of each count)].

    Scores use Clopper–Pearson bounds at the stricter level α_side / (number of candidates scored): the
    maximum over thousands of noisy candidates would otherwise favour rare events whose selection counts
    were lucky (their certified bound then collapses on fresh samples).  The level only steers the choice;
    certification uses α_side.
    """
    total = max(1, 2 * sum(len(e) for e, _, _, _ in found))
    alpha_sel = alpha_side / total
    # every (statistic, direction): its counts, and the plug-in log-ratio that breaks ties so that an informative
    # event is kept even at score 0
    parts = []
    for events, ka, kb, nn in found:
        for side, (num, den) in enumerate(((ka, kb), (kb, ka))):
            with np.errstate(divide="ignore", invalid="ignore"):
                parts.append((events, side, num, den, nn, np.log((num + 0.5) / (den + 0.5))))
    # the bounds are elementwise: each kind computed in one call over every part (per-call overhead, not the
    # arithmetic, is what a call per part costs), then read back part by part
    long = [j for j, p in enumerate(parts) if len(p[2]) > shortlist]  # exact bounds for a shortlist only
    rough = _split(_rough_score, claim, [parts[j] for j in long], [slice(None)] * len(long), n_cert, alpha_sel)
    picks = [np.arange(len(p[2])) for p in parts]
    for j, r in zip(long, rough):
        plug = parts[j][5]
        picks[j] = np.unique(np.concatenate([_first(shortlist, -r, -plug), _first(how_many, -plug)]))
    exact = _split(_score, claim, parts, picks, n_cert, alpha_sel)
    scored = []
    for (events, side, num, den, nn, plug), pick, s in zip(parts, picks, exact):
        order = np.lexsort((-plug[pick], -s))[:how_many]
        scored += [
            (float(s[i]), float(plug[j]), events[j], side, (int(num[j]), int(den[j]), int(nn[j])))
            for i, j in zip(order, pick[order])
        ]
    scored.sort(key=lambda t: (-t[0], -t[1]))
    out, seen = [], set()
    for s, _, ev, side, seen_counts in scored:
        key = (ev.describe(), side)
        if key not in seen:
            seen.add(key)
            out.append((s, ev, side, seen_counts))
        if len(out) == how_many:
            break
    return out


def _first(k: int, key: np.ndarray, then: np.ndarray | None = None) -> np.ndarray:
    """The first ``k`` indices of the stable ascending order by ``key``, ties by ``then`` (``np.lexsort((then,
    key))[:k]``, or ``np.argsort(key, kind="stable")[:k]``) — sorting only the candidates at or below the k-th key."""
    n = key.size
    if k >= n or np.isnan(key).any() or (then is not None and np.isnan(then).any()):
        return (np.lexsort((then, key)) if then is not None else np.argsort(key, kind="stable"))[:k]
    near = np.flatnonzero(key <= np.partition(key, k - 1)[k - 1])  # (every tie at the k-th key; in index order)
    keys = (key[near],) if then is None else (then[near], key[near])
    return near[np.lexsort(keys)[:k]]


def _split(score, claim, parts, picks, n_cert, alpha) -> list:
    """``score`` (:func:`_score` or :func:`_rough_score`) of each part's picked candidates, from one call over all
    of them (the figures are elementwise, so the same as a call per part)."""
    if not parts:
        return []
    cut = lambda i: np.concatenate([p[i][k] for p, k in zip(parts, picks)])  # noqa: E731
    out = score(claim, cut(2), cut(3), cut(4), n_cert, alpha)
    return np.split(out, np.cumsum([len(p[2][k]) for p, k in zip(parts, picks)])[:-1])


def _found(stats, a, b):
    """[(events, counts on ``a``, counts on ``b``, the draws per side each count is of)] of every statistic with
    candidates (:func:`~.events.candidates_for`)."""
    out = []
    for stat in stats:
        events, ka, kb, drawn = candidates_for(stat, a, b)
        if events:
            out.append((events, ka, kb, drawn))
    return out


def _best_candidates(
    claim, a, b, n_cert, alpha_side, user_stat, how_many, extra_stats=(), classifier="off", seed=0, shortlist=SHORTLIST
):
    """The candidates to certify: (score, event, numerator side) of the best ``how_many`` over every fixed
    statistic's candidates and both directions — and, when classifiers ran, the best learned one beside them.

    The fixed families (and the user's own statistic, and the mechanism's) are scored on the whole selection sample,
    but for likelihood-ratio sets of values, ordered on the first half of each side and counted on the second
    (:func:`~.events.candidates_for`): on the draws that ordered them they look better than they are, and outranked
    events that certify more.  Classifiers (:func:`_models`) are trained on the first part of it and their threshold
    events scored on the held-out rest (:mod:`privcheck.audits.mechanism.learned`).  The best learned candidate is
    certified beside the fixed ones rather than ranked against them — its score comes from fewer draws, and a lucky
    held-out count must not displace a fixed event that certifies more.  Where the selection sample has draws beyond
    the held-out part, the two meet there, on draws neither was chosen on (a learned event picked among many scores
    better on the draws it was picked on than it is): a learned event not better than the best fixed one beyond
    doubt there (:func:`_better`) is not certified — it would only take a share of the failure probability.  The
    largest certified bound is reported.  Returned with the notes on what the classifiers were not given
    (:func:`_grid_note`).
    """
    stats = statistics_for(a, b) + list(extra_stats)
    if user_stat is not None:
        stats.insert(0, user_stat)
    found = _found(stats, a, b)
    top = _scored(claim, found, n_cert, alpha_side, how_many, shortlist)
    models, notes = _models(classifier, claim, top, a, b), ()
    if models:
        h = n_train(min(a.shape[0], b.shape[0]), MIN_TRAIN)
        held_a, held_b = a[h : h + MAX_HELD_OUT], b[h : h + MAX_HELD_OUT]
        stats = learned_statistics(a[:h], b[:h], seed, models)
        notes = _grid_note(stats)
        learned = _found(stats, held_a, held_b)
        best = _scored(claim, learned, n_cert, alpha_side, 1, shortlist)
        n_rest = min(a.shape[0], b.shape[0], h + 2 * MAX_HELD_OUT) - (h + MAX_HELD_OUT)
        if best and top and n_rest >= MIN_TRAIN:  # the learned event and the best fixed one, on fresh draws
            rest = slice(h + MAX_HELD_OUT, h + MAX_HELD_OUT + n_rest)
            if not _better(claim, best[0], top[0], a[rest], b[rest], n_cert, alpha_side):
                best = []
        top += best
    return top, notes


def _oriented_counts(ev, side: int, a, b) -> tuple[int, int]:
    """(numerator count, denominator count) of event ``ev`` on draws ``a`` (of x) and ``b`` (of x′), the numerator
    the side ``side`` names (0: x)."""
    k = [int(np.count_nonzero(ev.indicator(d))) for d in (a, b)]
    return k[side], k[1 - side]


#: the doubt by which :func:`_better` compares two events: each count moved this many standard deviations (√k)
RIVAL_DOUBT = 2.0


def _better(claim, mine, theirs, a, b, n_cert, alpha_side) -> bool:
    """Whether candidate ``mine`` is better than ``theirs`` beyond doubt on draws ``a``, ``b`` (neither chosen on
    them): what it would certify at ``n_cert`` draws (:func:`_score`) with its counts there moved the pessimistic
    way by :data:`RIVAL_DOUBT` standard deviations, above what ``theirs`` would with theirs moved the optimistic
    way.  Two events of the same worth — a step score's cells where the ratio is that of a threshold — tie, and the
    tie goes to ``theirs``; an event seen 30,000 times against none beats one seen 400 times against one."""
    n = a.shape[0]

    def counts(cand, sign):
        _, ev, side, _ = cand
        num, den = (float(k) for k in _oriented_counts(ev, side, a, b))
        moved = lambda v, s: np.clip(v + s * RIVAL_DOUBT * np.sqrt(v), 0, n)  # noqa: E731
        return moved(num, sign), moved(den, -sign)

    worst, best = counts(mine, -1), counts(theirs, 1)
    low = _score(claim, np.array([worst[0]]), np.array([worst[1]]), n, n_cert, alpha_side)[0]
    high = _score(claim, np.array([best[0]]), np.array([best[1]]), n, n_cert, alpha_side)[0]
    return bool(low > high)


def _grid_note(stats) -> tuple:
    """The rule by which the classifiers were given the values without their bits, said once."""
    grids = {st.fn.features.grid for st in stats if getattr(st.fn, "features", None) is not None} - {None}
    if not grids:
        return ()
    k = min(grids)
    return (
        f"learned events read the values only, not their bits: every draw they trained on lies on the grid 2^{k}·ℤ "
        f"with its lowest {SPARE_BITS} significand bits zero, where a draw's bits are its value's and a float "
        "artefact (which doubles can come out) is the same on both sides",
    )


def _models(classifier, claim, top, a, b) -> tuple:
    """The classifiers trained: none with ``classifier="off"`` or too few draws to train on; both with ``on``;
    with ``auto``, boosted trees on the values and bits of real (float) outputs always — a floating-point leak
    hides in bit patterns no fixed window describes — and logistic regression for vectors and symbols when no
    fixed candidate already refutes the claim on the selection sample."""
    if classifier == "off" or min(a.shape[0], b.shape[0]) < 2 * MIN_TRAIN:
        return ()
    if classifier == "on":
        return MODELS
    models = ["trees"] if real_valued(a, b) else []
    if worth_learning(a) and (not top or top[0][0] <= claimed_score(claim)):
        models.insert(0, "logistic")
    return tuple(models)


def _screen_rounds(n_pairs: int, budget: int, floor: int = MIN_SCREEN, per_round: int | None = None):
    """(pairs still in, draws per pair and side) of each round of :func:`_screen`: at least ``floor`` each, and —
    with ``per_round`` (an earlier stage's) — ``per_round`` draws per side shared by the pairs still in, so that each
    pair's draws double as the pairs halve, and ``budget`` is not read."""
    alive, rounds = n_pairs, max(1, math.ceil(math.log2(max(n_pairs, 1))))
    while alive > 1:
        yield alive, max(floor, per_round // alive if per_round is not None else budget // (rounds * alive))
        alive //= 2


def _screen(
    runner,
    target,
    name,
    claim,
    pairs,
    seed,
    budget,
    n_cert,
    alpha_side,
    user_stat,
    extra,
    floor,
    per_round=None,
    look=None,
) -> tuple[int, EngineResult | None]:
    """The index of the pair to audit, by successive halving: every pair gets an equal share of a round's draws,
    the better half (by the bound its best fixed-family event would certify at ``n_cert``) goes on to the next
    round with twice the draws each; about ``budget`` draws per side in all (:func:`_screen_rounds`), every round on
    fresh draws.  From the second round on, ``look`` (a :class:`_Looks`), when given, is shown the event the last
    round ranked first, with its counts on this round's draws of its pair (drawn after the event was chosen), and
    may certify it on draws of its own: its result, when it refuted, is returned beside the pair (else None)."""
    alive, held = list(range(len(pairs))), None  # held: (pair, candidate) the last round ranked first
    for r, (_, n) in enumerate(_screen_rounds(len(pairs), budget, floor, per_round)):
        drawn = runner.sample(
            [Stream(target, x, (SCREEN, i, side, r), name) for i in alive for side, x in enumerate(pairs[i])], seed, n
        )
        if look is not None and held is not None:
            i, cand = held
            j = alive.index(i)  # (the first of a round always goes on)
            ours = drawn[2 * j], drawn[2 * j + 1]
            found = look(r, i, cand, _oriented_counts(cand[1], cand[2], *ours), n, ours)
            if found is not None:
                return i, found
        ranked, best = [], {}
        for j, i in enumerate(alive):
            top, _ = _best_candidates(
                claim,
                drawn[2 * j],
                drawn[2 * j + 1],
                n_cert,
                alpha_side,
                user_stat,
                1,
                extra,
                shortlist=SCREEN_SHORTLIST,
            )
            ranked.append(((top[0][0], -j) if top else (-math.inf, -j), i))
            best[i] = top[0] if top else None
        del drawn
        ranked.sort(reverse=True)
        held = None if best[ranked[0][1]] is None else (ranked[0][1], best[ranked[0][1]])
        alive = [i for _, i in ranked[: len(alive) // 2]]
    return alive[0], None


def _fresh_counts(runner, target, name, pair, seed, n, events, shapes, poissonized, key, after=(), planned=None):
    """How many of ``n`` fresh draws per side of ``pair`` = (x, x′) fall in each of ``events`` — Poisson(n) draws a
    side when ``poissonized`` (the ratio bound's), their sizes drawn from the stream (*key, POISSON_SIZES, *after) —
    on the streams (*key, side, *after); ``shapes`` the draws' (trailing shape, dtype kind) a side, ``planned`` as
    :meth:`~.runner.ChunkRunner.count`'s.  Returns (counts on x, counts on x′, the draws made a side)."""
    streams = [Stream(target, x, (*key, side, *after), name) for side, x in enumerate(pair)]
    sizes = np.full(2, n, dtype=np.int64)
    if poissonized:
        sizes = chunk_generator(seed, *key, POISSON_SIZES, *after).poisson(n, 2)
    ca, cb = runner.count(streams, seed, sizes, events, shapes, planned=planned)
    return ca, cb, sizes


#: a look during the screening (:class:`_Looks`): its fresh draws per side are the certification's divided by a
#: power of :data:`LOOK_GROWTH` (the smallest at which a refutation is promised, at most a quarter of them and at
#: least :data:`LOOK_MIN`), each look spends :data:`LOOK_SHARE` of the failure probability, and an audit makes at
#: most :data:`LOOKS_MAX` of them (one per pair); the promise reads the event's held-out counts moved the pessimistic
#: way by :data:`LOOK_DOUBT` standard deviations
LOOK_GROWTH, LOOK_STEPS, LOOK_MIN, LOOK_SHARE, LOOKS_MAX, LOOK_DOUBT = 4, 3, 500, 0.02, 2, 1.0


class _Looks:
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

    def __init__(self, claim, runner, target, name, pairs, seed, samples: int, confidence: float):
        self.claim, self.runner, self.target, self.name = claim, runner, target, name
        self.pairs, self.seed = pairs, seed
        self.sizes = [m for j in range(LOOK_STEPS, 0, -1) if (m := samples // LOOK_GROWTH**j) >= LOOK_MIN]
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
        promised = _score(
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
        ca, cb, sizes = _fresh_counts(
            self.runner, self.target, self.name, (x, x2), self.seed, m, [ev], shapes, self.poissonized, (LOOK, r, i)
        )
        found = _certified(
            self.claim, [cand], ca, cb, sizes, m, self.alpha_side, self.confidence, x, x2, False, self.poissonized
        )
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


@dataclass(frozen=True)
class DrawCost:
    """What one draw costs, measured on a probe: the bytes of its output and the seconds to make it (in this
    process).  :func:`plan_sampling` turns it into the audit's memory and time."""

    bytes: float
    seconds: float


def plan_sampling(
    cost: DrawCost,
    n_pairs: int,
    samples: int,
    selection_samples: int,
    workers: int,
    what: str,
    max_hours: float,
    way_out: str,
    floor: int = MIN_SCREEN,
    per_round: int | None = None,
) -> float:
    """Refuse a sampled audit whose held draws (both sides' selection sample, twice while it is assembled, and a
    chunk per worker) do not fit in memory, or whose draws — screening (``floor`` and ``per_round`` as in
    :func:`_screen_rounds`), selection and certification, spread over ``workers`` — would take longer than
    ``max_hours``; return the estimated seconds."""
    held = 4 * selection_samples + 2 * max(workers, 1) * min(CHUNK_SIZE, max(samples, selection_samples))
    check_memory(held * cost.bytes, what, way_out)
    seconds = sampling_seconds(cost, n_pairs, samples, selection_samples, workers, floor, per_round)
    check_time(seconds, what, way_out, max_hours)
    return seconds


def sampling_seconds(
    cost: DrawCost,
    n_pairs: int,
    samples: int,
    selection_samples: int,
    workers: int,
    floor: int = MIN_SCREEN,
    per_round: int | None = None,
) -> float:
    """The estimated seconds of :func:`sampled_audit`'s draws on ``workers``: every wave of them — screening,
    selection, certification — is cut into tasks for the executor's workers (:class:`~.runner.ChunkRunner`), so
    all are spread (the executor that starts its processes after its first seconds, :class:`~privcheck.core.
    execution.Auto`, differs from this by those seconds)."""
    return cost.seconds * planned_draws(n_pairs, samples, selection_samples, floor, per_round) / max(workers, 1)


def planned_draws(
    n_pairs: int, samples: int, selection_samples: int, floor: int = MIN_SCREEN, per_round: int | None = None
) -> int:
    """The draws :func:`sampled_audit` makes, both sides: the screening rounds of :func:`_screen` (when there are
    several pairs; :func:`_screen_rounds`), then selection and certification."""
    screening = sum(alive * n for alive, n in _screen_rounds(n_pairs, selection_samples, floor, per_round))
    return 2 * (screening + selection_samples + samples)


def _curve(results, best: int, alpha_side: float, pair) -> Curve:
    """The certified candidates as trade-off points: corner (q_upper, 1 − p_lower) of each, with the two-sided
    Clopper–Pearson rectangle at the same per-side level for drawing."""
    r = results
    k_num = np.array([c[2] for c in r], dtype=float)
    k_den = np.array([c[3] for c in r], dtype=float)
    p = np.array([c[4] for c in r])
    q = np.array([c[5] for c in r])
    n_num = np.array([c[6] for c in r], dtype=float)
    n_den = np.array([c[7] for c in r], dtype=float)
    alternative = ("x", "x'")
    names = [f"{c[0].describe()} (alternative {alternative[c[1]]})" for c in r]
    return Curve(
        q,
        np.nextafter(1.0 - p, 2.0).clip(0.0, 1.0),
        False,
        pair,
        best,
        k_den / np.maximum(n_den, 1),
        1.0 - k_num / np.maximum(n_num, 1),
        cp_lower(k_den, n_den, alpha_side),
        np.clip(1.0 - cp_upper(k_num, n_num, alpha_side), 0.0, 1.0),
        names,
    )


def sampled_audit(
    mechanism,
    claim,
    pairs,
    opts: Options,
    *,
    seed: int,
    executor=None,
    target=None,
    user_stat=None,
    name: str = "target",
    cost: DrawCost | None = None,
    like: np.ndarray | None = None,
) -> EngineResult:
    """``mechanism`` is the target built here; ``target`` is what travels to the executor's workers (a
    description, or by default the mechanism itself); ``opts`` says how many draws (``samples`` and
    ``selection_samples`` resolved), at what confidence, over how many candidates, with which classifier
    (:func:`_best_candidates`).  ``opts.progress(n)`` is told of every n draws made, after the plan
    (:func:`~privcheck.core.execution.plan`); a caller auditing several mechanisms as one plan passes
    ``part_of_plan`` of its own.  With a measured ``cost`` per draw the plan's estimated time is announced too.  With
    ``like`` (a few draws like the audit's: the caller's reproducibility probe), the classifiers' library is imported
    on a thread while the selection draws are made, where the classifiers would need it (:func:`~.learned.prefetch`).
    The caller has checked the whole plan, every stage's, before the first (:func:`plan_sampling`)."""
    samples, selection_samples, confidence = opts.samples, opts.selection_samples, opts.confidence
    candidates, progress, classifier = opts.candidates, opts.progress, opts.classifier
    floor = opts.screening
    alpha_side = (1.0 - confidence) / (2 * candidates)
    extra = tuple(mechanism.statistics()) if provides(mechanism, OwnStatistics) else ()  # its own features
    target = mechanism if target is None else target
    seconds = None
    if cost is not None:
        workers = 1 if executor is None else executor.workers
        seconds = sampling_seconds(cost, len(pairs), samples, selection_samples, workers, floor, opts.screening_round)
    plan(progress, planned_draws(len(pairs), samples, selection_samples, floor, opts.screening_round), seconds=seconds)
    runner = ChunkRunner(executor, progress)
    # 1. screening, when there are several candidate pairs, with looks during its rounds (their draws are not in the
    # plan: a look is made only where a refutation is promised, and ends the audit when it refutes)
    chosen, screen_looks = 0, None
    if len(pairs) > 1:
        if not opts.full_budget:
            screen_looks = _Looks(claim, ChunkRunner(executor, None), target, name, pairs, seed, samples, confidence)
        chosen, looked = _screen(
            runner,
            target,
            name,
            claim,
            pairs,
            seed,
            selection_samples,
            samples,
            alpha_side,
            user_stat,
            extra,
            floor,
            opts.screening_round,
            screen_looks,
        )
        if looked is not None:
            return looked
    spent = 0.0 if screen_looks is None else screen_looks.spent  # the looks' share of the failure probability
    x, x2 = pairs[chosen]
    # 2. selection
    if like is not None and classifier != "off" and selection_samples >= 2 * MIN_TRAIN:
        # the classifiers' library, where they would need it, imported while the selection draws are made
        prefetch(like)
    a, b = runner.sample(
        [Stream(target, x, (SELECT, chosen, 0), name), Stream(target, x2, (SELECT, chosen, 1), name)],
        seed,
        selection_samples,
    )
    top, learned_notes = _best_candidates(
        claim, a, b, samples, alpha_side, user_stat, candidates, extra, classifier, seed
    )
    shapes = [(a.shape[1:], a.dtype.kind), (b.shape[1:], b.dtype.kind)]
    crossed = _cross_fitted_counts(claim, a, b, samples, alpha_side, user_stat, extra)  # for the reach only
    del a, b
    events = [ev for _, ev, _, _ in top]
    # the failure probability split over every candidate certified (the learned one beside the fixed ones)
    alpha_side = (1.0 - confidence) * (1.0 - spent) / (2 * max(1, len(top)))
    # 3. certification on fresh draws, both sides in one wave: only counts come back
    plan_looks = looks(samples, opts.stop_early)
    poissonized = by_ratio(claim)
    ca, cb, drawn, done = 0, 0, np.zeros(2, dtype=np.int64), 0
    for i, (n, share) in enumerate(plan_looks):
        stage = () if len(plan_looks) == 1 else (1 + i,)  # each stage's own streams (one look: as always)
        # the look's more draws a side (Poissonized: Poisson(n − done) each, so that the look's are Poisson(n))
        more = n - done
        sa, sb, sizes = _fresh_counts(
            runner, target, name, (x, x2), seed, more, events, shapes, poissonized, (CERTIFY, chosen), stage, 2 * more
        )
        ca, cb, drawn, done = ca + sa, cb + sb, drawn + sizes, n
        found = _certified(
            claim, top, ca, cb, drawn, n, alpha_side * share, confidence, x, x2, len(plan_looks) > 1, poissonized
        )
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
    chosen_top = next(c for c in top if c[1] is found.event)
    if getattr(getattr(found.event, "statistic", None), "kind", None) == Kind.LEARNED:
        seen, basis = chosen_top[3], "held-out"  # a learned event's counts are on draws it was not trained on
    elif crossed is None:
        seen, basis = chosen_top[3], "selection"
    else:
        seen, basis = crossed, "cross-fitted"
    reach = {**stated_reach(claim, *seen, n, alpha_side), "basis": basis}
    extra = {**found.extra, "reach": reach}
    if screen_looks is not None and screen_looks.notes:
        learned_notes = (
            *learned_notes,
            *screen_looks.notes,
            f"the certification's share of the failure probability: the rest ({1 - spent:.0%})",
        )
    if decide(claim, found.figures) is Verdict.REFUTED and reads_bits(found.event):
        learned_notes = (*learned_notes, BITS_NOTE)
    return replace(
        found, pairs_considered=len(pairs), certified=len(top), extra=extra, notes=found.notes + learned_notes
    )


#: said when the event that refutes reads the outputs' bits (:func:`reads_bits`)
BITS_NOTE = (
    "the refuting event reads the outputs' bits, not only their values: the leak is in which doubles the noise can "
    "produce on each side — a floating-point leak, true of the code as it runs, which a proof over the real numbers "
    "does not see; noise drawn exactly on a grid closes it (the float-safe noise how-to)"
)


def reads_bits(event) -> bool:
    """Whether ``event`` reads the outputs' mantissa bits: a bit window's (:class:`~.events.BitWindow`), or a
    threshold on a classifier trained on their bits as well as their values."""
    if isinstance(event, BitWindow):
        return True
    features = getattr(getattr(getattr(event, "statistic", None), "fn", None), "features", None)
    return bool(getattr(features, "mantissa", 0))


#: the least draws per side of a half: below, the reach reads the chosen event's own selection counts
REACH_HALF_MIN = 100


def _cross_fitted_counts(claim, a, b, n_cert, alpha_side, user_stat, extra) -> tuple[int, int, int] | None:
    """The counts the reach reads (:func:`stated_reach`): the best fixed event chosen on one half of the selection
    draws ``a``, ``b`` and counted on the other, both ways, summed — (numerator count, denominator count, draws per
    side).  The chosen event's own selection counts are optimistic: the selection took the candidate its draws
    favoured most, and along a Gaussian's tail many thresholds are nearly as good, so a reach read from them stated
    1.36 times the bound certified on average (benchmarks/reach_calibration.py).  Counted on draws their event was not
    chosen on, they are honest for an event chosen the same way on half as many draws.  The cost is a second
    selection of the fixed families, classifiers off, exact bounds for the best candidate only (Wilson's
    approximation ranks the rest: the exact ones were most of its cost, and every row of the reach's calibration
    moved by 0.002 at most): 0.18 s of a 1.55 s Laplace audit at 10⁶ draws per side (profiled).  None when a half
    would hold fewer than :data:`REACH_HALF_MIN` draws or no fixed event has candidates."""
    h = min(a.shape[0], b.shape[0]) // 2  # (halves of all: halves of a tenth chose rarer events, 0.62 where 0.99 held)
    if h < REACH_HALF_MIN:
        return None
    num = den = 0
    for fit, held in ((slice(0, h), slice(h, 2 * h)), (slice(h, 2 * h), slice(0, h))):
        top, _ = _best_candidates(claim, a[fit], b[fit], n_cert, alpha_side, user_stat, 1, extra, "off", shortlist=1)
        if not top:
            return None
        _, ev, side, _ = top[0]
        k_num, k_den = _oriented_counts(ev, side, a[held], b[held])
        num, den = num + k_num, den + k_den
    return num, den, 2 * h


#: the power at which :func:`stated_reach` says the smallest leak an audit would have detected
REACH_POWER = 0.8


def stated_reach(claim, k_num: int, k_den: int, n_sel: int, n: int, alpha_side: float) -> dict:
    """What an audit could have certified — an estimate, never a certified figure: ``epsilon``, the ε an event
    would certify at ``n`` fresh draws per side (the certification's bounds at ``alpha_side``) if its probabilities
    were those counted (``k_num``, ``k_den`` of ``n_sel``: in an audit, :func:`_cross_fitted_counts`' — the
    chosen event's own selection counts flatter it); and ``detectable_factor``, the
    smallest f such that, were the event's total mass on both sides the one seen (P̂ + Q) and its log-ratio f times
    the one seen (r = ln(P̂/Q): P = (P̂ + Q)·e^{f·r}/(1 + e^{f·r})), the audit would refute the claim with
    probability at least :data:`REACH_POWER` (each count at its quantile √0.8 — Poisson on a Poissonized sample —
    and the bound monotone in both, so the power is at least 0.8): the target f times as leaky on this event — for
    (ε, δ) claims; None for the others, for an event that leaned the other way where counted, and beyond 64×.
    (Earlier models: the event at the boundary of an (f·ε, δ) claim, right for mechanisms whose events reach their
    claim, promised a policy 1.15× as leaky would be caught where none of 10 was; the event's probability on x′
    kept as seen (P = Q·e^{f·r}) gave a leakier target more mass than a randomized response made leakier has — the
    mass kept is exact for those, and the certification's ratio bound reads the share of that mass; the factor
    checks of benchmarks/reach_calibration.py.)"""
    nd = needs(claim)
    p_hat, q_hat = k_num / n_sel, k_den / n_sel
    a, b = np.array([round(p_hat * n)]), np.array([round(q_hat * n)])
    if nd.dp:
        epsilon = float(_bound(claim, a, b, n, n, alpha_side)[0])
    else:  # (the ε such an event gives, for a claim that ε does not decide)
        epsilon = float(epsilon_from_bounds(cp_lower(a, n, alpha_side), cp_upper(b, n, alpha_side))[0])
    out = {"epsilon": max(0.0, epsilon), "detectable_factor": None, "power": REACH_POWER}
    if not nd.dp or nd.epsilon <= 0:
        return out
    q = max(q_hat, 0.5 / n_sel)  # an event not seen on x′ still has some probability there
    if p_hat <= q:
        return out  # the event leaned the other way where counted: no leak seen to scale
    r, mass = math.log(p_hat / q), p_hat + q
    level = REACH_POWER**0.5
    poissonized = by_ratio(claim)  # each count's law: binomial at n draws, Poisson on a Poissonized sample

    def detected(f: float) -> bool:
        t = math.exp(min(f * r, 700.0))
        p, q_f = min(1.0, mass * t / (1 + t)), mass / (1 + t)  # the mass as seen, the log-ratio f·r
        a = min(n, count_quantile(1.0 - level, n, p, poissonized))  # k_num >= a with probability >= level
        b = min(n, count_quantile(level, n, q_f, poissonized))  # k_den <= b with probability >= level
        return bool(_bound(claim, np.array([a]), np.array([b]), n, n, alpha_side)[0] > claimed_score(claim))

    if not detected(64.0):
        return out
    lo, hi = 1.0, 64.0
    for _ in range(22):  # to within 63·2⁻²² ≈ 1.5e-5 (three digits are said; each step is two quantiles and a bound)
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if detected(mid) else (mid, hi)
    out["detectable_factor"] = hi
    return out


def _certified(claim, top, ca, cb, drawn, samples, alpha_side, confidence, x, x2, staged, poissonized) -> EngineResult:
    """The figures and witness of the best of the certified candidates ``top`` on counts ``ca``, ``cb`` of
    ``drawn`` = (draws on x, draws on x′) — ``samples`` per side planned, Poisson around it when ``poissonized`` —
    at ``alpha_side`` per side split by :func:`_levels`: each candidate's one-sided bounds, and its ratio bound
    where it serves."""
    side_level, ratio_level = _levels(claim, alpha_side)
    results = []
    for j, (_, ev, side, _) in enumerate(top):
        k_num, k_den = (ca[j], cb[j]) if side == 0 else (cb[j], ca[j])
        n_num, n_den = (int(drawn[0]), int(drawn[1])) if side == 0 else (int(drawn[1]), int(drawn[0]))
        p = float(cp_lower(k_num, n_num, side_level))
        q = float(cp_upper(k_den, n_den, side_level))
        results.append((ev, side, k_num, k_den, p, q, n_num, n_den))

    # the reported candidate: the one whose certified bound is largest, the first of equals (all were certified at
    # once; the bounds elementwise, in one call)
    figure = _bound(claim, *(np.array([r[i] for r in results], dtype=float) for i in (2, 3, 6, 7)), alpha_side)
    best = int(np.argmax(np.where(np.isnan(figure), -np.inf, figure)))
    ev, side, k_num, k_den, p, q, n_num, n_den = results[best]
    how = "in looks, " if staged else ""
    if ratio_level is None:
        what = "one-sided Clopper–Pearson bounds"
    else:
        what = "one-sided Clopper–Pearson bounds and a conditional bound on their ratio (Poissonized draws)"
    figures = event_figures(
        p, q, needs(claim), f"sampling: {what}, {how}all at once with confidence {confidence_text(confidence)}"
    )
    bounds = {"p_lower": p, "q_upper": q, "level_per_side": 1 - side_level}
    if ratio_level is not None:
        m = k_num + k_den
        share = float(cp_lower(k_num, m, ratio_level)) if m > 0 else 0.0
        other = float(cp_upper(k_den, m, ratio_level)) if m > 0 else 1.0
        figures = with_ratio(figures, share, other, p, needs(claim))
        bounds["ratio"] = {"share_lower": share, "other_upper": other, "level": 1 - ratio_level}
    num_x, den_x = (x, x2) if side == 0 else (x2, x)
    pair = [np.asarray(num_x).tolist(), np.asarray(den_x).tolist()]  # one copy, shared (a policy's table is T × K)
    figures = replace(figures, curve=_curve(results, best, side_level, pair))
    counts = {"x": int(k_num), "x_prime": int(k_den), "samples": int(samples)}
    if poissonized:
        counts["drawn"] = {"x": n_num, "x_prime": n_den}
    witness = {
        "pair": pair,
        "event": ev.to_json(),
        "event_text": ev.describe(),
        "counts": counts,
        "bounds": bounds,
    }
    return EngineResult(figures, witness, event=ev)
