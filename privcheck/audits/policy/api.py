"""``audit_policy``: the entry point of a bandit-policy audit (behind :func:`privcheck.audit_policy` and
``privcheck audit`` on a policy).

* ``table`` / ``view`` (exact): every neighbour pair of binary reward tables (one row replaced) or reward lists
  (one entry replaced) is enumerated (:mod:`.tables`); the output is the action sequence.
* ``table`` / ``view`` (sampled): :class:`~.adapters.PolicyMechanism` makes "run the policy on this input" a
  mechanism whose draws are independent runs, and the sampled mechanism engine certifies a lower bound: pair
  search among neighbours of a start table (:mod:`.inputs`), events over the action sequence (pulls of each arm,
  the first round each arm is played, the number of switches, the action at a step, the whole sequence as a
  category when few occur, the mean-difference projection), Clopper–Pearson certification on fresh runs.
* ``interactive`` (sampled): the policy against each adversary of :mod:`.adversaries` (and the user's own),
  the failure probability split over them, the largest certified bound reported.
* ``interactive`` (exact): each figure the supremum over every deterministic adversary, by backward induction
  on the recommendation/query tree (:mod:`.interactive`); chosen by ``auto`` when the policy is enumerable and
  the enumeration fits.
* ``local``: each user's report randomizer (:mod:`.local`).

A lower bound never certifies privacy: "not refuted" says only that this audit found no violation.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from enum import Enum

from privcheck.core import TableNeighbours, ViewNeighbours, InvalidArgument, resolve_seed, with_relation
from privcheck.core.execution import DEFAULT_CONNECT_TIMEOUT, part_of_plan, plan
from privcheck.core.sequential import as_policy
from privcheck.core.protocols import (
    Enumerable,
    FiniteChannel,
    FixedHorizon,
    Named,
    PhaseScale,
    ReleaseSchedule,
    WidthScale,
    Policy,
    UserReports,
    is_decision_rules,
    provides,
    update_uniforms,
)
from privcheck.core.resources import DEFAULT_MAX_HOURS, check_time, human_seconds

from ..mechanism.api import draws_only_from_its_generator
from ..mechanism.events import user_statistic
from ..mechanism.sampled import plan_sampling, planned_draws, sampled_audit
from ..options import DEFAULT_POLICY_SAMPLES, DEFAULT_SCREENING, Options
from ..report import AuditReport, Call, make_report
from ..rules import deciding
from .adapters import InteractiveMechanism, PolicyMechanism
from .summaries import FULL_SEQUENCE_ROUNDS
from .adversaries import adversaries
from .inputs import (
    PATH_RUNS,
    binary,
    check_inputs_fit,
    decision_pairs,
    extended_pairs,
    first_rows,
    reward_levels,
    search_pairs,
    search_tables,
    start_table,
)
from .interactive import MAX_INTERACTIVE_WORK, check_interactive_work, exact_interactive_figures, interactive_work
from .local import audit_local
from .tables import exact_policy_figures, inputs_and_pairs

__all__ = ["audit_policy", "check_releases", "Definition", "DEFINITIONS"]


class Definition(str, Enum):
    """Which neighbours a policy audit is about (Azize & Basu, §III): reward tables differing in a row (Table
    DP), observed reward lists differing in an entry (View DP), the adversary's queries (Interactive DP), or
    each user's report (local)."""

    TABLE = "table"
    VIEW = "view"
    INTERACTIVE = "interactive"
    LOCAL = "local"

    @classmethod
    def parse(cls, value) -> "Definition":
        try:
            return cls(value)
        except ValueError:
            raise InvalidArgument(f"definition={value!r} must be one of {', '.join(d.value for d in cls)}") from None


DEFINITIONS = tuple(d.value for d in Definition)


