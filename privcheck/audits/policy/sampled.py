"""The sampled engines of a policy audit: Table or View DP over runs of the policy, and Interactive DP against
each adversary (:mod:`.adversaries`, and the user's own), the failure probability split over them.

A policy is audited as a mechanism whose draws are independent runs (:class:`~.adapters.PolicyMechanism`): the
plan is made first (:mod:`.plan`), then the input search (:func:`~.inputs.searched`), then the reproducibility
probe, then the sampled mechanism engine (pair screening, event selection, Clopper–Pearson certification on fresh
runs).  A lower bound never certifies privacy.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from privcheck.core.execution import part_of_plan, plan
from privcheck.core.protocols import contexts_of

from ..mechanism.api import probe
from ..mechanism.sampled import sampled_audit
from ..sampling import planned_draws
from ..options import DEFAULT_SCREENING, Options
from ..report import AuditReport, Call, Sampled, make_report
from ..rules import deciding
from ..stats import confidence_text
from ..verdict import Verdict, decide
from .adapters import InteractiveMechanism, PolicyMechanism
from .adversaries import adversaries
from .inputs import check_inputs_fit, reward_levels
from ..sampling import sampling_time
from .plan import planned, replanned, sized
from ..stages import pinned, run_stages, staged_said, stages_of
from .summaries import FULL_SEQUENCE_ROUNDS

__all__ = ["audit_sampled", "audit_interactive", "said"]


def audit_sampled(a) -> AuditReport:
    """The audit ``a`` (:class:`~.resolved.PolicyAudit`) sampled over runs of its policy, as its relation says:
    the runs sized and the whole plan checked, the input search (unless pairs are given), the reproducibility
    probe, then the sampled mechanism engine — against each of the relation's adversaries (joint DP: who chooses the
    other users' contexts, :func:`~.joint.joint_adversaries`), the failure probability split over them and the
    largest bound reported."""
    policy, relation, opts = a.policy, a.relation, a.opts
    mech = relation.mechanism(policy, a.horizon, a.channel, a.name, releases=a.releases)
    check_inputs_fit(policy, a.horizon, a.pairs, opts, mech.draw_bytes())
    start = relation.start(policy, a.input, a.horizon, a.reward_range)
    levels = reward_levels(start)  # the rewards the search moves between (said in a contextual audit's notes)
    advs = relation.adversaries()
    stage, at, (worst, result, epsilons), notes, call, staged = _staged(
        a,
        mech,
        mech,
        advs,
        lambda adv: mech if adv is None else relation.mechanism(policy, a.horizon, a.channel, a.name, adv, a.releases),
        _Where(start, relation.input_shape(a.horizon, policy.n_arms), mech.cost()),
        relation.searches(),
    )
    extra = {"stage": stage} if staged else {}
    if len(advs) > 1:
        result = _as_the_worst(result, worst, mech, 1 - (1 - at.confidence) / len(advs), at.confidence)
        extra["per_adversary_epsilon_lower"] = epsilons
    else:
        result = _in_rounds(result, mech)
    return make_report(
        staged_said(result, at, opts, stage),
        method="sample",
        call=call,
        sampled=Sampled(at.samples, at.selection_samples, opts.confidence),
        **a.report(),
        notes=(
            f"{relation.name} DP: sampled over runs of the policy; {_outputs(mech)}",
            *relation.notes(policy, levels),
            *notes,
        ),
        **({"extra": extra} if extra else {}),
    )


class _Where(NamedTuple):
    """Where the input search starts: the start input, the inputs' shape, and a run's cost."""

    start: object
    shape: tuple
    cost: object


def _staged(a, mech, travels, advs: dict, mechanism_of, where: _Where, searches):
    """What both sampled engines do once their mechanism ``mech`` and adversaries ``advs`` are known (``travels``:
    what the executor's processes are sent): in one executor for the whole audit — its workers are what the runs are
    sized to and the plan's time is announced for, and its processes, when it starts them, start once for every
    stage — the runs sized to the policy's cost (:func:`~.plan.sized`), the plan checked and the input search run
    (``searches``: the search and its size; :func:`_searches`), the stages pinned, the reproducibility probe, then
    the stages (:func:`~..stages.run_stages`), each sampling every adversary's mechanism, ``mechanism_of(adv)``, at
    its share of the failure probability (:func:`_against_each`).  Returns (the stage that ended the audit, its
    options, (worst adversary, its result, each one's ε), the notes, the call said, whether the audit was
    staged)."""
    search, size = searches
    claim, pairs, seed, opts, cost = a.claim, a.pairs, a.seed, a.opts, where.cost
    repeats, searching = len(advs), pairs is None
    with opts.executor() as executor:
        executor.check(travels)  # (a policy that cannot travel to a process runs here: one worker)
        workers = executor.workers
        searching_seconds = _search_seconds(size, mech, a, where, opts)
        opts, sized_notes = sized(opts, cost, workers, repeats, pairs, searching_seconds)
        pairs_of = _searches(search, size, mech, a.but(opts=opts), where, repeats, executor)
        n_pairs = len(pairs_of(None)[0])
        work = sampling_time(opts, cost, n_pairs, 1, repeats)  # (on one worker: it chooses the stages)
        opts = pinned(opts, work)  # (the stages the estimate chose, said in the call)
        call, probe_notes, probed = _probed(mech, pairs_of(None)[0], seed, said(a.call, "sample", opts))

        ran = set()  # the stages run: a middle stage's plan replaces the sampling's the full search announced

        def engine(o: Options, s: int, stage: str):
            stage_pairs = pairs_of(stage)[0]
            said = searching and "middle" not in ran  # the full stage's runs said by the search, nothing since
            ran.add(stage)
            seconds = sampling_time(o, cost, len(stage_pairs), workers, repeats)
            progress = _announced(o, stage, stage_pairs, repeats, said, seconds)
            each = replace(o, confidence=1 - (1 - o.confidence) / repeats, progress=progress)  # split over them
            return _against_each(advs, mechanism_of, claim, stage_pairs, each, s, executor, a.name, probed, keep)

        keep = [n for n, adv in advs.items() if adv is not None and adv is a.adversary]  # (the user's: always sampled)
        stage, at, out, stage_note = run_stages(claim, opts, seed, engine, work)
    notes = [
        *sized_notes,
        *pairs_of(stage)[1],
        *probe_notes,
        *([stage_note] if stage_note else []),
        *_unsampled(advs, out),
    ]
    return stage, at, out, notes, call, stage_note is not None


def audit_interactive(a) -> AuditReport:
    """The sampled interactive audit of ``a`` (:class:`~.resolved.PolicyAudit`): every adversary at its share of
    the failure probability."""
    policy, relation, opts = a.policy, a.relation, a.opts
    table = relation.mechanism(policy, a.horizon, a.channel, a.name)
    check_inputs_fit(policy, a.horizon, a.pairs, opts, table.draw_bytes())
    start = relation.start(policy, a.input, a.horizon, a.reward_range)
    advs = with_yours(adversaries(policy.n_arms, contexts_of(policy) is not None), a.adversary)
    stage, at, (worst, res, epsilons), notes, call, staged = _staged(
        a,
        table,
        (table, a.adversary),  # (what travels: the policy and the user's adversary)
        advs,
        lambda adv: InteractiveMechanism(policy, a.horizon, relation, adv, a.channel, a.name),
        _Where(start, relation.input_shape(a.horizon, policy.n_arms), table.cost()),
        relation.searches(),
    )
    result = _as_the_worst(res, worst, table, 1 - (1 - at.confidence) / len(advs), at.confidence)
    return make_report(
        staged_said(result, at, opts, stage),
        method="sample",
        call=call,
        sampled=Sampled(at.samples, at.selection_samples, opts.confidence),
        **a.report(),
        notes=(
            f"interactive DP: {len(advs)} adversaries ({', '.join(advs)}), the failure probability "
            f"{1 - opts.confidence:.3g} split equally over them, so that every bound holds at once at the stated "
            f"confidence; the largest bound is reported; {_outputs(table)}",
            *notes,
        ),
        extra={"per_adversary_epsilon_lower": epsilons, **({"stage": stage} if staged else {})},
    )


def with_yours(advs: dict, adversary) -> dict:
    """The built-in ``advs`` and the user's ``adversary`` (None: none) under its own name — its function's, or its
    class's for a callable object — said "(yours)" where that is a built-in's: keyed by a built-in's name, it
    replaced the built-in, so that an audit against an adversary of the user's named ``identity`` ran no identity
    adversary at all."""
    if adversary is None:
        return advs
    name = getattr(adversary, "__name__", None) or type(adversary).__name__
    return {**advs, name if name not in advs else f"{name} (yours)": adversary}


#: the quick stage's input search runs at this fraction of the search's budget (4 runs per table of a path and 2
#: coupled runs per pair at the default: what finds a deterministic leak), before the full search, which runs only
#: when the quick stage did not refute
QUICK_SEARCH = 16


def _announced(o: Options, stage: str, pairs, repeats: int, said: bool, seconds: float):
    """The progress a stage's sampled audits count their runs to (their own plans not passed on), the stage's runs
    announced first — an earlier stage's without a time (its options' progress is untimed:
    :func:`~..stages.stages_of`), the full stage's with the sampling's estimated ``seconds`` — unless they were
    ``said`` last: by the search, which announces the sampling of the pairs it kept (:func:`_searches`), when no
    middle stage has counted its runs to a plan of its own since."""
    if not (said and stage in ("full", "whole")):
        runs = repeats * planned_draws(len(pairs), o.samples, o.selection_samples, o.screening, o.screening_round)
        plan(o.progress, runs, " runs", seconds=seconds if stage in ("full", "whole") else None)
    return part_of_plan(o.progress)


def _search_seconds(size, mech, a, where: _Where, opts: Options) -> float:
    """The seconds the input search takes at most (``size`` counts its runs, at the budget of the options before
    the runs are sized: an upper figure), 0 when the pairs are given: the share of a ceiling the sizing leaves it."""
    if a.pairs is not None:
        return 0.0
    runs = size(mech, a.claim.relation, where.start, where.shape, a.seed, where.cost, _search_budget(opts))
    return where.cost.seconds * runs


def _searches(search, size, mech, a, where: _Where, repeats: int, executor):
    """The pairs each stage samples, and the notes that say how they were found: ``pairs_of(stage)`` — (pairs,
    notes), each search run once, when first asked for.

    Given pairs are every stage's.  An audit that searches and is staged (:func:`~..stages.stages_of`) runs a quick
    search first (the search at 1/:data:`QUICK_SEARCH` of its budget, silent) whose pairs the quick stage samples
    (``stage`` None: the pairs known first — the quick search's, which the probe and the stages' estimate read); the
    full search runs only for a later stage.  The whole plan — the full search and the sampling, as ``size`` counts
    the search's runs — is checked against ``max_hours`` and announced before any run (:func:`~.plan.planned`), and
    again when the full search begins (an earlier stage counts its runs to a plan of its own: :func:`_announced`); the
    sampling again once the full search has kept its pairs (:func:`~.plan.replanned`).  A search choice only: every
    pair is certified on fresh runs.  The searches' paths run on the audit's ``executor``."""
    opts, pairs, seed, relation, name = a.opts, a.pairs, a.seed, a.claim.relation, a.name
    start, shape, cost = where
    budget, workers = _search_budget(opts), executor.workers
    announce = planned(mech, cost, opts, name, workers, repeats=repeats, pairs=pairs)
    staged = pairs is None and stages_of(opts)[0][0] != "whole"
    if staged:  # the whole plan checked and announced before any run; announced again by the full search (the
        announce(size(mech, relation, start, shape, seed, cost, budget))  # earlier stages count plans of their own)
    found = {}

    def full():
        if "full" not in found:
            found["full"] = search(mech, relation, pairs, start, shape, seed, announce, cost, budget, executor)
            if pairs is None:
                replanned(opts, len(found["full"][0]), cost, workers, repeats)
        return found["full"]

    if not staged:
        return lambda stage: full()
    quick_budget = max(1, budget // QUICK_SEARCH)
    quick_pairs, quick_notes = search(
        mech, relation, None, start, shape, seed, lambda total: None, cost, quick_budget, executor
    )
    quick = quick_pairs, [f"the quick stage's {n}" if n.startswith("input search") else n for n in quick_notes]
    return lambda stage: quick if stage in (None, "quick") else full()


def _against_each(
    advs: dict, mechanism, claim, pairs, each: Options, seed: int, executor, name: str, like=None, keep=()
):
    """Each adversary's sampled audit in turn — ``mechanism(adversary)`` its mechanism, ``each`` its options (its
    share of the failure probability), seed + i the i-th's — as (the worst adversary's name, its result, each
    sampled one's certified ε).  Only the worst result is kept whole: its witness holds the pair, two inputs of
    T × K or more.  ``like``: the probe's runs (:func:`~..mechanism.sampled.sampled_audit`'s).

    The first adversary whose audit refutes the claim ends the turn of the others (not with ``full_budget``; the
    adversaries named in ``keep`` — the user's own — are sampled whatever came before), as a refuting stage ends
    the stages: its bound holds at its own share of the failure probability, the others' shares are left unspent,
    and a policy's refutation ends its audit whatever its size (:data:`~..stages.POLICY`).  Measured on the
    half-noise LinUCB of examples/linucb_releases.py, the second adversary was two fifths of the audit's time after
    the first had refuted (:func:`_unsampled` says which were not sampled)."""
    key = lambda r: deciding(claim, r.figures)[0][0].lo  # noqa: E731
    worst, result, bound, epsilons, ended = None, None, -math.inf, {}, False
    for i, (aname, adv) in enumerate(advs.items()):
        if ended and aname not in keep:
            continue
        r = sampled_audit(
            mechanism(adv),
            claim,
            pairs,
            each,
            seed=seed + i,
            executor=executor,
            name=name,
            like=like,
        )
        epsilons[aname] = r.figures.epsilon.lo
        if result is None or key(r) > bound:
            worst, result, bound = aname, r, key(r)
        ended = ended or (not each.full_budget and decide(claim, r.figures) is Verdict.REFUTED)
    return worst, result, epsilons


def _unsampled(advs: dict, out) -> list:
    """The note that says which adversaries :func:`_against_each` left unsampled, after which one refuted (none
    when every one was sampled)."""
    epsilons = out[2]
    left = [n for n in advs if n not in epsilons]
    if not left:
        return []
    names = list(advs)
    ended = names[names.index(left[0]) - 1]  # (the skipping begins right after the refuting one)
    return [
        f"adversaries sampled in turn until one refuted the claim: {ended} did, so {', '.join(left)} "
        f"{'was' if len(left) == 1 else 'were'} not sampled (their share of the failure probability left unspent; "
        "full_budget=True samples every adversary, for the largest bound)"
    ]


def _as_the_worst(res, worst: str, table, per: float, confidence: float):
    """The worst adversary's result as the report's: its witness said in rounds and arms and naming the adversary,
    its certification said at the audit's one confidence (the verdict is refuted if any adversary's is: each was
    certified at its share of the failure probability, so all hold at once at the stated confidence)."""
    witness = dict(_in_rounds(res, table).witness, adversary=worst)
    witness["event_text"] = f"{witness['event_text']} (adversary: {worst})"
    said = res.figures.certification.replace(
        f"confidence {confidence_text(per)}", f"confidence {confidence_text(confidence)}, split over the adversaries"
    )
    return replace(res, witness=witness, figures=replace(res.figures, certification=said))


def _search_budget(opts: Options) -> int:
    """The screening the input search's runs scale with: the user's (screening=); else, when the runs were sized to a
    slow policy's cost, the screening sized with them; else the default."""
    if opts.screening_given is not None:
        return opts.screening_given
    return opts.screening if opts.sized else DEFAULT_SCREENING


