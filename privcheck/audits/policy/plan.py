"""The plan of a sampled policy audit, made before any run: the runs per side sized to the policy's measured cost,
the whole plan (the input search's runs and the sampling's, for the most pairs a search keeps) checked against
``max_hours`` and announced to the progress, and announced again for the pairs the search kept."""

from __future__ import annotations

from dataclasses import replace

from privcheck.core.execution import plan
from privcheck.core.resources import check_time, human_bytes, human_seconds, memory_limit

from ..sampling import fitted_screening, held_bytes, plan_sampling, planned_draws, sampling_time, screened_on
from ..options import DEFAULT_POLICY_MINUTES, DEFAULT_SCREENING, Options
from ..stages import stages_of

__all__ = [
    "sized",
    "fits_runs",
    "fitted_to_memory",
    "earlier_stages",
    "planned",
    "replanned",
    "KEEP_PAIRS",
    "MIN_SIZED",
]

#: the pairs an input search keeps for screening, at most (the plan is made for them before the search)
KEEP_PAIRS = 8


#: the least runs per side a policy's runs are sized to (:func:`sized`)
MIN_SIZED = 200
#: the least runs per pair and side of a screening round fitted to memory (:func:`sized`): a wide release's runs
#: (an agent on FrozenLake publishes 4.6 MB a run with its changes) screened over a search's twelve pairs at once
MIN_FITTED_RUNS = 32


def fitted_to_memory(samples: int, screening: int) -> bool:
    """Whether a sized plan's ``screening`` (none given) was fitted to this machine's memory (:func:`sized`): fewer
    runs a pair than ``samples`` derive, so that a reproduce line must say it."""
    return screening < screened_on(samples, DEFAULT_SCREENING)


def earlier_stages(opts: Options, cost, n_pairs: int, workers: int, repeats: int = 1) -> tuple[int, float]:
    """(draws, estimated seconds on ``workers``) of the stages a staged sampling at ``opts`` may run before its full
    one, ``repeats`` times (one per adversary) on ``n_pairs`` each: its quick stage and, when its estimated work
    chooses one (:func:`~..stages.stages_of`), a middle stage — which runs only after a sign of a leak, but is
    counted, since a plan's ceiling is the most it can take."""
    work = sampling_time(opts, cost, n_pairs, 1, repeats)
    draws = sum(
        planned_draws(n_pairs, o.samples, o.selection_samples, o.screening, o.screening_round)
        for name, o, _ in stages_of(opts, work)
        if name in ("quick", "middle")
    )
    return repeats * draws, repeats * draws * cost.seconds / max(workers, 1)


class _Sizing:
    """The plan of a sized sampling at a number of runs per side (:func:`sized`): its options, their full sampling's
    seconds, the stages before it, whether the draws it holds fit this machine's memory, and whether the whole fits
    — the full sampling within :data:`~..options.DEFAULT_POLICY_MINUTES`, the whole within what ``max_hours`` leaves
    after the input search's ``search_seconds``."""

    def __init__(self, opts: Options, cost, workers: int, repeats: int, pairs, search_seconds: float):
        self.opts, self.cost, self.workers, self.repeats = opts, cost, workers, repeats
        self.n_pairs = KEEP_PAIRS if pairs is None else len(pairs)
        self.ceiling = 3600 * opts.max_hours - search_seconds

    def at(self, n: int) -> Options:
        """The options at ``n`` runs per side: the selection as many unless given, the screening shrunk with the runs
        (:func:`screened_on`) and fitted to memory unless given."""
        opts = self.opts
        selection = n if opts.selection_given is None else opts.selection_given
        if opts.screening_given is not None:
            return replace(opts, samples=n, selection_samples=selection)
        floor = screened_on(n, opts.screening)
        fitted = fitted_screening(self.cost, selection, self.workers, self.n_pairs, floor, least=MIN_FITTED_RUNS)
        return replace(opts, samples=n, selection_samples=selection, screening=fitted)

    def seconds(self, o: Options) -> float:
        return sampling_time(o, self.cost, self.n_pairs, self.workers, self.repeats)

    def earlier(self, o: Options) -> float:
        return earlier_stages(o, self.cost, self.n_pairs, self.workers, self.repeats)[1]

    def held(self, o: Options) -> bool:
        """Whether the draws a sampling at ``o`` holds at once fit what this machine can give it."""
        held = held_bytes(self.cost, o.samples, o.selection_samples, self.workers, self.n_pairs, o.screening)
        return held <= memory_limit()

    def fits(self, o: Options) -> bool:
        seconds = self.seconds(o)
        return self.held(o) and seconds <= 60 * DEFAULT_POLICY_MINUTES and seconds + self.earlier(o) <= self.ceiling


def fits_runs(opts: Options, cost, workers: int, n: int, pairs=None) -> bool:
    """Whether a sized plan of ``n`` runs per side (:func:`sized`: the screening shrunk with them and fitted to
    memory) fits — its full sampling within the default's minutes on ``workers``, the whole within ``max_hours``, its
    held draws within this machine's memory — for the ``pairs`` given, or the most a search keeps."""
    plan = _Sizing(opts, cost, workers, 1, pairs, 0.0)
    return plan.fits(plan.at(n))