def audit_policy(
    policy,
    claim,
    definition: str,
    *,
    horizon: int | None = None,
    arms: int | None = None,
    channel=None,
    pairs=None,
    input=None,
    adversary=None,
    sequence_length: int | None = None,
    method: str = "auto",
    seed=None,
    name: str | None = None,
    instance: str | dict | None = None,
    samples: int | None = None,
    selection_samples: int | None = None,
    confidence: float = 0.95,
    candidates: int = 1,
    event=None,
    classifier: str = "auto",
    max_hours: float = DEFAULT_MAX_HOURS,
    workers: int | None = None,
    scheduler: str | None = None,
    scheduler_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    progress=None,
    screening: int = DEFAULT_SCREENING,
    stop_early: bool = False,
) -> AuditReport:
    """Audit a bandit policy against a privacy claim under ``definition`` (table, view, interactive or local).

    Parameters
    ----------
    policy : a :class:`~privcheck.core.protocols.Policy` (batched over runs), a factory of one, or a factory of
        one-object-per-run policies (``act(t)``, ``update(t, arm, reward)``: :mod:`privcheck.core.sequential`),
        which is given the ``n_arms``, ``horizon``, ``rng`` and claim parameters it declares.
    claim : the claim under test.
    definition : which neighbours the claim is about (:class:`Definition`).
    horizon : the rounds of each audited run (default: the policy's own ``horizon``).
    arms : the arms of a factory's instance (default 2; a policy object says its own ``n_arms``).
    channel : the feedback randomizer between the rewards and the policy (a finite one, with ``Q``), if any.
    pairs : the (x, x') reward tables (or lists) to audit; else the engines enumerate or search.
    input : the reward table (or list) whose neighbours a sampled audit searches (default: the policy's
        ``audit_table``, else zeros).
    adversary : an interactive audit's own adversary ``f(recommendations, t, n_arms) -> queried arms``.
    sequence_length : a local audit over sequences of this many rewards.
    method : ``auto``, ``exact`` or ``sample``.
    seed : reproduces the audit; generated and reported when None.
    name : what the report calls the policy; ``instance`` says which instance is audited and why: a note, or a
        dict with the note (``note``) and what the report's JSON carries as ``instance`` (a built-in's
        ``schedule`` — "published" or "shortened" —, ``horizon`` and ``options``).
    samples, selection_samples, confidence, candidates, event, classifier : the audit's options, the same as a
        mechanism audit's (:class:`~privcheck.audits.options.Options`); ``samples`` defaults to
        :data:`~privcheck.audits.options.DEFAULT_POLICY_SAMPLES` (every draw is a whole run); given fewer runs
        per side than the default ``screening``, each pair is screened on at most ``samples`` runs per side.
    max_hours, workers, scheduler, scheduler_timeout, progress, screening, stop_early : the rest of them.

    Notes
    -----
    A policy whose schedule makes no private release within the horizon (:func:`check_releases`) is refused as
    bad input: its actions cannot depend on the data there, so any claim would pass vacuously.
    """
    t0 = time.perf_counter()
    opts = Options(
        samples=samples,
        selection_samples=selection_samples,
        confidence=confidence,
        candidates=candidates,
        event=event,
        classifier=classifier,
        max_hours=max_hours,
        workers=workers,
        scheduler=scheduler,
        scheduler_timeout=scheduler_timeout,
        progress=progress,
        screening=screening,
        stop_early=stop_early,
    ).with_default_samples(DEFAULT_POLICY_SAMPLES)
    opts = replace(opts, sized=samples is None, selection_given=selection_samples)
    if samples is not None and screening == DEFAULT_SCREENING and opts.samples < screening:
        opts = replace(opts, screening=opts.samples)  # n runs per side asked for: no pair is screened on more
    seed = resolve_seed(seed)
    definition = Definition.parse(definition).value
    if method not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto, exact or sample")
    if name is None:
        name = policy.name if provides(policy, Named) else getattr(policy, "__name__", "policy")
    if policy is not None and not isinstance(policy, Policy):  # a factory: of a batched policy, or of runs
        policy = as_policy(policy, n_arms=2 if arms is None else arms, horizon=horizon, claim=claim, name=name)
    elif policy is not None and arms is not None and arms != policy.n_arms:
        raise InvalidArgument(f"arms={arms}: the policy has {policy.n_arms} arms")
    if adversary is not None and definition != "interactive":
        raise InvalidArgument('adversary= applies to definition="interactive"')
    if sequence_length is not None and definition != "local":
        raise InvalidArgument('sequence_length= applies to definition="local"')
    call = Call(
        "audit_policy",
        name,
        {
            "claim": claim,
            "definition": definition,
            "horizon": horizon,
            "arms": arms,
            "pairs": pairs,
            "input": input,
            "method": method,
            "seed": seed,
        },
        source=policy,
    )
    if definition == "local":
        if channel is None and provides(policy, UserReports):
            channel = policy.report_mechanism()
        report = audit_local(
            claim, channel, sequence_length, name=name, seed=seed, t0=t0, call=call, progress=opts.progress
        )
    else:
        horizon = _horizon(policy, horizon, name)
        call.arguments["horizon"] = horizon
        report = _audit_actions(
            policy, claim, definition, horizon, channel, pairs, input, adversary, method, seed, name, call, opts, t0
        )
    if not instance:
        return report
    if isinstance(instance, dict):
        said = {k: v for k, v in instance.items() if k != "note"}
        return replace(
            report, notes=(*report.notes, f"instance: {instance['note']}"), extra={**report.extra, "instance": said}
        )
    return replace(report, notes=(*report.notes, f"instance: {instance}"))


