"""Selection: on a selection sample of each side of a pair, every candidate event of every statistic
(:mod:`privcheck.audits.mechanism.events`; the user's own event competes with them) scored — likelihood-ratio sets
of values, which are ordered on the draws, on the half of each side they were not ordered on —, in both directions,
by the bound it would certify at the certification sample size (:func:`selection_score`), with Clopper–Pearson
bounds at a level divided by the number of candidates so that lucky rare events are not preferred; the best are
kept (:func:`best_candidates`).  Beside them, the best threshold event of a classifier's score
(:mod:`privcheck.audits.mechanism.learned`) is kept too when, on selection draws neither was chosen on, it beats the
best fixed one beyond doubt.  The counts the reach reads are cross-fitted on halves of the selection sample
(:func:`cross_fitted_counts`)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from privcheck.core.threads import one_blas_thread

from ..rules import by_cells, claimed_score
from ..stats import scaled
from .certification import certified_bound
from .continual import stepped
from .events import SPARE_BITS, Ladder, candidates_for, coordinate_values, statistics_for
from .ladders import best_ladder
from .learned import MODELS, learned_statistics, n_train, real_valued, worth_learning
from .whitening import WHITENED_WORK

__all__ = [
    "Scoring",
    "best_candidates",
    "best_event",
    "gaussian_score",
    "cross_fitted_counts",
    "oriented_counts",
    "selection_score",
    "MIN_TRAIN",
    "SHORTLIST",
    "SCREEN_SHORTLIST",
]


class Scoring(NamedTuple):
    """How candidate events are scored: the ``claim``, the certification's draws per side ``n_cert``, the level per
    side ``alpha_side``, the user's own statistic (``user_stat``, or None) and the mechanism's (``extra``), and where
    the draws are releases made after every round, (rounds, blocks) (``rounds``: the stepped projection is fitted
    on them, :func:`~.continual.stepped`; None: not releases)."""

    claim: object
    n_cert: int
    alpha_side: float
    user_stat: object = None
    extra: tuple = ()
    rounds: tuple | None = None


#: the classifiers need this many draws per side to train on (below it, no classifier stage)
MIN_TRAIN = 1000


#: candidates per statistic and direction whose selection score is computed with exact Clopper–Pearson bounds
#: (the rest are ranked below them by Wilson's approximation)
SHORTLIST = 512


#: the same when screening pairs, where only the best candidate's score is wanted (to rank the pairs)
SCREEN_SHORTLIST = 64


#: held-out draws per side on which the classifiers' events are scored, at most
MAX_HELD_OUT = 200_000


def selection_score(claim, ka, kb, n_sel, n_cert, alpha_side):
    """The bound each (event, direction) would certify, estimated from selection counts."""
    return certified_bound(claim, scaled(ka, n_sel, n_cert), scaled(kb, n_sel, n_cert), n_cert, n_cert, alpha_side)


#: the thresholds, in units of the noise from the x side's mean, at which :func:`gaussian_score` reads two Gaussians
_GAUSSIAN_CUTS = np.linspace(-4.0, 12.0, 321)


def gaussian_score(claim, mu: float, n_cert: int, alpha_side: float) -> float:
    """The bound the best threshold event would certify at ``n_cert`` draws a side (at ``alpha_side``) were the two
    sides N(0, 1) and N(``mu``, 1) along the statistic — their expected counts, certified as counts are: a pair's
    worth by its estimated separation (:meth:`~.whitening.Pooled.separation`), on the scale of the scores of events
    (:func:`selection_score`)."""
    from scipy.special import ndtr

    if not mu > 0:
        return 0.0
    num = np.floor(n_cert * ndtr(mu - _GAUSSIAN_CUTS))  # (x′ above the cut)
    den = np.ceil(n_cert * ndtr(-_GAUSSIAN_CUTS))  # (x above it)
    return float(np.max(certified_bound(claim, num, den, n_cert, n_cert, alpha_side)))


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
    """:func:`selection_score` with Wilson's bounds in place of Clopper–Pearson's: cheap, close for all but the smallest
    counts, used only to shortlist the candidates that :func:`selection_score` then ranks."""
    carried = scaled(ka, n_sel, n_cert), scaled(kb, n_sel, n_cert)
    return certified_bound(claim, *carried, n_cert, n_cert, alpha_side, _wilson(-1), _wilson(1))


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
    exact = _split(selection_score, claim, parts, picks, n_cert, alpha_sel)
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
    """``score`` (:func:`selection_score` or :func:`_rough_score`) of each part's picked candidates, from one call
    over all of them (the figures are elementwise, so the same as a call per part)."""
    if not parts:
        return []
    cut = lambda i: np.concatenate([p[i][k] for p, k in zip(parts, picks)])  # noqa: E731
    out = score(claim, cut(2), cut(3), cut(4), n_cert, alpha)
    return np.split(out, np.cumsum([len(p[2][k]) for p, k in zip(parts, picks)])[:-1])


def _found(stats, a, b):
    """[(events, counts on ``a``, counts on ``b``, the draws per side each count is of)] of every statistic with
    candidates (:func:`~.events.candidates_for`), in the order of ``stats``; the coordinates' columns read a group at
    a time (:func:`~.events.coordinate_values`)."""
    found = [None] * len(stats)
    for i, values in coordinate_values(stats, a, b):
        found[i] = candidates_for(stats[i], a, b, values)
    for i, stat in enumerate(stats):
        if found[i] is None:
            found[i] = candidates_for(stat, a, b)
    return [f for f in found if f[0]]


def best_candidates(
    s: Scoring,
    a,
    b,
    how_many: int,
    classifier="off",
    seed=0,
    shortlist=SHORTLIST,
    ladders=False,
    whitened_work=WHITENED_WORK,
    pooled=None,
):
    """The candidates to certify, scored as ``s`` says (:class:`Scoring`): (score, event, numerator side) of the
    best ``how_many`` over every fixed
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
    largest certified bound is reported.  With ``ladders``, for a claim whose figure a ladder's cells certify
    (:func:`~..rules.by_cells`), the best ladder (:func:`~.ladders.best_ladder`) takes the place of the last fixed
    candidate where it scores higher than the best.  ``whitened_work``: the multiply-adds the whitened projection's
    covariance may take (:func:`~.events.statistics_for`; the audit's own selection, made once, gives it more than
    a screening round), or ``pooled``, the covariance a screening round pooled over its pairs
    (:func:`~.whitening.pooled_covariance`).  Returned with the notes on what the classifiers were not given
    (:func:`_grid_note`).
    """
    with one_blas_thread():  # (small products, many: on one thread; a large covariance takes them all again)
        return _best_candidates(s, a, b, how_many, classifier, seed, shortlist, ladders, whitened_work, pooled)


#: a continual release is wide where its values are at least this many times its selection draws a side: a
#: statistic fitted on the draws (a mean difference of 210,000 values on 927 runs) then reads their noise, and its
#: events' counts on them outrank the events of one that certifies more (:func:`_held_out_best`)
WIDE = 1
#: the best candidates of each statistic, chosen on the first half, that :func:`_held_out_best` counts on the second
HELD_OUT_EACH = 8


def _best_candidates(s: Scoring, a, b, how_many, classifier, seed, shortlist, ladders, whitened_work, pooled):
    claim, n_cert, alpha_side = s.claim, s.n_cert, s.alpha_side
    if s.rounds is not None and int(np.prod(a.shape[1:])) >= WIDE * min(a.shape[0], b.shape[0]) >= 8:
        return _held_out_best(s, a, b, how_many, shortlist, whitened_work, pooled), ()
    stats = _statistics(s, a, b, whitened_work, pooled)
    found = _found(stats, a, b)
    top = _scored(claim, found, n_cert, alpha_side, how_many, shortlist)
    if ladders and by_cells(claim):
        ladder = best_ladder(claim, top, stats, a, b, n_cert, alpha_side)
        if ladder is not None and (not top or ladder[0] > top[0][0]):
            top = [ladder, *top[: how_many - 1]]
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


def best_event(s: Scoring, stat, a, b):
    """The best candidate (score, event, numerator side, its counts) of statistic ``stat``'s events on draws ``a``,
    ``b``, scored as ``s`` says (:func:`_scored`, over those events alone); None where it has none."""
    found = _found([stat], a, b)
    top = _scored(s.claim, found, s.n_cert, s.alpha_side, 1, SCREEN_SHORTLIST) if found else []
    return top[0] if top else None


def _statistics(s: Scoring, a, b, whitened_work, pooled) -> list:
    """The statistics whose events are candidates on draws ``a``, ``b``: the user's first, the fixed families
    (:func:`~.events.statistics_for`), the mechanism's own and, for a continual release, the stepped projection."""
    stats = statistics_for(a, b, whitened_work, pooled) + list(s.extra)
    if s.rounds is not None and a.dtype.kind in "biuf":
        step = stepped(a, b, *s.rounds)
        if step is not None:
            stats.append(step)
    if s.user_stat is not None:
        stats.insert(0, s.user_stat)
    return stats


