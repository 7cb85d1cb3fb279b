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

from .options import DEFAULT_SCREENING

__all__ = [
    "DrawCost",
    "MIN_FITTED_SELECTION",
    "MIN_SCREEN",
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
    :func:`screen_rounds`), selection and certification, spread over ``workers`` — would take longer than
    ``max_hours``; return the estimated seconds."""
    check_memory(held_bytes(cost, samples, selection_samples, workers), what, way_out)
    seconds = sampling_seconds(cost, n_pairs, samples, selection_samples, workers, floor, per_round)
    check_time(seconds, what, way_out, max_hours)
    return seconds


def held_bytes(cost: DrawCost, samples: int, selection_samples: int, workers: int) -> float:
    """The bytes a sampled audit holds at once: both sides' selection sample, twice while it is assembled, and a
    chunk per worker and side."""
    held = 4 * selection_samples + 2 * max(workers, 1) * min(CHUNK_SIZE, max(samples, selection_samples))
    return held * cost.bytes


#: a selection sample fitted to memory (:func:`fitted_selection`) holds at least this many draws per side: fewer, and
#: the plan is refused instead
MIN_FITTED_SELECTION = 10_000


def fitted_selection(cost: DrawCost, samples: int, selection_samples: int, workers: int) -> int:
    """The selection sample to draw where none was given: ``selection_samples`` (the default, as many as certify)
    where the plan's held draws (:func:`held_bytes`) fit in this machine's memory, else the most that fit, rounded
    down to two significant digits — at least :data:`MIN_FITTED_SELECTION` (where not even those fit, the plan is
    refused as it was).  The selection only chooses the pair and the event; the certification's draws are counted a
    chunk at a time whatever their number.  A counter of 1,024 releases at the default 10⁶ draws a side would hold
    some 32 GB: its selection is fitted, its certification keeps every draw."""
    limit = memory_limit()
    if held_bytes(cost, samples, selection_samples, workers) <= limit or cost.bytes <= 0:
        return selection_samples
    fixed = held_bytes(cost, samples, 0, workers)  # (the workers' chunks)
    most = int((limit - fixed) // (held_bytes(cost, samples, 1, workers) - fixed))
    if most < MIN_FITTED_SELECTION:
        return selection_samples
    digits = 10 ** (len(str(most)) - 2)
    return min(selection_samples, most // digits * digits)


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