def check_releases(policy, horizon: int, name: str = "policy") -> None:
    """Refuse (bad input) an audit horizon within which ``policy`` makes no private release
    (:class:`~privcheck.core.protocols.ReleaseSchedule`)."""
    if horizon is None or not provides(policy, ReleaseSchedule):
        return
    t = policy.first_release()
    if t >= horizon:
        when = "never (a single action is played for ever)" if t == float("inf") else f"at the end of round {int(t):,}"
        knob = next(
            (k for k, hook in (("phase_scale", PhaseScale), ("width_scale", WidthScale)) if provides(policy, hook)),
            None,
        )
        shorten = f", or shorten its schedule ({knob}= below its {getattr(policy, knob):g})" if knob else ""
        raise InvalidArgument(
            f"vacuous: no private release within the horizon — {name} first releases {when}, "
            f"so its actions up to round {horizon} cannot depend on the data; audit a horizon "
            f"past it (horizon=){shorten}"
        )


def _horizon(policy, horizon, name) -> int:
    horizon = horizon or (policy.horizon if provides(policy, FixedHorizon) else None)
    if horizon is None:
        raise InvalidArgument("give horizon=")
    check_releases(policy, horizon, name)
    return horizon


def _audit_actions(
    policy, claim, definition, horizon, channel, pairs, input, adversary, method, seed, name, call, opts, t0
) -> AuditReport:
    """Table, View or Interactive DP: the outputs are action (recommendation) sequences."""
    relation = TableNeighbours() if definition != "view" else ViewNeighbours()
    claim = with_relation(claim, relation)
    if pairs is not None:
        for a, b in pairs:
            if not relation.contains(a, b):
                raise InvalidArgument(f"{a} and {b} are not neighbours under {relation.describe()}")
    if channel is not None and not provides(channel, FiniteChannel):
        raise InvalidArgument("the feedback channel must be a finite randomizer")
    if opts.event is not None and method == "exact":
        raise InvalidArgument("event= applies to the sampled method only")
    report = dict(target=name, claim=claim, seed=seed, t0=t0, definition=definition)
    if definition == "interactive":
        exact = method == "exact" or (
            method == "auto"
            and adversary is None
            and opts.event is None
            and _interactive_exact_feasible(policy, horizon, channel, pairs)
        )
        if exact:
            check_interactive_work(policy.n_arms, horizon, channel, None if pairs is None else 2 * len(pairs))
            inputs, idx_pairs = inputs_and_pairs("table", horizon, policy.n_arms, pairs)
            result = exact_interactive_figures(policy, claim, horizon, channel, inputs, idx_pairs, opts.progress)
            return make_report(result, method="exact", call=_said(call, "exact"), **report)
        return _audit_interactive(
            policy,
            claim,
            horizon,
            channel,
            pairs,
            input,
            adversary,
            seed,
            name,
            opts,
            _said(call, "sample", opts),
            report,
        )
    exact = method == "exact" or (
        method == "auto" and opts.event is None and _exact_feasible(policy, horizon) and binary(pairs)
    )
    if exact:
        result = exact_policy_figures(
            policy,
            claim,
            definition,
            channel=channel,
            pairs=pairs,
            horizon=horizon,
            progress=opts.progress,
            max_hours=opts.max_hours,
        )
        return make_report(result, method="exact", call=_said(call, "exact"), **report)
    mech = PolicyMechanism(policy, horizon, definition, channel, name)
    check_inputs_fit(policy, horizon, pairs, opts, mech.draw_bytes())
    shape = (horizon, policy.n_arms) if definition == "table" else (horizon,)
    start = start_table(policy, input, horizon) if definition == "table" else input
    cost = mech.cost()
    opts, sized = _sized(opts, cost)
    searching = pairs is None
    pairs, searched = _searched(mech, relation, pairs, start, shape, seed, _planned(mech, cost, opts, name), cost)
    searched = [*sized, *searched]
    if searching:
        _unneeded(opts, len(pairs))
    with opts.executor() as executor:
        result = sampled_audit(
            mech,
            claim,
            pairs,
            replace(opts, progress=part_of_plan(opts.progress)) if searching else opts,
            seed=seed,
            executor=executor,
            name=name,
            user_stat=user_statistic(opts.event),
            cost=cost,
            way_out="fewer samples, or a smaller horizon",
        )
    call, notes = _probed(mech, pairs, seed, _said(call, "sample", opts))
    notes = [*searched, *notes]
    return make_report(
        _in_rounds(result, mech),
        method="sample",
        call=call,
        **_sampled(opts),
        **report,
        notes=(f"{definition} DP: sampled over runs of the policy; {_outputs(mech)}", *notes),
    )