def _held_out_best(s: Scoring, a, b, how_many, shortlist, whitened_work, pooled) -> list:
    """The best ``how_many`` candidates of a wide continual release (:data:`WIDE`): every statistic fitted and its
    best :data:`HELD_OUT_EACH` events chosen on the first half of each side's selection draws, all of them ranked
    by their counts on the second — as a screening round ranks a pair's events (:func:`~.screening._best`).  Counted
    on the draws that fitted them, the mean difference of 210,000 released values on 927 runs a side scored 3.6
    against a claim of 1 and outranked the stepped projection (fresh counts 26 against 9 of 150; the stepped
    projection's separation there 1.6: ``benchmarks/RESULTS.md``).  No ladder and no classifier: their cells and
    training want the draws this halves."""
    h = min(a.shape[0], b.shape[0]) // 2
    first, rest = (a[:h], b[:h]), (a[h : 2 * h], b[h : 2 * h])
    chosen = [
        c
        for f in _found(_statistics(s, *first, whitened_work, pooled), *first)
        for c in _scored(s.claim, [f], s.n_cert, s.alpha_side, HELD_OUT_EACH, shortlist)
    ]
    level = s.alpha_side / max(1, len(chosen))  # (the best of many on the same draws, as in _scored)
    ranked = held_out_scores(s, chosen, *rest, level)
    ranked.sort(key=lambda c: -c[0])  # (stable: a tie keeps the first half's order)
    return ranked[:how_many]


