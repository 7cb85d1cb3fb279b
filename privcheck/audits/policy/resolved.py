"""What ``audit_policy`` resolves before any run, as one frozen value (:class:`PolicyAudit`) that every engine of a
policy audit takes: the policy (made from a factory), the claim under its relation's neighbours, the relation
(:mod:`.relations`), the horizon, the inputs, the options, the seed, the executor's settings and the call that
reproduces it.  The arguments of ``audit_policy`` are declared once here (:data:`ARGUMENTS`: name, default, what it
is), as the options are in :mod:`..options`; each is checked once, naming the argument.
"""

from __future__ import annotations

import functools
import inspect
import math
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np

from privcheck.core import InvalidArgument, check_int, resolve_seed, with_relation
from privcheck.core.protocols import (
    FiniteChannel,
    FixedHorizon,
    Named,
    Policy,
    PhaseScale,
    ReleaseSchedule,
    RewardDomain,
    WidthScale,
    contexts_of,
    provides,
)
from privcheck.core.sequential import as_policy

from ..options import DEFAULT_POLICY_SAMPLES, Options
from ..report import Call
from ..rules import needs
from ..sampling import screened_on
from .joint import with_table_contexts
from .relations import RELATIONS, PolicyRelation, relation_named

__all__ = ["ARGUMENTS", "PolicyAudit", "resolve", "takes_arguments", "check_releases", "policy_options"]


class Argument(NamedTuple):
    """One argument of ``audit_policy`` beside the policy, the claim and the definition: its name, its default and
    what it is (numpydoc: the type, then the text)."""

    name: str
    default: object
    kind: str
    help: str


#: the arguments of ``audit_policy``, in its signature's order (the options of :mod:`..options` follow them)
ARGUMENTS = (
    Argument("horizon", None, "int", "the rounds of each audited run (default: the policy's own ``horizon``)."),
    Argument("arms", None, "int", "the arms of a factory's instance (default 2; a policy object says its own)."),
    Argument("channel", None, "a finite randomizer", "the feedback randomizer between the rewards and the policy."),
    Argument("pairs", None, "list", "the (x, x') inputs to audit; else the engines enumerate or search."),
    Argument(
        "input",
        None,
        "array or dict",
        "the reward table (or list) whose neighbours a sampled audit searches (default: the policy's "
        '``audit_table``, else zeros); a contextual table is ``{"rewards": T × K, "contexts": T × K × dim}``.',
    ),
    Argument(
        "adversary",
        None,
        "callable",
        'under ``definition="interactive"``, an adversary of your own, ``f(recommendations, t, n_arms) -> queried '
        "arms``, beside the built-in ones.",
    ),
    Argument(
        "sequence_length", None, "int", 'under ``definition="local"``, an audit over sequences of this many rewards.'
    ),
    Argument("method", "auto", "str", "``auto``, ``exact`` or ``sample``."),
    Argument("seed", None, "int", "reproduces the audit; generated and reported when None."),
    Argument("name", None, "str", "what the report calls the policy."),
    Argument(
        "instance",
        None,
        "str or dict",
        "which instance is audited and why: a note, or a dict with the note (``note``) and what the report's JSON "
        'carries as ``instance`` (a built-in\'s ``schedule`` — "published" or "shortened" —, ``horizon``, '
        "``options``).",
    ),
    Argument(
        "factory_args",
        None,
        "dict",
        'a factory\'s own parameters by name (``{"window": 50}``), beside those privcheck gives it — never the '
        "claim's (they come from the claim) or the instance's (``arms=``, ``horizon=``, ``dim=``).",
    ),
    Argument(
        "dim",
        None,
        "int",
        "a contextual policy's (``act(t, contexts)``) context dimension when privcheck draws its public contexts on "
        "the unit sphere (default 2; given contexts must have it).",
    ),
    Argument(
        "contexts",
        None,
        "array",
        "a contextual policy's public contexts, horizon × arms × dim (a row of NaN: an arm not offered that round).",
    ),
    Argument(
        "context_bound",
        None,
        "float",
        "the norm bound L of the contexts (default 1): given contexts are checked against it, drawn ones lie on its "
        "sphere, and a factory may declare it (``context_bound``).",
    ),
    Argument(
        "releases",
        None,
        "tuple of str",
        "what the policy publishes, audited instead of its actions: the names of attributes of each run object (or of "
        "a batched policy's state) read after every round's update, their values over the rounds the output — the "
        "releases view (a noisy Gram matrix, a tree counter's sums: the statistics a proof makes private).",
    ),
    Argument(
        "reward_range",
        None,
        "(lo, hi)",
        "the rewards the claim is about when not [0, 1] (e.g. (-1, 1)): the search moves rewards between them and the "
        "sampled engines are used.  Given inputs are checked against the range (the default's too).",
    ),
)
ARGUMENT = {a.name: a for a in ARGUMENTS}


