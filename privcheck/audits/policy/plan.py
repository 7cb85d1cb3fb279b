"""The plan of a sampled policy audit, made before any run: the runs per side sized to the policy's measured cost,
the whole plan (the input search's runs and the sampling's, for the most pairs a search keeps) checked against
``max_hours`` and announced to the progress, and announced again for the pairs the search kept."""

from __future__ import annotations

from dataclasses import replace

from privcheck.core.execution import plan
from privcheck.core.resources import check_time, human_seconds

from ..mechanism.sampled import plan_sampling, planned_draws, sampling_seconds
from ..options import DEFAULT_POLICY_MINUTES, Options

__all__ = ["sized", "planned", "replanned", "screened_on", "KEEP_PAIRS", "MIN_SIZED"]

#: the pairs an input search keeps for screening, at most (the plan is made for them before the search)
KEEP_PAIRS = 8


#: the least runs per side a policy's runs are sized to (:func:`sized`)
MIN_SIZED = 200
#: the least runs per pair and side a sized audit screens each candidate pair on
LEAST_SCREENING = 100


def screened_on(n: int, screening: int) -> int:
    """The runs per side each candidate pair is screened on, at ``n`` runs per side and a ``screening`` the user did
    not give: a quarter of them — at least :data:`LEAST_SCREENING` (all of them when fewer), at most ``screening``.
    At the default 2,000, eight pairs screened on each round would cost several times the audit itself at a few
    thousand runs (the sized runs of a slow policy, a test's ``samples=``)."""
    return min(screening, max(min(n, LEAST_SCREENING), n // 4))


def sized(
    opts: Options, cost, workers: int, repeats: int = 1, pairs=None, search_seconds: float = 0.0
) -> tuple[Options, list]:
    """``opts`` with the runs per side sized to the policy's measured cost when the user gave no ``samples`` and
    the default plan would take more than :data:`DEFAULT_POLICY_MINUTES` on the executor's ``workers`` (or what
    ``max_hours`` leaves after the input search's ``search_seconds``, at most), and the note that says so — for the
    ``pairs`` given, or for the most a search keeps when none are.  The screening of each candidate pair shrinks
    with the runs (:func:`screened_on`) unless the user gave ``screening``."""
    if not opts.sized:
        return opts, []
    n_pairs = KEEP_PAIRS if pairs is None else len(pairs)

    def screening(n: int) -> int:
        return opts.screening if opts.screening_given is not None else screened_on(n, opts.screening)

    def seconds(n: int, shrink: bool = True) -> float:
        selection = n if opts.selection_given is None else opts.selection_given
        floor = screening(n) if shrink else opts.screening
        return repeats * sampling_seconds(cost, n_pairs, n, selection, workers, floor)

    # the default's time, within the ceiling — the search's share of the ceiling left to it (the plan checked
    # before the search counts both: planned)
    budget = min(60 * DEFAULT_POLICY_MINUTES, 3600 * opts.max_hours - search_seconds)
    full = opts.samples
    if seconds(full, shrink=False) <= budget:
        return opts, []
    lo, hi = MIN_SIZED, full
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if seconds(mid) <= budget else (lo, mid)
    n = lo
    selection = n if opts.selection_given is None else opts.selection_given
    shrunk = "" if screening(n) == opts.screening else f", each candidate pair screened on {screening(n):,}"
    on = f" on {workers} workers" if workers > 1 else ""  # (what the runs were sized to: the executor's)
    note = (
        f"runs per side sized to the policy's measured cost: {n:,}{shrunk} (the default {full:,} would take about "
        f"{human_seconds(seconds(full, shrink=False))}{on}; these about {human_seconds(seconds(n))}) — give samples= "
        "for more"
    )
    return replace(opts, samples=n, selection_samples=selection, screening=screening(n)), [note]


def planned(mech, cost, opts: Options, name: str, workers: int, repeats: int = 1, pairs=None):
    """Check, before any run, that the sampling fits — memory, and time: ``repeats`` samplings (one per adversary)
    on the executor's ``workers`` of the ``pairs`` given, or of the most a search keeps when none are, within
    ``opts.max_hours`` — the whole plan, whose stages are each within it; and return, for a search, a function of
    its run count that refuses a plan beyond ``opts.max_hours`` with the search's own time (on one core), announces
    the whole plan — the search's runs and the sampling's — to ``opts.progress`` and returns the progress callable the
    search reports its runs to (the sampling that follows is part of the same plan)."""
    way_out = "fewer runs per side (samples=), or a smaller horizon="
    against = f" against {repeats} adversaries" if repeats > 1 else ""
    sampling = plan_sampling(  # (each adversary's sampling after the other's: the time of all, the memory of one)
        replace(cost, seconds=repeats * cost.seconds),
        KEEP_PAIRS if pairs is None else len(pairs),
        opts.samples,
        opts.selection_samples,
        workers,
        f"sampling {opts.samples:,} runs per side of {name}{against}"
        + (f" (the default, sized to the policy's cost: never below {MIN_SIZED:,})" if opts.sized else ""),
        opts.max_hours,
        way_out,
        opts.screening,
    )

    def check(search_runs: int):
        seconds = sampling + search_runs * cost.seconds
        check_time(
            seconds,
            f"searching the inputs of {name} ({search_runs:,} runs of {mech.horizon:,} rounds) and sampling",
            "a smaller horizon=, fewer runs per side (samples=), or the pairs to audit given (pairs=)",
            opts.max_hours,
        )
        draws = repeats * planned_draws(KEEP_PAIRS, opts.samples, opts.selection_samples, opts.screening)
        plan(opts.progress, search_runs + draws, " runs", seconds=seconds, ceiling=True)
        return opts.progress

    return check


def replanned(opts: Options, n_pairs: int, cost, workers: int, repeats: int = 1) -> None:
    """Announce the sampling again once the search has kept ``n_pairs`` (the plan made before it counted
    :data:`KEEP_PAIRS`, an upper figure): its runs and their estimated seconds, so that the estimate the user reads
    after the search is that of the work left."""
    draws = repeats * planned_draws(n_pairs, opts.samples, opts.selection_samples, opts.screening)
    seconds = repeats * sampling_seconds(cost, n_pairs, opts.samples, opts.selection_samples, workers, opts.screening)
    plan(opts.progress, draws, " runs", seconds=seconds)