#: said when coupled runs never played differently on any pair tried
NO_DEPENDENCE = (
    "no input tried made the actions depend on the data: on {runs} coupled runs of each of the {pairs} pairs (the "
    "same randomness on x and on x'), the action sequences were identical, so the bound says nothing about this "
    "policy's privacy: give a reward table where its decisions are made, or a longer horizon"
)


#: coupled runs per candidate pair that rank the searched pairs; the pairs kept for screening, at most
COUPLED_RUNS, KEEP_PAIRS = 16, 8


#: when samples= is not given and the default would take longer, a policy's runs per side are sized to its measured
#: cost so that sampling them takes about this long (at least MIN_SIZED runs per side)
DEFAULT_POLICY_MINUTES, MIN_SIZED = 10.0, 2000


def _sized(opts: Options, cost, repeats: int = 1) -> tuple[Options, list]:
    """``opts`` with the runs per side sized to the policy's measured cost when the user gave no ``samples`` and
    the default plan would take more than :data:`DEFAULT_POLICY_MINUTES`, and the note that says so."""
    if not opts.sized:
        return opts, []

    def seconds(n: int) -> float:
        selection = n if opts.selection_given is None else opts.selection_given
        return repeats * cost.seconds * (planned_draws(KEEP_PAIRS, n, selection, opts.screening))

    budget = 60 * DEFAULT_POLICY_MINUTES
    full = opts.samples
    if seconds(full) <= budget:
        return opts, []
    lo, hi = MIN_SIZED, full
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if seconds(mid) <= budget else (lo, mid)
    n = lo
    selection = n if opts.selection_given is None else opts.selection_given
    note = (
        f"runs per side sized to the policy's measured cost: {n:,} (the default {full:,} would take about "
        f"{human_seconds(seconds(full))}; these about {human_seconds(seconds(n))}) — give samples= for more"
    )
    return replace(opts, samples=n, selection_samples=selection), [note]


def _planned(mech: PolicyMechanism, cost, opts: Options, name: str, repeats: int = 1):
    """Check, before the input search, that the sampling it leads to fits (memory, and time with the search's own),
    and announce the whole plan — the search's runs and the sampling's — to ``opts.progress``: a function of the
    search's run count that refuses a plan beyond ``opts.max_hours`` and returns the progress callable the search
    reports its runs to (the sampling that follows is part of the same plan)."""
    way_out = "fewer samples, or a smaller horizon"
    sampling = repeats * plan_sampling(
        cost,
        KEEP_PAIRS,
        opts.samples,
        opts.selection_samples,
        opts.workers or 1,
        f"sampling {opts.samples:,} runs per side of {name}",
        opts.max_hours,
        way_out,
        opts.screening,
    )

    def check(search_runs: int):
        seconds = sampling + search_runs * cost.seconds
        check_time(
            seconds,
            f"searching the inputs of {name} ({search_runs:,} runs of {mech.horizon:,} rounds) and sampling",
            "a smaller horizon, fewer samples, or the pairs to audit given (pairs=)",
            opts.max_hours,
        )
        draws = repeats * planned_draws(KEEP_PAIRS, opts.samples, opts.selection_samples, opts.screening)
        plan(opts.progress, search_runs + draws, " runs", seconds=seconds)
        return opts.progress

    return check


