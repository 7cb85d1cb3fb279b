"""The arithmetic of a sampling plan, shared by mechanism and policy audits: what a draw costs
(:class:`DrawCost`), the draws a sampled audit makes — its screening rounds (:func:`screen_rounds`), selection and
certification (:func:`planned_draws`), the looks of a certification that may stop early (:func:`looks`) — their
estimated seconds (:func:`sampling_seconds`, :func:`sampling_time`), the check of a plan against this machine's memory
and ``max_hours`` (:func:`plan_sampling`), and the screening a policy audit's pairs get at a size it was given
(:func:`screened_on`).  Nothing here draws: the engines do (:mod:`privcheck.audits.mechanism.sampled`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from privcheck.core import CHUNK_SIZE
from privcheck.core.resources import check_memory, check_time, memory_limit

from .mechanism.events import statistics_held
from .mechanism.whitening import SELECTED_WORK
from .options import DEFAULT_SCREENING

__all__ = [
    "CHUNK_BYTES",
    "SAMPLER_HOLDS",
    "DrawCost",
    "chunk_draws",
    "held_bytes",
    "MIN_FITTED_SELECTION",
    "MIN_SCREEN",
    "fitted_screening",
    "fitted_selection",
    "looks",
    "plan_sampling",
    "planned_draws",
    "sampling_seconds",
    "sampling_time",
    "screen_rounds",
    "screened_on",
]

#: draws per side and pair in a screening round, at least (unless the options say otherwise)
MIN_SCREEN = DEFAULT_SCREENING


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


def screen_rounds(n_pairs: int, budget: int, floor: int = MIN_SCREEN, per_round: int | None = None):
    """(pairs still in, draws per pair and side) of each round of :func:`screen`: at least ``floor`` each, and —
    with ``per_round`` (an earlier stage's) — ``per_round`` draws per side shared by the pairs still in, so that each
    pair's draws double as the pairs halve, and ``budget`` is not read."""
    alive, rounds = n_pairs, max(1, math.ceil(math.log2(max(n_pairs, 1))))
    while alive > 1:
        yield alive, max(floor, per_round // alive if per_round is not None else budget // (rounds * alive))
        alive //= 2


#: a chunk of a target's draws — the draws one generator makes at once, on one worker — holds at most this many
#: bytes of output (and at most CHUNK_SIZE draws), unless the target chooses its own (a policy's runs): a counter of
#: T = 4,096 releases drew 65,536 of them at once, 2 GB of output and some 20 GB while its sampler ran (it holds 4 to
#: 11 times its output: benchmarks/RESULTS.md), and each of the machine's workers drew one
CHUNK_BYTES = 1 << 26


def chunk_draws(draw_bytes: float) -> int:
    """The draws in a chunk of a target whose draw is ``draw_bytes`` bytes of output: CHUNK_SIZE, or as many as
    :data:`CHUNK_BYTES` hold where fewer (at least one).  A function of the output's size alone, so that a seed says
    the same draws in every run of the same target."""
    return int(min(CHUNK_SIZE, max(1, CHUNK_BYTES // max(1, math.ceil(draw_bytes)))))


#: a mechanism's sampler holds at most about this many times its output while it draws (measured with tracemalloc
#: on the counters of ``mechanisms/counters.py``, 2,000 draws of T = 2,048 and 20,000 of T = 256: 4 to 11 times — the
#: noise of every node of a tree and its sums beside the release; a policy's runs, whose cost the simulator
#: measures, are taken to hold twice theirs)
SAMPLER_HOLDS = 12.0


@dataclass(frozen=True)
class DrawCost:
    """What one draw costs, measured on a probe: the bytes of its output and the seconds to make it (in this
    process); the values of its output (``values``; 0: its bytes over 8), the draws a chunk of it holds (``chunk``;
    0: :func:`chunk_draws` of its bytes) and how many times its output a draw holds while it is made (``holds``).
    :func:`plan_sampling` turns it into the audit's memory and time."""

    bytes: float
    seconds: float
    values: int = 0
    chunk: int = 0
    holds: float = 2.0

    @property
    def per_chunk(self) -> int:
        """The draws a task makes at once."""
        return self.chunk or chunk_draws(self.bytes)

    @property
    def width(self) -> int:
        """The values of a draw's output."""
        return self.values or max(1, math.ceil(self.bytes / 8))


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
    """Refuse a sampled audit whose held draws (:func:`held_bytes`) do not fit in memory, or whose draws —
    screening (``floor`` and ``per_round`` as in :func:`screen_rounds`), selection and certification, spread over
    ``workers`` — would take longer than ``max_hours``; return the estimated seconds."""
    check_memory(held_bytes(cost, samples, selection_samples, workers, n_pairs, floor, per_round), what, way_out)
    seconds = sampling_seconds(cost, n_pairs, samples, selection_samples, workers, floor, per_round)
    check_time(seconds, what, way_out, max_hours)
    return seconds


def held_bytes(
    cost: DrawCost,
    samples: int,
    selection_samples: int,
    workers: int,
    n_pairs: int = 1,
    floor: int = MIN_SCREEN,
    per_round: int | None = None,
) -> float:
    """The bytes a sampled audit holds at once, at most: the larger of its screening's largest round (every pair
    still in, both sides, twice while a round's chunks are assembled: :func:`screen_rounds`, ``floor`` and
    ``per_round`` as there) and its selection (both sides' selection sample, twice while assembled, and what the
    selection's statistics hold beside them: :func:`~.mechanism.events.statistics_held`) — and, beside either, the
    chunk each worker is drawing (:attr:`DrawCost.per_chunk` draws, :attr:`DrawCost.holds` times their output).
    Measured against a process's resident memory: ``benchmarks/RESULTS.md``."""
    chunk = min(cost.per_chunk, max(samples, selection_samples, 1))
    drawing = max(workers, 1) * chunk * cost.bytes * cost.holds
    selection = 4 * selection_samples * cost.bytes + statistics_held(selection_samples, cost.width, SELECTED_WORK)
    rounds = screen_rounds(n_pairs, selection_samples, floor, per_round) if n_pairs > 1 else ()
    screening = max((4 * alive * n * cost.bytes for alive, n in rounds), default=0.0)
    return max(selection, screening) + drawing


#: a selection sample fitted to memory (:func:`fitted_selection`) holds at least this many draws per side: fewer, and
#: the plan is refused instead
MIN_FITTED_SELECTION = 10_000


def fitted_selection(cost: DrawCost, samples: int, selection_samples: int, workers: int, *screening) -> int:
    """The selection sample to draw where none was given: ``selection_samples`` (the default, as many as certify)
    where the plan's held draws (:func:`held_bytes`, which grow with it; ``screening``: its pairs, floor and
    per-round draws) fit in this machine's memory, else the most that fit, rounded down to two significant digits —
    at least :data:`MIN_FITTED_SELECTION` (where not even those fit, the plan is refused as it was).  The selection
    only chooses the pair and the event; the certification's draws are counted a chunk at a time whatever their
    number.  A counter of 1,024 releases at the default 10⁶ draws a side would hold some 32 GB: its selection is
    fitted, its certification keeps every draw."""
    limit = memory_limit()
    if cost.bytes <= 0:
        return selection_samples
    return _most_fitting(
        lambda n: held_bytes(cost, samples, n, workers, *screening) <= limit, MIN_FITTED_SELECTION, selection_samples
    )


#: a screening fitted to memory (:func:`fitted_screening`) gives each pair at least this many draws a side a round
MIN_FITTED_SCREEN = 200


def fitted_screening(
    cost: DrawCost, samples: int, workers: int, n_pairs: int, floor: int, per_round=None, least: int = MIN_FITTED_SCREEN
) -> int:
    """The draws per pair and side of a screening round where none were given: ``floor`` where the screening's rounds
    fit in this machine's memory beside the least selection a plan is fitted to (:data:`MIN_FITTED_SELECTION`: the
    selection is fitted after, :func:`fitted_selection`), else the most that fit, rounded down to two significant
    digits — at least ``least`` (where not even those fit, the plan is refused as it was).  A counter of T = 16,384
    releases screened over 24 pairs at the default 2,000 draws a pair would hold 23 GB in its first round."""
    limit = memory_limit()
    if n_pairs < 2 or cost.bytes <= 0:
        return floor
    selection = min(samples, MIN_FITTED_SELECTION)
    return _most_fitting(
        lambda f: held_bytes(cost, samples, selection, workers, n_pairs, f, per_round) <= limit, least, floor
    )


def _most_fitting(fits, least: int, most: int) -> int:
    """``most`` where it ``fits`` or where not even ``least`` does (the plan is then refused as it was), else the
    largest size that fits (``fits`` grows false with the size), rounded down to two significant digits."""
    if least >= most or fits(most) or not fits(least):
        return most
    lo, hi = least, most  # (fits(lo), not fits(hi))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    digits = 10 ** (len(str(lo)) - 2)
    return lo // digits * digits


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
    """The draws :func:`sampled_audit` makes, both sides: the screening rounds of :func:`screen` (when there are
    several pairs; :func:`screen_rounds`), then selection and certification."""
    screening = sum(alive * n for alive, n in screen_rounds(n_pairs, selection_samples, floor, per_round))
    return 2 * (screening + selection_samples + samples)


#: the least runs per pair and side a sized policy audit screens each candidate pair on
LEAST_SCREENING = 100


def screened_on(n: int, screening: int) -> int:
    """The runs per side each candidate pair is screened on, at ``n`` runs per side and a ``screening`` the user did
    not give: a quarter of them — at least :data:`LEAST_SCREENING` (all of them when fewer), at most ``screening``.
    At the default 2,000, eight pairs screened on each round would cost several times the audit itself at a few
    thousand runs (the sized runs of a slow policy, a test's ``samples=``)."""
    return min(screening, max(min(n, LEAST_SCREENING), n // 4))


def sampling_time(opts, cost, n_pairs: int, workers: int, repeats: int = 1) -> float:
    """The estimated seconds of ``repeats`` samplings (one per adversary) of ``n_pairs`` at ``opts`` on ``workers``:
    on the executor's workers, the time a plan announces and sizes to; on one, the work that chooses the stages."""
    return repeats * sampling_seconds(cost, n_pairs, opts.samples, opts.selection_samples, workers, opts.screening)
