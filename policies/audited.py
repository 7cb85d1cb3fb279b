"""The one place that decides what ``privcheck audit NAME`` runs on: :func:`audited`.

A built-in policy's audited instance is K arms of mean 1/2 (a linear bandit of dimension ``dim``, default 2, for the
linear policies; two actions ±e₁ where the policy's audit schedule asks for them), the feedback through
ε-randomized response when ``rr_epsilon`` is given, and a private policy calibrated to the claim under test (its ρ,
or its ε for a pure claim), as the built-in mechanisms are — on its published schedule at the smallest horizon
where its releases decide actions, or on its shortened schedule (the catalogue's
:attr:`~.registry.PolicySpec.audit_schedule`).  The choice is made in three steps, each its own function: the
feedback channel (:func:`_feedback`), the horizon and schedule (:func:`_horizon`), and the note that says what was
audited and why (:func:`_note`).  Everything it knows of a policy it reads from its catalogue entry
(:data:`~.registry.POLICIES`): no policy is named here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privcheck.audits.policy.relations import relation_named
from privcheck.core import InvalidArgument, check_real
from privcheck.core.claims import parameters
from privcheck.core.protocols import Defined, ReleaseSchedule, provides

from .registry import POLICIES, SCHEDULE_OPTIONS, PolicySpec, build_environment, build_policy, user_policy

__all__ = ["audited", "AuditedInstance", "SCHEDULES", "PUBLISHED_REACH"]

#: the two schedules a built-in private policy can be audited on
SCHEDULES = ("published", "shortened")
#: the last round at which a published schedule's first release may end for the default audit to take it: past it
#: (LDP Robust SE's Table-DP audit at ε = 1, ν = 0.9, K = 2: its phase 1 ends at round 21,878,016) the default
#: audit falls back to the shortened schedule and says so
PUBLISHED_REACH = 100_000


@dataclass(frozen=True)
class AuditedInstance:
    """What a policy audit by name runs on: the policy (None when only a local feedback channel is audited), its
    feedback channel, the horizon, the definition audited (the one asked for, else the policy's own), the name the
    report gives it, and which instance it is and why (None for a policy audited as given)."""

    policy: object
    channel: object
    horizon: int | None
    definition: str | None
    name: str
    note: str | dict | None = None  # a string, or a built-in's {note, schedule, horizon, options}


def audited(
    target: str,
    *,
    claim,
    definition=None,
    arms: int = 2,
    horizon=None,
    rr_epsilon=None,
    dim=None,
    rules=None,
    options: dict | None = None,
    schedule: str = "published",
    adapter: str | None = None,
    one_based: bool = False,
    factory_args: dict | None = None,
    contexts=None,
    context_bound=None,
) -> AuditedInstance | None:
    """The instance a policy audit by name runs on: the tabular policy of ``rules``, a built-in policy's audited
    instance (this module's docstring), or a user's policy factory ``file.py:name`` (when a definition is given; through
    ``adapter`` with ``one_based``, given its own ``factory_args``: :func:`~.registry.user_policy`).  None when
    ``target`` names no policy."""
    if schedule not in SCHEDULES:
        raise InvalidArgument(f"schedule={schedule!r} must be one of {', '.join(SCHEDULES)}")
    spec = POLICIES.get(target)
    policy_target = target == "tabular" or spec is not None or (":" in target and definition is not None)
    if schedule != "published" and policy_target and (spec is None or spec.audit_schedule is None):
        private = ", ".join(n for n, s in POLICIES.items() if s.audit_schedule is not None)
        raise InvalidArgument(
            f"schedule={schedule!r} applies to the private built-in policies ({private}); {target} is audited as given"
        )
    if arms < 2:
        raise InvalidArgument(f"arms={arms}: a bandit needs at least 2 arms")
    if (
        adapter is not None or one_based or factory_args or contexts is not None or context_bound is not None
    ) and ":" not in target:
        raise InvalidArgument(
            "adapter=, one_based=, factory_args=, contexts= and context_bound= apply to your own policy "
            "(file.py:function)"
        )
    if target == "tabular":
        from .tabular import TabularPolicy

        if not rules:
            raise InvalidArgument("the tabular policy needs rules= (decision-rule tables as JSON)")
        pol = TabularPolicy(rules)
        return AuditedInstance(pol, None, pol.horizon, definition, "tabular")
    if spec is None:
        if ":" in target and definition is not None:  # a user's policy factory
            h = None if horizon is None else int(horizon)
            pol = user_policy(target, arms, h, claim, adapter, one_based, factory_args, dim, contexts, context_bound)
            return AuditedInstance(pol, None, h, definition, target)
        return None
    policy, channel, h, note = _builtin_instance(
        spec, arms, horizon, rr_epsilon, dim, claim, definition, options or {}, schedule
    )
    if definition is None and provides(policy, Defined):
        definition = policy.definition
    return AuditedInstance(policy, channel, h, definition, target, note)


def _builtin_instance(spec: PolicySpec, arms, horizon, rr_epsilon, dim, claim, definition, options, schedule):
    """(policy, feedback channel or None, horizon, note) of the built-in ``spec``; with ``definition`` "local" and
    a channel, only the channel is audited (policy None)."""
    given = {k: v for k, v in options.items() if v is not None}
    action_set = _action_set(spec, given.pop("action_set", None))
    channel, rr_multiplier = _feedback(spec, rr_epsilon, given)
    if definition is not None and not relation_named(definition).observes_actions and channel is not None:
        return None, channel, None, None  # (a local audit of the users' randomizer alone)
    if horizon is not None and (horizon != int(horizon) or horizon < arms):
        raise InvalidArgument(f"auditing {spec.name} needs horizon= at least the number of arms ({arms})")
    said = parameters(claim) if claim is not None else {}
    claimed = {"rho": said.get("rho"), "epsilon": said["epsilon"] if set(said) == {"epsilon"} else None}
    entry = spec.audit_schedule

    def make(h: int, shorten: bool):
        env = _environment(spec, h, arms, dim, rr_epsilon, action_set)
        opts = {**claimed, **(entry.options if shorten else {}), **given}
        policy = build_policy(spec.name, env, h, opts)
        if action_set == "contexts":
            policy.contexts = audit_contexts(h, arms, env.dim)
        return env, opts, policy

    h, shorten, how = _horizon(spec, horizon, arms, definition, given, schedule, make)
    env, opts, policy = make(h, shorten)
    why = CONTEXTS_WHY if action_set == "contexts" else spec.published_why  # (the catalogue's is for ±e₁)
    note = _note(spec, env, opts, policy, h, arms, given, shorten, how, rr_multiplier, why)
    if action_set is not None and isinstance(note, dict):
        note.update(note=f"{note['note']}; {ACTION_SETS[action_set]}", action_set=action_set)
    return policy, channel, h, note


#: why the contextual instance is representative (in place of the fixed instance's why)
CONTEXTS_WHY = (
    "two actions ±c_t each round, whose optimism widths are equal, so the action taken is the sign of the released "
    "estimate along c_t; episodes switch when det V doubles, from the first rounds on, each switch releasing a "
    "noisy Σ a·r"
)


#: the action sets a built-in contextual policy (one that takes a fresh action set each round) is audited on
ACTION_SETS = {
    "contexts": (
        "a fresh action set each round, public and the same in every run: ±c_t, c_t drawn once on the unit sphere "
        "(seed 0; K actions on the sphere for K > 2) — the contextual bandit of its paper, the contexts public "
        "(action_set='fixed' for one fixed action set)"
    ),
    "fixed": "one fixed action set (action_set='fixed'; the default is a fresh action set each round)",
}


def _action_set(spec: PolicySpec, asked) -> str | None:
    """The action set of a contextual built-in's audit ('contexts' unless 'fixed' is asked for); None for a policy
    that takes no fresh action sets."""
    private_contextual = spec.contextual and spec.audit_schedule is not None
    if asked is None:
        return "contexts" if private_contextual else None
    if not private_contextual:
        raise InvalidArgument(f"action_set= applies to the private contextual built-ins; {spec.name} takes none")
    if asked not in ACTION_SETS:
        raise InvalidArgument(f"action_set={asked!r} must be one of {', '.join(ACTION_SETS)}")
    return asked


def audit_contexts(horizon: int, arms: int, dim: int, seed: int = 0) -> np.ndarray:
    """The public action sets of a contextual built-in's audit, (horizon, arms, dim): with two arms, ±c_t with c_t
    uniform on the unit sphere — the action taken then tells the sign of the estimate along a fresh direction
    each round — else ``arms`` points on the sphere; drawn once from ``seed``, the same in every audit."""
    from privcheck.core.sequential import public_contexts

    if arms != 2:
        return public_contexts(arms, horizon, dim, seed)
    c = public_contexts(1, horizon, dim, seed)[:, 0]
    return np.stack([c, -c], axis=1)


def _feedback(spec: PolicySpec, rr_epsilon, given: dict):
    """(the feedback channel or None, the flip-probability multiplier or None): ε-randomized response when
    ``rr_epsilon`` is given — for a policy with no noise of its own, ``noise_multiplier=`` scales the channel's flip
    probability (the policy still believes the calibrated channel, as a mis-calibrated deployment would; taken out of
    ``given``)."""
    if rr_epsilon is None:
        return None, None
    from privcheck.mechanisms import BinaryRandomizedResponse, optimal_randomized_response

    channel = optimal_randomized_response(rr_epsilon)
    if "noise_multiplier" not in given or spec.private:
        return channel, None
    m = check_real(
        "noise_multiplier", given.pop("noise_multiplier"), lower=0.0, lower_open=True, upper=1.0 / (1.0 - channel.p00)
    )
    flip = m * (1.0 - channel.p00)
    return BinaryRandomizedResponse(1.0 - flip, 1.0 - flip), m


def _environment(spec: PolicySpec, h: int, arms: int, dim, rr_epsilon, action_set=None):
    """The environment the audited instance acts in (its actions and feedback; the rewards are the audit's)."""
    entry = spec.audit_schedule
    if action_set == "contexts":
        return build_environment("linear-contextual", None, h, arms=arms, dim=dim or 2)
    if spec.linear and entry is not None and entry.antipodal and arms == 2:
        from .environments import Linear

        d = dim or 2
        e1 = np.eye(d)[0]
        return Linear(np.stack([e1, -e1]), np.eye(d)[min(1, d - 1)] if d > 1 else np.zeros(1))
    if spec.linear:
        return build_environment("linear", None, h, arms=arms, dim=dim or 2)
    return build_environment("bernoulli", f"0.5x{arms}", h, rr_epsilon=rr_epsilon)


def _horizon(spec: PolicySpec, horizon, arms, definition, given, schedule, make) -> tuple[int, bool, dict]:
    """(the horizon, whether the shortened schedule is used, how it was chosen): as given; the shortened schedule's
    when asked for (or its options given); any for a policy whose per-report randomizer is audited; else the
    smallest where the published releases decide actions (:func:`_deciding_horizon`), falling back to the shortened
    schedule when that is past :data:`PUBLISHED_REACH`."""
    entry = spec.audit_schedule
    how = {"beyond": None, "deciding": False, "local": False}
    shorten = entry is not None and schedule == "shortened"
    if entry is None:
        if horizon is None:
            raise InvalidArgument(f"auditing {spec.name} needs horizon= at least the number of arms ({arms})")
        return int(horizon), shorten, how
    if horizon is not None:
        return int(horizon), shorten, how
    if shorten or given.keys() & set(SCHEDULE_OPTIONS):
        return entry.horizon, shorten, how
    if _local(definition, make(entry.horizon, False)[2]):
        return entry.horizon, shorten, {**how, "local": True}  # the per-report randomizer: any horizon
    h, beyond = _deciding_horizon(spec.name, entry.horizon, arms, lambda h: make(h, False)[2])
    return h, beyond is not None, {**how, "beyond": beyond, "deciding": beyond is None}


def _note(spec: PolicySpec, env, opts, policy, horizon, arms, given, shorten, how, rr_multiplier, published_why):
    """What was audited and why: a sentence for a mis-calibrated feedback channel; for a private policy the note,
    its schedule, horizon and options (what the report's JSON carries as ``instance``), ``published_why`` saying why
    its published schedule's instance is representative; None for a policy audited as given."""
    name, entry = spec.name, spec.audit_schedule
    if rr_multiplier is not None:
        return (
            f"{name}, {arms} arms, horizon {horizon}, feedback through randomized response whose flip "
            f"probability is {rr_multiplier:g} × the calibrated one (noise_multiplier=): a mis-calibrated "
            f"channel under a policy that believes the calibrated one"
        )
    if entry is None:
        return None
    shape = f"d = {env.dim}, {arms} actions" if spec.linear else f"{arms} arms"
    first = policy.first_release() if provides(policy, ReleaseSchedule) else math.inf
    scaled = {k: opts[k] for k in SCHEDULE_OPTIONS if opts.get(k) is not None and opts[k] != 1}
    kind = "shortened" if scaled else "published"
    if shorten:
        why = "the schedule as given" if given.keys() & set(entry.options) else entry.why
    elif given.keys() & set(SCHEDULE_OPTIONS):
        why = "the schedule as given"
    elif published_why is not None:
        why = published_why
    elif how["local"]:
        why = "each user's report is audited through its local randomizer (phase 1's, as published)"
    elif how["deciding"]:
        why = (
            f"the smallest horizon where its releases decide actions: its first private estimate is released at "
            f"the end of round {int(first):,}, and the {arms} rounds after it show the arms it keeps"
        )
    else:
        why = "the schedule as published"
    if how["beyond"] is not None:
        why += (
            f" — its published schedule first releases at the end of round {int(how['beyond']):,}, past the "
            f"{PUBLISHED_REACH:,} rounds a default audit takes on (give horizon= past it to audit that schedule)"
        )
    m = opts.get("noise_multiplier", 1.0)
    noise = "" if m == 1.0 else f"; the calibrated noise × {m:g} (noise_multiplier=): a mis-calibrated copy"
    when = f"; the first release ends round {int(first)}" if first < horizon else ""
    said = f" ({', '.join(f'{k}={v:g}' for k, v in scaled.items())})" if scaled else ""
    return {
        "note": f"{kind} schedule{said}: {name}, {shape}, horizon {horizon}: {why}{when}{noise}",
        "schedule": kind,
        "horizon": horizon,
        "options": {k: v for k, v in opts.items() if v is not None},
    }


def _local(definition, policy) -> bool:
    """Whether the audit is of the policy's local randomizer (asked for, or the policy's own definition)."""
    if definition is None and provides(policy, Defined):
        definition = policy.definition
    return definition is not None and not relation_named(definition).observes_actions


def _deciding_horizon(name: str, least: int, arms: int, build) -> tuple[int, float | None]:
    """(the horizon, None) at which the published policy ``build(h)`` has made its first release and played one
    round per arm after it — at least ``least`` — or (``least``, the round of its first release) when that
    release ends past :data:`PUBLISHED_REACH`.  A schedule may depend on the horizon (a phase length through
    log T): the horizon is refined until the policy built at it agrees."""
    h = least
    for _ in range(8):
        policy = build(h)
        if not provides(policy, ReleaseSchedule):
            return h, None
        first = policy.first_release()
        if first == math.inf:
            return h, None  # no release ever: the audit refuses it as vacuous, saying why
        if first > PUBLISHED_REACH:
            return least, first
        need = max(least, int(first) + arms)
        if need <= h:
            return h, None
        h = need
    raise InvalidArgument(f"{name}'s first release moves with the horizon: give horizon=")