def _unneeded(opts: Options, n_pairs: int, repeats: int = 1) -> None:
    """Count as done the sampling planned (before the search, for :data:`KEEP_PAIRS` pairs) that the ``n_pairs``
    kept do not need: the plan announced is then exactly the work done."""
    if opts.progress:
        keep = planned_draws(KEEP_PAIRS, opts.samples, opts.selection_samples, opts.screening)
        opts.progress(repeats * (keep - planned_draws(n_pairs, opts.samples, opts.selection_samples, opts.screening)))


def _searched(mech: PolicyMechanism, relation, pairs, start, shape, seed: int, planned, cost) -> tuple[list, list]:
    """The pairs to audit and the notes that say how they were found.

    Given pairs are audited as given.  Otherwise the candidates are the pairs where the policy's decisions are
    made (:func:`~.inputs.decision_pairs`) and the neighbours of the start table; each is run on
    :data:`COUPLED_RUNS` coupled runs (the same randomness on x and on x'), and the :data:`KEEP_PAIRS` on which
    most runs play differently go on to the sampled engine (all of them when none does: the report then says that
    no input tried made the actions depend on the data).  When searching the whole horizon would take more than
    :data:`SEARCH_SHARE` of the default time budget, the search runs on the first rounds only
    (:func:`_search_horizon`) and the pairs it finds are extended to the horizon
    (:func:`~.inputs.extended_pairs`).  A search
    choice only: the pair reported is certified on fresh runs of the whole horizon."""
    if pairs is not None:
        pairs = search_pairs(relation, pairs, start, shape, seed)
        moved = mech.coupled_differences(pairs, seed, COUPLED_RUNS)
        return pairs, [] if any(moved) else [NO_DEPENDENCE.format(runs=COUPLED_RUNS, pairs=len(pairs))]
    T = mech.horizon
    probe = min(T, FULL_SEQUENCE_ROUNDS)  # how many neighbours the relation proposes, counted on a short table
    h = _search_horizon(
        mech, cost, shape, len(search_pairs(relation, None, first_rows(start, probe), (probe, *shape[1:]), seed))
    )
    searching = mech if h == T else mech._shortened(h)
    short = (h, *shape[1:])
    head = first_rows(start, h)
    near = search_pairs(relation, None, head, short, seed)
    tables = search_tables(short)
    most = tables * PATH_RUNS + (tables + len(near)) * 2 * COUPLED_RUNS  # the search's runs, at most
    total = math.ceil(most * h / T)
    progress = planned(total)
    counted = None if progress is None else _WholeRuns(progress, h / T, total)
    found, spent = decision_pairs(searching, short, seed, progress=counted, levels=reward_levels(start))
    candidates = found + near
    moved = searching.coupled_differences(candidates, seed, COUPLED_RUNS)
    if counted:  # the coupled runs, and the runs planned for the search and not needed
        counted.rest()
    order = sorted((i for i in range(len(candidates)) if moved[i]), key=lambda i: (-moved[i], i))[:KEEP_PAIRS]
    prefix = (
        ""
        if h == T
        else f" on the first {h:,} of the {T:,} rounds (searching them all would take more than "
        f"{SEARCH_SHARE:.0%} of {DEFAULT_POLICY_MINUTES:g} minutes; the pairs are extended to {T:,} rounds with "
        f"{'the rows of the start table' if start is not None else 'the last row of each pair'})"
    )
    notes = [
        f"input search{prefix}: {len(found)} pairs where the actions change along paths of neighbouring tables "
        f"(bisection on {PATH_RUNS} coupled runs per table, {spent:,} run-rounds) and {len(near)} neighbours of the "
        f"{'given' if start is not None else 'all-zero'} table; {len(order)} of them, those whose {COUPLED_RUNS} "
        "coupled runs played differently most often, screened"
    ]
    if not order:
        return extended_pairs(candidates, T, start), [
            *notes,
            NO_DEPENDENCE.format(runs=COUPLED_RUNS, pairs=len(candidates)),
        ]
    return extended_pairs([candidates[i] for i in order], T, start), notes