def _probed(mech: PolicyMechanism, pairs, seed: int, call: Call) -> tuple[Call, list, np.ndarray]:
    """The call, withheld from reproduction (and said so) when the policy draws outside its generator; the notes
    that say so; the probe's runs."""
    notes = []
    probed, reproducible = probe(mech, pairs[0][0], seed, mech.name, n=8)  # 8 runs, twice
    if not reproducible:
        notes.append(
            "the policy draws randomness outside the generator it is given (two batches of runs with the same "
            "seed differed): the bounds assume its runs are independent, and this audit cannot be reproduced from "
            "its seed — draw only from the rng it is given"
        )
        call = replace(call, reproducible=False)
    return call, notes, probed


def _outputs(mech: PolicyMechanism) -> str:
    """What the draws of a policy audit are, said in its notes."""
    if mech.releases:
        return (
            f"outputs are what the policy publishes, not its actions: {', '.join(mech.releases)}, read after every "
            f"round's update ({mech.release_width} values a round, over the {mech.horizon} rounds; a round before the "
            "first release reads zeros) — the releases view"
        )
    if mech.summary is None:
        return "outputs are action sequences"  # (recommendations, in an interactive audit)
    return (
        f"outputs are summaries of the action sequences, reduced as the runs go (over {FULL_SEQUENCE_ROUNDS:,} "
        f"rounds: the actions at {len(mech.summary.rounds)} chosen rounds, each arm's pulls in {mech.summary.windows} "
        "windows and in all, its first and last rounds, its longest stretch in a row, the switches) — events on them "
        "are events on the sequences"
    )


def _in_rounds(result, mech: PolicyMechanism):
    """The result with its event said in rounds and arms (the engine's form kept beside it)."""
    text = None if result.event is None else mech.event_text(result.event)
    if text is None:
        return result
    return replace(result, witness={**result.witness, "event_text": f"{text} ({result.witness['event_text']})"})


def said(call: Call, method: str, opts: Options | None = None) -> Call:
    """The call with the method that ran (and its sampling, when sampled)."""
    more = {} if opts is None else {"samples": opts.samples, "confidence": opts.confidence, "options": opts.said()}
    return replace(call, arguments={**call.arguments, "method": method, **more})