def held_out_scores(s: Scoring, chosen, a, b, level: float) -> list:
    """Each of the ``chosen`` candidates (score, event, numerator side, counts), in their order, scored again on its
    counts on draws ``a``, ``b`` it was not chosen on (:func:`selection_score` at ``level``): what a candidate chosen
    among many on a few draws is worth, its own score there being mostly their noise."""
    n, out = min(a.shape[0], b.shape[0]), []
    for _, ev, side, _ in chosen:
        num, den = oriented_counts(ev, side, a, b)
        score = selection_score(s.claim, np.array([num]), np.array([den]), n, s.n_cert, level)[0]
        out.append((float(score), ev, side, (num, den, n)))
    return out


def oriented_counts(ev, side: int, a, b) -> tuple[int, int]:
    """(numerator count, denominator count) of event ``ev`` on draws ``a`` (of x) and ``b`` (of x′), the numerator
    the side ``side`` names (0: x)."""
    k = [int(np.count_nonzero(ev.indicator(d))) for d in (a, b)]
    return k[side], k[1 - side]


#: the doubt by which :func:`_better` compares two events: each count moved this many standard deviations (√k)
RIVAL_DOUBT = 2.0


def _better(claim, mine, theirs, a, b, n_cert, alpha_side) -> bool:
    """Whether candidate ``mine`` is better than ``theirs`` beyond doubt on draws ``a``, ``b`` (neither chosen on
    them): what it would certify at ``n_cert`` draws (:func:`selection_score`) with its counts there moved the
    pessimistic way by :data:`RIVAL_DOUBT` standard deviations, above what ``theirs`` would with theirs moved the
    optimistic way.  Two events of the same worth — a step score's cells where the ratio is that of a threshold —
    tie, and the tie goes to ``theirs``; an event seen 30,000 times against none beats one seen 400 times against
    one."""
    n = a.shape[0]

    def counts(cand, sign):
        _, ev, side, _ = cand
        num, den = (float(k) for k in oriented_counts(ev, side, a, b))
        moved = lambda v, s: np.clip(v + s * RIVAL_DOUBT * np.sqrt(v), 0, n)  # noqa: E731
        return moved(num, sign), moved(den, -sign)

    worst = counts(mine, -1)
    low = selection_score(claim, np.array([worst[0]]), np.array([worst[1]]), n, n_cert, alpha_side)[0]
    if isinstance(theirs[1], Ladder):  # (a ladder's cells: its selection score)
        return bool(low > theirs[0])
    best = counts(theirs, 1)
    high = selection_score(claim, np.array([best[0]]), np.array([best[1]]), n, n_cert, alpha_side)[0]
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


#: the least draws per side of a half: below, the reach reads the chosen event's own selection counts
REACH_HALF_MIN = 100


def cross_fitted_counts(s: Scoring, a, b) -> tuple[int, int, int] | None:
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
        top, _ = best_candidates(s, a[fit], b[fit], 1, "off", shortlist=1)
        if not top:
            return None
        _, ev, side, _ = top[0]
        k_num, k_den = oriented_counts(ev, side, a[held], b[held])
        num, den = num + k_num, den + k_den
    return num, den, 2 * h