#: the share of :data:`DEFAULT_POLICY_MINUTES` the input search may take on the whole horizon; beyond it the search
#: runs on the first rounds only
SEARCH_SHARE = 0.25


def _search_horizon(mech: PolicyMechanism, cost, shape, n_near: int) -> int:
    """The rounds the input search runs: the whole horizon when its runs fit :data:`SEARCH_SHARE` of the default
    time budget at the measured cost, else the longest prefix (a power of two times the least) that fits — never
    fewer than :data:`~.summaries.FULL_SEQUENCE_ROUNDS` nor fewer than the policy's first release and one round per
    arm after it (its :class:`~privcheck.core.protocols.ReleaseSchedule`), so that its decisions are in it."""
    T, K = mech.horizon, mech.policy.n_arms
    first = mech.policy.first_release() if provides(mech.policy, ReleaseSchedule) else 0.0
    least = min(T, max(FULL_SEQUENCE_ROUNDS, int(first) + K if math.isfinite(first) else 0))
    per_round = cost.seconds / T

    def seconds(h: int) -> float:
        tables = search_tables((h, *shape[1:]))
        return (tables * PATH_RUNS + (tables + n_near) * 2 * COUPLED_RUNS) * h * per_round

    budget = SEARCH_SHARE * 60 * DEFAULT_POLICY_MINUTES
    if seconds(T) <= budget:
        return T
    h = least
    while 2 * h < T and seconds(2 * h) <= budget:
        h *= 2
    return h


class _WholeRuns:
    """A progress callable for runs of a prefix of the horizon, told to ``progress`` in runs of the whole horizon
    (``share`` of one each); :meth:`rest` reports the rest of the ``total`` planned."""

    def __init__(self, progress, share: float, total: int):
        self.progress, self.share, self.total, self.runs, self.told = progress, share, total, 0, 0

    def __call__(self, n: int) -> None:
        self.runs += n
        whole = min(int(self.runs * self.share), self.total) - self.told
        if whole > 0:
            self.told += whole
            self.progress(whole)

    def rest(self) -> None:
        self.progress(self.total - self.told)
        self.told = self.total


def _probed(mech: PolicyMechanism, pairs, seed: int, call: Call) -> tuple[Call, list]:
    """The call, withheld from reproduction (and said so) when the policy draws outside its generator."""
    notes = []
    if not draws_only_from_its_generator(mech, pairs[0][0], seed, mech.name, n=8):  # 8 runs, twice
        notes.append(
            "the policy draws randomness outside the generator it is given (two batches of runs with the same "
            "seed differed): the bounds assume its runs are independent, and this audit cannot be reproduced from "
            "its seed — draw only from the rng it is given"
        )
        call = replace(call, reproducible=False)
    return call, notes


def _outputs(mech: PolicyMechanism) -> str:
    """What the draws of a policy audit are, said in its notes."""
    if mech.summary is None:
        return "outputs are action sequences"  # (recommendations, in an interactive audit)
    return (
        f"outputs are summaries of the action sequences, reduced as the runs go (over {FULL_SEQUENCE_ROUNDS:,} "
        f"rounds: the actions at {len(mech.summary.rounds)} chosen rounds, each arm's pulls in {mech.summary.windows} "
        "windows and in all, its first and last rounds, the switches) — events on them are events on the sequences"
    )


def _in_rounds(result, mech: PolicyMechanism):
    """The result with its event said in rounds and arms (the engine's form kept beside it)."""
    text = mech.event_text(result.witness.get("event", {}))
    if text is None:
        return result
    return replace(result, witness={**result.witness, "event_text": f"{text} ({result.witness['event_text']})"})


def _said(call: Call, method: str, opts: Options | None = None) -> Call:
    """The call with the method that ran (and its sampling, when sampled)."""
    more = {} if opts is None else {"samples": opts.samples, "confidence": opts.confidence, "options": opts.said()}
    return replace(call, arguments={**call.arguments, "method": method, **more})