def _arguments_doc(indent: str) -> str:
    return f"\n{indent}".join(f"{a.name} : {a.kind}, optional\n{indent}    {a.help}" for a in ARGUMENTS)


def takes_arguments(fn):
    """``fn(policy, claim, definition, **arguments)`` with :data:`ARGUMENTS` in its signature (keyword-only, before
    the options) and its documentation (``{arguments}``)."""
    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    params += [inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, default=a.default) for a in ARGUMENTS]
    params += [p for p in sig.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    wrapper.__signature__ = sig.replace(parameters=params)
    wrapper.__doc__ = (fn.__doc__ or "").replace("{arguments}", _arguments_doc("    "))
    return wrapper


@dataclass(frozen=True)
class PolicyAudit:
    """A policy audit as ``audit_policy`` resolved it, before any run: every engine takes this one value."""

    policy: object  # a batched Policy (None: a local audit of a feedback channel alone)
    claim: object  # with the relation's neighbours
    relation: PolicyRelation
    horizon: int | None
    name: str
    seed: int
    opts: Options
    call: Call
    t0: float
    channel: object = None
    pairs: list | None = None
    input: object = None
    adversary: object = None
    sequence_length: int | None = None
    method: str = "auto"
    reward_range: tuple | None = None
    releases: tuple | None = None

    def report(self) -> dict:
        """The keywords every report of this audit is made with (:func:`~..report.make_report`)."""
        return dict(claim=self.claim, seed=self.seed, t0=self.t0, relation=self.relation)

    def but(self, **changes) -> "PolicyAudit":
        """This audit with ``changes``."""
        return replace(self, **changes)


def resolve(policy, claim, definition, arguments: dict, options: dict, t0: float) -> PolicyAudit:
    """The audit ``audit_policy`` was asked for, checked, the policy made: every argument checked before any run,
    naming it (bad input is :class:`InvalidArgument`)."""
    g = {a.name: arguments.get(a.name, a.default) for a in ARGUMENTS}
    relation = relation_named(definition)
    for other in RELATION_ARGUMENTS:
        if g[other] is not None and other not in relation.own_arguments:
            raise InvalidArgument(f'{other}= applies to definition="{RELATION_ARGUMENTS[other]}"')
    g["input"], g["pairs"], g["contexts"] = with_table_contexts(g["input"], g["pairs"], relation, g["contexts"])
    if g["method"] not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={g['method']!r} must be auto, exact or sample")
    _check_inputs(policy, claim, relation, g)
    name = g["name"] or (policy.name if provides(policy, Named) else getattr(policy, "__name__", "policy"))
    policy = _made(policy, claim, name, g)
    reward_range = _check_reward_range(g["reward_range"], g["pairs"], g["input"], relation, policy)
    if policy is not None:
        relation.check_policy(policy, name)
    if g["context_bound"] is not None and contexts_of(policy) is None:
        raise InvalidArgument(f"context_bound= applies to a contextual policy (act(t, contexts)); {name}'s reads none")
    g["releases"] = _releases(g["releases"], relation)
    seed = resolve_seed(g["seed"])
    horizon = _horizon(policy, g["horizon"], name, relation) if relation.observes_actions else g["horizon"]
    a = PolicyAudit(
        policy,
        with_relation(claim, relation.neighbours()),
        relation,
        horizon,
        name,
        seed,
        policy_options(options),
        _call(policy, claim, relation, name, seed, horizon, reward_range, g),
        t0,
        channel=g["channel"],
        pairs=g["pairs"],
        input=g["input"],
        adversary=g["adversary"],
        sequence_length=g["sequence_length"],
        method=g["method"],
        reward_range=reward_range,
        releases=g["releases"],
    )
    return _checked_for_actions(a) if relation.observes_actions else a


#: the arguments only one relation takes, and its name
RELATION_ARGUMENTS = {arg: r.name for r in RELATIONS.values() for arg in r.own_arguments}


def policy_options(options: dict) -> Options:
    """The audit's options, validated once (a policy's, and an episodic agent's: their draws are whole runs): the
    policy family's default samples; given the runs per side
    (``samples=``) and not ``screening=``, each candidate pair screened on a quarter of them (at least 100, all of
    them when fewer; at most the default), as the pairs of an audit whose runs were sized are."""
    opts = Options(**options).with_default_samples(DEFAULT_POLICY_SAMPLES)
    given = options.get("samples")
    opts = replace(
        opts,
        sized=given is None,
        screening_given=options.get("screening"),
    )
    if given is not None and opts.screening_given is None:  # n runs per side asked for: pairs screened on a quarter
        opts = replace(opts, screening=screened_on(opts.samples, opts.screening), screening_derived=True)
    return opts


def _check_inputs(policy, claim, relation, g: dict) -> None:
    """Refuse, naming the argument, what the audit cannot run on (``g``: the arguments; horizon and arms made
    integers).  A local audit of a feedback channel alone needs no policy."""
    alone = policy is None and not relation.observes_actions and g["channel"] is not None
    if not alone and (policy is None or not (isinstance(policy, Policy) or callable(policy))):
        raise InvalidArgument(
            f"policy={policy!r} must be a policy, a factory of one, or a factory of one object per run (act, update)"
        )
    if claim is None:
        raise InvalidArgument("claim=None: give the claim under test, e.g. PureDP(1.0)")
    needs(claim)  # refuses anything that is not a privcheck claim, naming claim=
    g["horizon"] = None if g["horizon"] is None else check_int("horizon", g["horizon"], lower=1)
    g["arms"] = None if g["arms"] is None else check_int("arms", g["arms"], lower=2)
    g["dim"] = None if g["dim"] is None else check_int("dim", g["dim"])
    if g["sequence_length"] is not None:
        check_int("sequence_length", g["sequence_length"], lower=1)
    pairs = g["pairs"]
    if pairs is not None:
        try:
            if isinstance(pairs, (str, bytes)):
                raise TypeError
            pairs = g["pairs"] = list(pairs)
        except TypeError:
            raise InvalidArgument(f"pairs={pairs!r} must be a list of (x, x') pairs") from None
        if not pairs:
            raise InvalidArgument("pairs=[] must hold at least one (x, x') pair")
        for pair in pairs:
            if isinstance(pair, (str, bytes)) or len(pair) != 2:
                raise InvalidArgument(f"pairs= must hold (x, x') pairs, not {pair!r}")
            for side in pair:
                relation.check_input("pairs", side)
    if g["input"] is not None:
        relation.check_input("input", g["input"])


def _made(policy, claim, name: str, g: dict):
    """The batched policy audited: a factory's, made once here (of a batched policy, or of runs), or the policy
    object given, checked against the arms and contexts asked for."""
    if policy is not None and not isinstance(policy, Policy):
        return as_policy(
            policy,
            n_arms=2 if g["arms"] is None else g["arms"],
            horizon=g["horizon"],
            claim=claim,
            name=name,
            factory_args=g["factory_args"],
            dim=g["dim"],
            contexts=g["contexts"],
            context_bound=g["context_bound"],
        )
    if policy is not None and g["arms"] is not None and g["arms"] != policy.n_arms:
        raise InvalidArgument(f"arms={g['arms']}: the policy has {policy.n_arms} arms")
    if policy is not None and g["contexts"] is not None:
        own = contexts_of(policy)
        if own is None or not np.array_equal(np.asarray(g["contexts"], dtype=float), own, equal_nan=True):
            raise InvalidArgument(
                "contexts= (or a contextual table's) must be those the policy object was made with: give a factory, "
                "and privcheck makes the policy on them"
            )
    return policy


def _check_reward_range(reward_range, pairs, input, relation, policy=None):
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
        r = relation.rewards(x)
        if r.size and (r.min() < lo or r.max() > hi):
            bad = r[(r < lo) | (r > hi)].flat[0]
            range_ = (
                f"reward_range=({lo:g}, {hi:g})"
                if reward_range is not None
                else f"[{lo:g}, {hi:g}], the default reward_range"
            )
            raise InvalidArgument(
                f"{what}= holds the reward {bad:g}, outside {range_}: the claim is about rewards in that range"
                + ("" if reward_range is not None else "; give reward_range= if your rewards lie elsewhere")
            )
    return None if reward_range is None or (lo, hi) == (0.0, 1.0) else (lo, hi)


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


def _horizon(policy, horizon, name: str, relation) -> int:
    """The horizon of an audit of actions: the one given, else the policy's own; at least 2, with a release."""
    horizon = horizon or (policy.horizon if provides(policy, FixedHorizon) else None)
    if horizon is None:
        raise InvalidArgument("give horizon=")
    if horizon < 2:
        raise InvalidArgument(
            f"vacuous: horizon={horizon} — the only action is chosen before any reward is seen, so no action can "
            f"depend on the data under {relation.name} DP; audit a horizon of at least 2"
        )
    check_releases(policy, horizon, name)
    return horizon


def _call(policy, claim, relation, name: str, seed: int, horizon, reward_range, g: dict) -> Call:
    """The call that reproduces the audit (its arguments by their Python names)."""
    contexts = g["contexts"]
    return Call(
        "audit_policy",
        name,
        {
            "claim": claim,
            "definition": relation.name,
            "horizon": horizon,
            "arms": g["arms"],
            **({"factory_args": g["factory_args"]} if g["factory_args"] else {}),
            **{k: g[k] for k in ("dim", "context_bound") if g[k] is not None},
            **({"contexts": np.asarray(contexts, dtype=float).tolist()} if contexts is not None else {}),
            "pairs": g["pairs"],
            "input": g["input"],
            "method": g["method"],
            "seed": seed,
            **({"reward_range": list(reward_range)} if reward_range is not None else {}),
            **({"releases": list(g["releases"])} if g["releases"] is not None else {}),
        },
        source=policy,
    )


def _checked_for_actions(a: PolicyAudit) -> PolicyAudit:
    """The checks of an audit whose output is the policy's actions: given pairs are neighbours, the channel is
    finite, an event or a reward range asks for the sampled engine (a reward range chooses it)."""
    neighbours = a.claim.relation
    for i, (x, y) in enumerate(a.pairs or ()):
        if not neighbours.contains(x, y):
            said = neighbours.describe()
            raise InvalidArgument(
                f"pairs=: pair {i + 1}'s sides are not neighbours under {said}: {_not_neighbours(x, y)}"
            )
    if a.channel is not None and not provides(a.channel, FiniteChannel):
        raise InvalidArgument("the feedback channel must be a finite randomizer")
    if a.opts.event is not None and a.method == "exact":
        raise InvalidArgument("event= applies to the sampled method only")
    if a.reward_range is not None and a.method == "exact":
        raise InvalidArgument('method="exact" enumerates rewards in {0, 1}: with reward_range= use "sample"')
    if a.releases is not None and a.method == "exact":
        raise InvalidArgument('method="exact" enumerates action sequences: with releases= use "sample"')
    return a.but(method="sample") if a.reward_range is not None or a.releases is not None else a


def _releases(names, relation) -> tuple | None:
    """The names of the values a policy publishes (``releases=``), checked: identifiers, under a relation whose audit
    runs the policy (not a local audit of the users' reports)."""
    if names is None:
        return None
    names = (names,) if isinstance(names, str) else tuple(names)
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        raise InvalidArgument(f"releases={names!r} must name attributes of the policy's runs (e.g. ('V', 'b'))")
    if not relation.takes_releases:
        raise InvalidArgument(f"releases= applies to table, view and joint audits, not definition={relation.name!r}")
    return names


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
