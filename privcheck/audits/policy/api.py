"""``audit_policy``: the entry point of a bandit-policy audit (behind :func:`privcheck.audit_policy` and
``privcheck audit`` on a policy).

* ``table`` / ``view`` (exact): every neighbour pair of binary reward tables (one row replaced) or reward lists
  (one entry replaced) is enumerated (:mod:`.tables`); the output is the action sequence.
* ``table`` / ``view`` (sampled): :class:`~.adapters.PolicyMechanism` makes "run the policy on this input" a
  mechanism whose draws are independent runs, and the sampled mechanism engine certifies a lower bound: pair
  search among neighbours of a start table (:mod:`.inputs`), events over the action sequence (pulls of each arm,
  the first round each arm is played, its longest stretch of rounds in a row, the number of switches, the action at
  a step, the whole sequence as a category when few occur, the mean-difference projection where the sides' means
  differ beyond label shuffles), Clopper–Pearson certification on fresh runs.
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

import numpy as np

from privcheck.core import (
    InvalidArgument,
    JointNeighbours,
    TableNeighbours,
    ViewNeighbours,
    check_int,
    resolve_seed,
    with_relation,
)
from privcheck.core.sequential import as_policy
from privcheck.core.protocols import (
    Adapted,
    Enumerable,
    RandomnessWarning,
    FiniteChannel,
    FixedHorizon,
    Named,
    PhaseScale,
    ReleaseSchedule,
    RewardDomain,
    WidthScale,
    Policy,
    UserReports,
    is_decision_rules,
    provides,
    update_uniforms,
)

from ..options import DEFAULT_POLICY_SAMPLES, Options, takes_options
from ..report import AuditReport, Call, make_report
from ..rules import needs
from .inputs import binary
from .joint import check_joint_pairs, with_table_contexts
from .interactive import MAX_INTERACTIVE_WORK, check_interactive_work, exact_interactive_figures, interactive_work
from .local import audit_local
from .plan import screened_on
from .reports import reports_of
from .sampled import audit_interactive, audit_sampled, said
from .tables import exact_policy_figures, inputs_and_pairs

__all__ = ["audit_policy", "check_releases", "Definition", "DEFINITIONS"]


class Definition(str, Enum):
    """Which neighbours a policy audit is about (Azize & Basu, §III): reward tables differing in a row (Table
    DP), observed reward lists differing in an entry (View DP), the adversary's queries (Interactive DP),
    each user's report (local), or — for a contextual policy — one user's context and rewards, their own action
    left out (joint DP, :mod:`.joint`)."""

    TABLE = "table"
    VIEW = "view"
    INTERACTIVE = "interactive"
    LOCAL = "local"
    JOINT = "joint"

    @classmethod
    def parse(cls, value) -> "Definition":
        try:
            return cls(value)
        except ValueError:
            raise InvalidArgument(f"definition={value!r} must be one of {', '.join(d.value for d in cls)}") from None


DEFINITIONS = tuple(d.value for d in Definition)


@takes_options
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
    factory_args: dict | None = None,
    dim: int | None = None,
    contexts=None,
    context_bound: float | None = None,
    reward_range=None,
    **options,
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
    factory_args : a factory's own parameters by name (``{"window": 50}``), beside those privcheck gives it.
    dim, contexts : a contextual policy's (``act(t, contexts)``) public contexts, ``horizon × arms × dim``, or their
        dimension when privcheck draws them on the unit sphere (default 2); the neighbours then differ in one round's
        rewards, the contexts public (under ``joint``, one user's context and rewards, their own action left out).
    context_bound : the norm bound L of the contexts (default 1): given contexts are checked against it, drawn ones
        lie on its sphere, and a factory may declare it (``context_bound``).
    reward_range : (lo, hi), the rewards the claim is about when not [0, 1] (e.g. (-1, 1)): the search moves
        rewards between them, given tables are checked against them, the sampled engines are used.
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

    Other Parameters
    ----------------
    {options}

    Notes
    -----
    Given the runs per side (``samples=``) and not ``screening=``, each candidate pair is screened on a quarter of
    them (at least 100, all of them when fewer; at most the default), as the pairs of an audit whose runs were sized
    are.  A policy whose schedule makes no private release within the horizon (:func:`check_releases`) is refused as
    bad input: its actions cannot depend on the data there, so any claim would pass vacuously.
    """
    t0 = time.perf_counter()
    opts = Options(**options).with_default_samples(DEFAULT_POLICY_SAMPLES)
    given = options.get("samples")
    opts = replace(
        opts,
        sized=given is None,
        selection_given=options.get("selection_samples"),
        screening_given=options.get("screening"),
    )
    if given is not None and opts.screening_given is None:  # n runs per side asked for: pairs screened on a quarter
        opts = replace(opts, screening=screened_on(opts.samples, opts.screening), screening_derived=True)
    seed = resolve_seed(seed)
    definition = Definition.parse(definition).value
    input, pairs, contexts = with_table_contexts(input, pairs, definition, contexts)
    if method not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto, exact or sample")
    horizon, arms = _check_arguments(policy, claim, horizon, arms, pairs, input, sequence_length, definition, channel)
    if name is None:
        name = policy.name if provides(policy, Named) else getattr(policy, "__name__", "policy")
    if policy is not None and not isinstance(policy, Policy):  # a factory: of a batched policy, or of runs
        policy = as_policy(
            policy,
            n_arms=2 if arms is None else arms,
            horizon=horizon,
            claim=claim,
            name=name,
            factory_args=factory_args,
            dim=None if dim is None else check_int("dim", dim),
            contexts=contexts,
            context_bound=context_bound,
        )
    elif policy is not None and arms is not None and arms != policy.n_arms:
        raise InvalidArgument(f"arms={arms}: the policy has {policy.n_arms} arms")
    elif policy is not None and contexts is not None:
        own = getattr(policy, "contexts", None)
        if own is None or not np.array_equal(np.asarray(contexts, dtype=float), own, equal_nan=True):
            raise InvalidArgument(
                "contexts= (or a contextual table's) must be those the policy object was made with: give a factory, "
                "and privcheck makes the policy on them"
            )
    reward_range = _check_reward_range(reward_range, pairs, input, definition, policy)
    if definition == "joint" and getattr(policy, "contexts", None) is None:
        raise InvalidArgument(
            f'definition="joint" applies to a contextual policy (act(t, contexts)); {name}\'s actions read no '
            "contexts, and for it joint DP is Table DP (the round's own action never reads that round's rewards): "
            'audit definition="table"'
        )
    if context_bound is not None and getattr(policy, "contexts", None) is None:
        raise InvalidArgument(f"context_bound= applies to a contextual policy (act(t, contexts)); {name}'s reads none")
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
            **({"factory_args": factory_args} if factory_args else {}),
            **{k: v for k, v in (("dim", dim), ("context_bound", context_bound)) if v is not None},
            **({"contexts": np.asarray(contexts, dtype=float).tolist()} if contexts is not None else {}),
            "pairs": pairs,
            "input": input,
            "method": method,
            "seed": seed,
            **({"reward_range": list(reward_range)} if reward_range is not None else {}),
        },
        source=policy,
    )
    if definition == "local":
        if channel is None and provides(policy, UserReports):
            channel = policy.report_mechanism()
        elif channel is None:
            channel = reports_of(policy)  # a contextual run's report(contexts, reward), if it has one
        report = audit_local(
            claim,
            channel,
            sequence_length,
            name=name,
            seed=seed,
            t0=t0,
            call=call,
            opts=opts,
            reward_range=reward_range,
        )
    else:
        horizon = _horizon(policy, horizon, name, definition)
        call.arguments["horizon"] = horizon
        report = _audit_actions(
            policy,
            claim,
            definition,
            horizon,
            channel,
            pairs,
            input,
            adversary,
            method,
            seed,
            name,
            call,
            opts,
            t0,
            reward_range,
        )
    warned = [policy.adapter_note if provides(policy, Adapted) else None]
    warned.append(policy.randomness_warning if provides(policy, RandomnessWarning) else None)
    if any(warned):
        report = replace(report, notes=(*report.notes, *filter(None, warned)))
    if not instance:
        return report
    if isinstance(instance, dict):
        kept = {k: v for k, v in instance.items() if k != "note"}
        return replace(
            report, notes=(*report.notes, f"instance: {instance['note']}"), extra={**report.extra, "instance": kept}
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


def _horizon(policy, horizon, name, definition) -> int:
    horizon = horizon or (policy.horizon if provides(policy, FixedHorizon) else None)
    if horizon is None:
        raise InvalidArgument("give horizon=")
    if horizon < 2:
        raise InvalidArgument(
            f"vacuous: horizon={horizon} — the only action is chosen before any reward is seen, so no action can "
            f"depend on the data under {definition} DP; audit a horizon of at least 2"
        )
    check_releases(policy, horizon, name)
    return horizon


def _check_arguments(policy, claim, horizon, arms, pairs, input, sequence_length, definition, channel):
    """Refuse, naming the argument, what the audit cannot run on: (horizon, arms) as integers (None: not given).
    A local audit of a feedback channel alone needs no policy."""
    alone = policy is None and definition == "local" and channel is not None
    if not alone and (policy is None or not (isinstance(policy, Policy) or callable(policy))):
        raise InvalidArgument(
            f"policy={policy!r} must be a policy, a factory of one, or a factory of one object per run (act, update)"
        )
    if claim is None:
        raise InvalidArgument("claim=None: give the claim under test, e.g. PureDP(1.0)")
    needs(claim)  # refuses anything that is not a privcheck claim, naming claim=
    horizon = None if horizon is None else check_int("horizon", horizon, lower=1)
    arms = None if arms is None else check_int("arms", arms, lower=2)
    if sequence_length is not None:
        check_int("sequence_length", sequence_length, lower=1)
    if pairs is not None:
        try:
            if isinstance(pairs, (str, bytes)):
                raise TypeError
            pairs = list(pairs)
        except TypeError:
            raise InvalidArgument(f"pairs={pairs!r} must be a list of (x, x') pairs") from None
        if not pairs:
            raise InvalidArgument("pairs=[] must hold at least one (x, x') pair")
        for pair in pairs:
            if isinstance(pair, (str, bytes)) or len(pair) != 2:
                raise InvalidArgument(f"pairs= must hold (x, x') pairs, not {pair!r}")
            for side in pair:
                _check_rewards("pairs", side, joint=definition == "joint")
    if input is not None:
        _check_rewards("input", input)
    return horizon, arms


def _check_reward_range(reward_range, pairs, input, definition, policy=None):
    """(lo, hi) with lo < hi finite (None: [0, 1], the default), every given reward within it — the default range
    too (or the policy's own domain, :class:`~privcheck.core.protocols.RewardDomain`): a reward outside the range
    the claim is about is not one of its inputs, and is refused before any run."""
    lo, hi = policy.reward_domain if provides(policy, RewardDomain) else (0.0, 1.0)
    if reward_range is not None:
        try:
            lo, hi = (float(v) for v in reward_range)
        except (TypeError, ValueError):
            raise InvalidArgument(f"reward_range={reward_range!r} must be two numbers (lo, hi)") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise InvalidArgument(f"reward_range={reward_range!r} must be two finite numbers lo < hi")
    given = [("input", input)] if input is not None else []
    given += [("pairs", side) for pair in (pairs or []) for side in pair]
    for what, x in given:
        r = np.asarray(x, dtype=float)
        r = r[..., 0] if definition == "joint" and r.ndim == 3 else r
        if r.size and (r.min() < lo or r.max() > hi):
            bad = r[(r < lo) | (r > hi)].flat[0]
            said = (
                f"reward_range=({lo:g}, {hi:g})"
                if reward_range is not None
                else f"[{lo:g}, {hi:g}], the default reward_range"
            )
            raise InvalidArgument(
                f"{what}= holds the reward {bad:g}, outside {said}: the claim is about rewards in that range"
                + ("" if reward_range is not None else "; give reward_range= if your rewards lie elsewhere")
            )
    return None if reward_range is None or (lo, hi) == (0.0, 1.0) else (lo, hi)


def _check_rewards(name: str, rewards, joint: bool = False) -> None:
    """A reward table (or list; under joint DP a joint input, T × K × (2 + dim)) of finite numbers, or an
    :class:`InvalidArgument` naming ``name=``."""
    try:
        values = np.asarray(rewards, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{name}= must hold reward tables (or lists) of numbers, not {rewards!r}") from None
    if joint:
        if values.ndim != 3 or values.shape[2] < 3 or not np.isfinite(values).all():
            raise InvalidArgument(
                f"{name}= must hold joint inputs, T × K × (2 + dim) finite numbers (per round and arm: the reward, the "
                f"mark of the audited user's round, the arm's context), not shape {values.shape}"
            )
        return
    if values.ndim not in (1, 2) or values.size == 0:
        raise InvalidArgument(f"{name}= must hold reward tables (T × K) or lists (T), not shape {values.shape}")
    if not np.isfinite(values).all():
        raise InvalidArgument(f"{name}= holds a reward that is NaN or infinite")


def _audit_actions(
    policy, claim, definition, horizon, channel, pairs, input, adversary, method, seed, name, call, opts, t0, rr=None
) -> AuditReport:
    """Table, View, Interactive or joint DP: the outputs are action (recommendation) sequences; ``rr`` the reward
    range, when not [0, 1] (the sampled engines only)."""
    relation = {"view": ViewNeighbours(), "joint": JointNeighbours()}.get(definition, TableNeighbours())
    claim = with_relation(claim, relation)
    if pairs is not None:
        for i, (a, b) in enumerate(pairs):
            if not relation.contains(a, b):
                raise InvalidArgument(
                    f"pairs=: pair {i + 1}'s sides are not neighbours under {relation.describe()}: "
                    + _not_neighbours(a, b)
                )
    if channel is not None and not provides(channel, FiniteChannel):
        raise InvalidArgument("the feedback channel must be a finite randomizer")
    if opts.event is not None and method == "exact":
        raise InvalidArgument("event= applies to the sampled method only")
    if rr is not None and method == "exact":
        raise InvalidArgument('method="exact" enumerates rewards in {0, 1}: with reward_range= use "sample"')
    if rr is not None:
        method = "sample"
    report = dict(target=name, claim=claim, seed=seed, t0=t0, definition=definition)
    if definition == "joint":
        if method == "exact":
            raise InvalidArgument('method="exact" does not apply to joint DP (contexts are real vectors): use "sample"')
        if pairs is not None:
            check_joint_pairs(policy, horizon, pairs)
        return audit_sampled(
            policy, claim, definition, horizon, channel, pairs, input, seed, name, call, opts, report, rr
        )
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
            return make_report(result, method="exact", call=said(call, "exact"), **report)
        return audit_interactive(
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
            call,
            report,
            rr,
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
        return make_report(result, method="exact", call=said(call, "exact"), **report)
    return audit_sampled(policy, claim, definition, horizon, channel, pairs, input, seed, name, call, opts, report, rr)


def _not_neighbours(a, b) -> str:
    """Why two inputs are not neighbours, in rounds: the rows they differ in (from 1), or their shapes."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return f"their shapes differ, {a.shape} and {b.shape}"
    differ = np.flatnonzero(np.any(a != b, axis=tuple(range(1, a.ndim))) if a.ndim > 1 else a != b) + 1
    if differ.size == 0:
        return "they are equal"
    said = ", ".join(str(r) for r in differ[:8]) + (", …" if differ.size > 8 else "")
    return f"they differ in {differ.size} rounds ({said}), not one"


def _interactive_exact_feasible(policy, horizon, channel, pairs) -> bool:
    if not provides(policy, Enumerable) or update_uniforms(policy) or not binary(pairs):
        return False
    n_inputs = None if pairs is None else 2 * len(pairs)
    return interactive_work(policy.n_arms, horizon, channel, n_inputs) <= math.log2(MAX_INTERACTIVE_WORK)


def _exact_feasible(policy, horizon) -> bool:
    if is_decision_rules(policy):
        return horizon <= 8
    return provides(policy, Enumerable) and horizon <= 5