def _sampled(opts: Options) -> dict:
    return dict(
        samples_per_side=opts.samples,
        selection_samples_per_side=opts.selection_samples,
        confidence=opts.confidence,
    )


def _audit_interactive(
    policy, claim, horizon, channel, pairs, input, user_adversary, seed, name, opts, call, report
) -> AuditReport:
    """The sampled interactive audit: every adversary at its share of the failure probability."""
    table = PolicyMechanism(policy, horizon, "table", channel, name)
    check_inputs_fit(policy, horizon, pairs, opts, table.draw_bytes())
    start = start_table(policy, input, horizon)
    cost = table.cost()
    repeats = len(adversaries(policy.n_arms)) + (user_adversary is not None)
    opts, sized = _sized(opts, cost, repeats)
    planned = _planned(table, cost, opts, name, repeats=repeats)
    searching = pairs is None  # then the plan, search and sampling, is announced by the search
    pairs, searched = _searched(table, claim.relation, pairs, start, (horizon, policy.n_arms), seed, planned, cost)
    searched = [*sized, *searched]
    if searching:
        _unneeded(opts, len(pairs), repeats)
    advs = adversaries(policy.n_arms)
    if user_adversary is not None:
        advs[getattr(user_adversary, "__name__", "user")] = user_adversary
    n = opts.samples
    per = 1 - (1 - opts.confidence) / len(advs)  # the failure probability split over the adversaries
    epsilons = {}  # each adversary's certified ε
    with opts.executor() as executor:
        seconds = len(advs) * plan_sampling(
            cost,
            len(pairs),
            n,
            opts.selection_samples,
            executor.workers,
            f"sampling {n:,} runs per side of {name} against {len(advs)} adversaries",
            opts.max_hours / len(advs),
            "fewer samples, or a smaller horizon",
            opts.screening,
        )
        if not searching:
            plan(
                opts.progress,
                len(advs) * planned_draws(len(pairs), n, opts.selection_samples, opts.screening),
                seconds=seconds,
            )
        each = replace(opts, confidence=per, progress=part_of_plan(opts.progress))
        key = lambda r: deciding(claim, r.figures)[0][0].lo  # noqa: E731
        worst, res, bound = None, None, -math.inf
        for i, (aname, adv) in enumerate(advs.items()):
            mech = InteractiveMechanism(policy, horizon, adv, channel, name)
            r = sampled_audit(
                mech,
                claim,
                pairs,
                each,
                seed=seed + i,
                executor=executor,
                name=name,
                user_stat=user_statistic(opts.event),
            )
            # only the worst adversary's result is kept whole: its witness holds the pair, two tables of T × K
            epsilons[aname] = r.figures.epsilon.lo
            if worst is None or key(r) > bound:
                worst, res, bound = aname, r, key(r)
    witness = dict(_in_rounds(res, table).witness, adversary=worst)
    witness["event_text"] = f"{witness['event_text']} (adversary: {worst})"
    # the report's figures are the worst adversary's; the verdict is refuted if any adversary's is (each was
    # certified at its share of the failure probability, so all hold at once with the stated confidence)
    result = replace(res, witness=witness)
    call, notes = _probed(table, pairs, seed, call)
    notes = [*searched, *notes]
    return make_report(
        result,
        method="sample",
        call=call,
        **_sampled(opts),
        **report,
        notes=(
            f"interactive DP: {len(advs)} adversaries ({', '.join(advs)}), each certified at confidence "
            f"{per:.6g}; the largest bound is reported; {_outputs(table)}",
            *notes,
        ),
        extra={"per_adversary_epsilon_lower": epsilons},
    )


def _interactive_exact_feasible(policy, horizon, channel, pairs) -> bool:
    if not provides(policy, Enumerable) or update_uniforms(policy) or not binary(pairs):
        return False
    n_inputs = None if pairs is None else 2 * len(pairs)
    return interactive_work(policy.n_arms, horizon, channel, n_inputs) <= math.log2(MAX_INTERACTIVE_WORK)


def _exact_feasible(policy, horizon) -> bool:
    if is_decision_rules(policy):
        return horizon <= 8
    return provides(policy, Enumerable) and horizon <= 5