def sized(
    opts: Options, cost, workers: int, repeats: int = 1, pairs=None, search_seconds: float = 0.0, subject="policy"
) -> tuple[Options, list]:
    """``opts`` with the runs per side sized to the policy's measured cost when the user gave no ``samples`` and
    the default plan's full sampling would take more than :data:`DEFAULT_POLICY_MINUTES` on the executor's
    ``workers``, or the whole of it — the stages before the full one too (:func:`earlier_stages`) — more than
    ``max_hours`` leaves after the input search's ``search_seconds``; and the note that says so — for the ``pairs``
    given, or for the most a search keeps when none are.  The screening of each candidate pair shrinks with the runs
    (:func:`screened_on`) unless the user gave ``screening``.  The ten minutes are the full sampling's alone: a
    middle stage runs only after a sign of a leak, and counting it would cost every correct policy a fifth of its
    runs; the note says what the earlier stages may add.  ``subject``: what the note calls the audited runs' maker."""
    if not opts.sized:
        return opts, []
    plan = _Sizing(opts, cost, workers, repeats, pairs, search_seconds)
    at, seconds, earlier, held, fits = plan.at, plan.seconds, plan.earlier, plan.held, plan.fits
    full = opts.samples
    if fits(opts):
        return opts, []
    lo, hi = MIN_SIZED, full
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(at(mid)) else (lo, mid)
    n = at(lo)
    shrunk = "" if n.screening == opts.screening else f", each candidate pair screened on {n.screening:,}"
    if opts.screening_given is None and fitted_to_memory(n.samples, n.screening):
        shrunk += (
            " (as many as this machine's memory holds at once beside the other pairs'; the reproduce line says it)"
        )
    on = f" on {workers} workers" if workers > 1 else ""  # (what the runs were sized to: the executor's)
    before = earlier(n)
    more = f", and the stages before the full one at most about {human_seconds(before)} more" if before >= 1 else ""
    memory = ""
    if lo + 1 < full and not held(at(lo + 1)):  # the memory, not the time, stopped the runs here
        memory = (
            f"; no more runs fit in the {human_bytes(memory_limit())} of memory this machine can give the sampling (a "
            f"run's output is {human_bytes(cost.bytes)})"
        )
    note = (
        f"runs per side sized to the {subject}'s measured cost: {n.samples:,}{shrunk} (the default {full:,} would take "
        f"about {human_seconds(seconds(opts))}{on}; these about {human_seconds(seconds(n))}{more}{memory}) — give "
        "samples= for more"
    )
    return n, [note]


def planned(mech, cost, opts: Options, name: str, workers: int, repeats: int = 1, pairs=None):
    """Check, before any run, that the sampling fits — memory, and time: ``repeats`` samplings (one per adversary)
    on the executor's ``workers`` of the ``pairs`` given, or of the most a search keeps when none are, within
    ``opts.max_hours`` — the whole plan, the stages before the full one counted; and return, for a search, a function of
    its run count that refuses a plan beyond ``opts.max_hours`` with the search's own time (counted on one core, an
    upper figure: its paths spread over the workers once the executor has started its processes), announces
    the whole plan — the search's runs and the sampling's, and at its first call, before any run, the stages before
    the full one (:func:`earlier_stages`) — to ``opts.progress`` and returns the progress callable the search
    reports its runs to (the sampling that follows is part of the same plan)."""
    way_out = "fewer runs per side (samples=), or a smaller horizon="
    against = f" against {repeats} adversaries" if repeats > 1 else ""
    n_pairs = KEEP_PAIRS if pairs is None else len(pairs)
    what = f"sampling {opts.samples:,} runs per side of {name}{against}" + (
        f" (the default, sized to the policy's cost: never below {MIN_SIZED:,})" if opts.sized else ""
    )
    sampling = plan_sampling(  # (each adversary's sampling after the other's: the time of all, the memory of one)
        replace(cost, seconds=repeats * cost.seconds),
        n_pairs,
        opts.samples,
        opts.selection_samples,
        workers,
        what,
        opts.max_hours,
        way_out,
        opts.screening,
    )
    early_draws, early = earlier_stages(opts, cost, n_pairs, workers, repeats)
    check_time(sampling + early, f"{what} and the stages before it", way_out, opts.max_hours)

    def check(search_runs: int):
        nonlocal early_draws, early
        seconds = sampling + early + search_runs * cost.seconds
        check_time(
            seconds,
            f"searching the inputs of {name} ({search_runs:,} runs of {mech.horizon:,} rounds) and sampling",
            "a smaller horizon=, fewer runs per side (samples=), or the pairs to audit given (pairs=)",
            opts.max_hours,
        )
        draws = early_draws + repeats * planned_draws(KEEP_PAIRS, opts.samples, opts.selection_samples, opts.screening)
        plan(opts.progress, search_runs + draws, " runs", seconds=seconds, ceiling=True)
        early_draws, early = 0, 0.0  # (counted once, before any run: the full search announces what is left)
        return opts.progress

    return check


def replanned(opts: Options, n_pairs: int, cost, workers: int, repeats: int = 1) -> None:
    """Announce the sampling again once the search has kept ``n_pairs`` (the plan made before it counted
    :data:`KEEP_PAIRS`, an upper figure): its runs and their estimated seconds, so that the estimate the user reads
    after the search is that of the work left."""
    draws = repeats * planned_draws(n_pairs, opts.samples, opts.selection_samples, opts.screening)
    plan(opts.progress, draws, " runs", seconds=sampling_time(opts, cost, n_pairs, workers, repeats))
