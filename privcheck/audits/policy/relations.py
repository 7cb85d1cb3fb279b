"""A policy audit's neighbouring relations, one class each, and the one place that maps their names to them.

A relation says what it is, once: what an input is (its shape, its checks, how the user writes it), which
neighbours the claim is about (:mod:`privcheck.core.neighbours`), how an audit of it runs — which engines, on which
mechanism over the policy's runs, with which input search and against whom — which outputs that audit observes,
and how a report and its witness say it.  ``audit_policy`` resolves the ``definition`` it is given to a relation
once (:func:`relation_named`) and asks it; nothing else compares a definition's name.

====================  ===========================================================================================
relation              neighbours, and what is observed
====================  ===========================================================================================
:class:`Table`        reward tables (T × K) differing in one row; the action sequence (Azize & Basu, "Concentrated
                      Differential Privacy for Bandits", §III-C)
:class:`View`         the rewards the policy observes (T), differing in one entry; the action sequence (ibid.)
:class:`Interactive`  reward tables, the observed arms chosen by an adversary; the recommendations (ibid.)
:class:`Joint`        one user's context and rewards; every other user's action, theirs left out ("Differentially
                      Private Contextual Linear Bandits", Shariff and Sheffet, §2)
:class:`Local`        each user's report, any two of their data; what the report randomizer sends
====================  ===========================================================================================

A new relation is one class here (its name, its neighbours, its input, its ``audit``) added to
:data:`RELATIONS`, and its tests (DESIGN.md, "A neighbouring relation").  A lower bound never certifies privacy.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from privcheck.core import InvalidArgument, JointNeighbours, TableNeighbours, Unspecified, ViewNeighbours
from privcheck.core.protocols import Enumerable, contexts_of, is_decision_rules, provides, update_uniforms

from .adapters import PolicyMechanism
from .inputs import binary, search_size, searched, start_table
from .interactive import audit_interactive_exact, interactive_feasible
from .joint import (
    JointMechanism,
    check_joint_pairs,
    joint_adversaries,
    joint_pair_text,
    joint_search_size,
    joint_searched,
)
from .local import audit_local
from .sampled import audit_interactive, audit_sampled
from .tables import audit_exact

__all__ = ["PolicyRelation", "Table", "View", "Interactive", "Joint", "Local", "RELATIONS", "relation_named"]


class PolicyRelation:
    """What every relation says (the defaults are Table DP's; see the subclasses)."""

    #: the ``definition=`` that names it, and what a report's ``definition`` says
    name: ClassVar[str] = ""
    #: how the report's sentence says what the claim is about (", as Table DP (…)")
    said: ClassVar[str] = ""
    #: the arguments of ``audit_policy`` only this relation takes (refused under any other)
    own_arguments: ClassVar[tuple] = ()
    #: whether an input holds a reward for every arm of a round (a table, T × K), or one per round (a list, T)
    per_arm: ClassVar[bool] = True
    #: whether the output is the run's actions (a witness then says its pair in rounds)
    observes_actions: ClassVar[bool] = True
    #: whether the exact engine of the relation enumerates binary inputs (``method="exact"`` and ``auto``)
    enumerates: ClassVar[bool] = True
    #: whether a pair's sides name the changed user (a contextual table's ``"user"``: :func:`~.joint.split_contextual`)
    marks_user: ClassVar[bool] = False
    #: whether its audit can observe what the policy publishes instead of its actions (``releases=``)
    takes_releases: ClassVar[bool] = True

    def heading(self, releases=None) -> str:
        """How a report's first sentence says the relation: :attr:`said`, or — an audit of what the policy publishes
        (``releases``) — the relation with the releases in place of the actions."""
        if not releases:
            return self.said
        return f"{self.said.split(' (')[0]} (read on what the policy publishes: {', '.join(releases)})"

    def neighbours(self):
        """The neighbour relation the claim carries (:mod:`privcheck.core.neighbours`)."""
        return TableNeighbours()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    # ------------------------------------------------------------------------------------------------ inputs
    def input_shape(self, horizon: int, n_arms: int) -> tuple:
        """The shape of one input of ``horizon`` rounds."""
        return (horizon, n_arms) if self.per_arm else (horizon,)

    def input_word(self) -> str:
        """What an input is called in messages."""
        return "reward table" if self.per_arm else "reward list"

    def check_input(self, what: str, rewards) -> None:
        """A given input of finite numbers of this relation's shape, or an :class:`InvalidArgument` naming
        ``what``."""
        try:
            values = np.asarray(rewards, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgument(f"{what}= must hold reward tables (or lists) of numbers, not {rewards!r}") from None
        if values.ndim not in (1, 2) or values.size == 0:
            raise InvalidArgument(f"{what}= must hold reward tables (T × K) or lists (T), not shape {values.shape}")
        if not np.isfinite(values).all():
            raise InvalidArgument(f"{what}= holds a reward that is NaN or infinite")

    def rewards(self, x) -> np.ndarray:
        """The rewards of a given input (what the reward range is checked against)."""
        return np.asarray(x, dtype=float)

    def reward(self, x, t: int, arm):
        """Round ``t``'s (from 1) reward of ``arm`` (an int, or an array of one per run) in the input ``x``."""
        return x[t - 1, arm] if self.per_arm else x[t - 1]

    def check_policy(self, policy, name: str) -> None:
        """Refuse a policy this relation does not apply to (bad input)."""

    def pair_text(self, a, b) -> str | None:
        """The witness's pair in words, where the relation's inputs need their own (None: the report's text says
        it, record by record — by round when the output is the actions)."""
        return None

    # ------------------------------------------------------------------------------------------------ audit
    def audit(self, a):
        """The report of the audit ``a`` (:class:`~.resolved.PolicyAudit`): the exact enumeration where it is
        asked for or feasible and the inputs are binary, else the sampled engine over runs of the policy."""
        auto = a.method == "auto" and a.opts.event is None and _exact_feasible(a) and binary(a.pairs)
        return audit_exact(a) if a.method == "exact" or auto else audit_sampled(a)

    def mechanism(self, policy, horizon: int, channel=None, name: str = "policy", adversary=None, releases=None):
        """The policy run on one input as a mechanism whose draws are independent runs: the action sequences, or
        what it publishes (``releases``: :meth:`~.adapters.PolicyMechanism.with_releases`)."""
        return PolicyMechanism(policy, horizon, self, channel, name).with_releases(releases)

    def adversaries(self) -> dict:
        """Who chooses what the sides of a pair leave open as the runs go, by name (None: nobody)."""
        return {None: None}

    def searches(self) -> tuple:
        """(the input search, its size in runs): :func:`~.inputs.searched` and :func:`~.inputs.search_size`."""
        return searched, search_size

    def searched_on(self) -> "PolicyRelation":
        """The relation whose input search this one's builds on (its own; joint DP's: Table DP's)."""
        return self

    def start(self, policy, input, horizon: int, reward_range):
        """The input whose neighbours the search explores."""
        return start_table(policy, input, horizon, reward_range) if self.per_arm else input

    def notes(self, policy, levels) -> list:
        """What the neighbours are, said in a sampled audit's notes (a contextual policy's: contexts public)."""
        if contexts_of(policy) is None:
            return []
        return ["the neighbours differ in one round's rewards, the contexts public (Table DP with contexts public)"]


class Table(PolicyRelation):
    """Table DP: reward tables x ∈ R^{T×K} differing in one row (user t's K potential rewards); the output is the
    action sequence."""

    name = "table"
    said = ", as Table DP (the action sequence, on reward tables)"


class View(PolicyRelation):
    """View DP: the rewards the policy observes, r ∈ R^T, differing in one entry; the output is the action
    sequence."""

    name = "view"
    said = ", as View DP (the action sequence, on the rewards the policy sees)"
    per_arm = False

    def neighbours(self):
        return ViewNeighbours()


class Interactive(PolicyRelation):
    """Interactive DP: reward tables differing in one row, and an adversary choosing which arm's reward the policy
    observes each round; the output is the recommendations.  Sampled against each adversary of
    :mod:`.adversaries` (and the user's own), or exactly as the supremum over every deterministic adversary."""

    name = "interactive"
    said = ", as Interactive DP (the recommendations, against adaptive adversaries choosing the queried arms)"
    own_arguments = ("adversary",)
    takes_releases = False

    def audit(self, a):
        exact = a.method == "exact" or (
            a.method == "auto"
            and a.adversary is None
            and a.opts.event is None
            and provides(a.policy, Enumerable)
            and not update_uniforms(a.policy)
            and binary(a.pairs)
            and interactive_feasible(a)
        )
        return audit_interactive_exact(a) if exact else audit_interactive(a)


class Joint(PolicyRelation):
    """Joint DP for a contextual policy: one user's whole row — their context and their rewards — changed, and
    every action but that user's own observed (:mod:`.joint`).  An input is a :func:`~.joint.joint_input`."""

    name = "joint"
    said = ", as joint DP (every other user's action, when one user's context and rewards change)"
    enumerates = False
    marks_user = True

    def neighbours(self):
        return JointNeighbours()

    def input_word(self) -> str:
        return "joint input"

    def check_input(self, what: str, rewards) -> None:
        try:
            values = np.asarray(rewards, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgument(f"{what}= must hold joint inputs of numbers, not {rewards!r}") from None
        if values.ndim != 3 or values.shape[2] < 3 or not np.isfinite(values).all():
            raise InvalidArgument(
                f"{what}= must hold joint inputs, T × K × (2 + dim) finite numbers (per round and arm: the reward, the "
                f"mark of the audited user's round, the arm's context), not shape {values.shape}"
            )

    def rewards(self, x) -> np.ndarray:
        r = np.asarray(x, dtype=float)
        return r[..., 0] if r.ndim == 3 else r

    def check_policy(self, policy, name: str) -> None:
        if contexts_of(policy) is None:
            raise InvalidArgument(
                f'definition="joint" applies to a contextual policy (act(t, contexts)); {name}\'s actions read no '
                "contexts, and for it joint DP is Table DP (the round's own action never reads that round's rewards): "
                'audit definition="table"'
            )

    def pair_text(self, a, b) -> str:
        return joint_pair_text(a, b)

    def audit(self, a):
        if a.method == "exact":
            raise InvalidArgument('method="exact" does not apply to joint DP (contexts are real vectors): use "sample"')
        if a.pairs is not None:
            check_joint_pairs(a.policy, a.horizon, a.pairs)
        return audit_sampled(a)

    def mechanism(self, policy, horizon: int, channel=None, name: str = "policy", adversary=None, releases=None):
        return JointMechanism(policy, horizon, self, channel, name, adversary=adversary).with_releases(releases)

    def adversaries(self) -> dict:
        return joint_adversaries()

    def searches(self) -> tuple:
        return joint_searched, joint_search_size

    def searched_on(self) -> PolicyRelation:
        return Table()

    def notes(self, policy, levels) -> list:
        return [
            "joint DP: the neighbours differ in one user's round — their context and rewards, within the norm bound "
            f"L = {policy.context_bound:g} and rewards in [{levels[0]:g}, {levels[1]:g}] — and that user's own "
            "action is left out of the output (recorded as arm 0); the other users' contexts, the same on both sides, "
            "are fixed in advance "
            "(the public ones, or others the search chose: the witness says which) against one adversary, and "
            "chosen adaptively against another (mirroring-contexts: each round's reversed in every run whose last "
            "action shown, the changed user's own left out, was not arm 0); the failure probability is split over "
            "the two and the larger bound reported (the second not sampled once the first has refuted, unless "
            "full_budget=True)"
        ]


class Local(PolicyRelation):
    """Local DP: each user's report randomizer — the policy's feedback channel, or a run's own ``report`` — under
    any two of one user's data (:mod:`.local`); over sequences of n rewards with ``sequence_length``."""

    name = "local"
    said = ", as local DP (each user's report)"
    own_arguments = ("sequence_length",)
    observes_actions = False
    takes_releases = False
    enumerates = False

    def neighbours(self):
        return Unspecified()

    def audit(self, a):
        return audit_local(a)


#: every relation by its name: the one place a definition's name is read
RELATIONS: dict[str, PolicyRelation] = {r.name: r for r in (Table(), View(), Interactive(), Local(), Joint())}


def relation_named(definition) -> PolicyRelation:
    """The relation ``definition`` names (a relation passes as it is), or an :class:`InvalidArgument` listing
    them."""
    if isinstance(definition, PolicyRelation):
        return definition
    try:
        return RELATIONS[definition]
    except (KeyError, TypeError):
        raise InvalidArgument(f"definition={definition!r} must be one of {', '.join(RELATIONS)}") from None


def _exact_feasible(a) -> bool:
    """Whether the exact enumeration is feasible for the audit ``a`` (``method="auto"``; an audit with a reward range or
    releases was made ``"sample"`` when resolved)."""
    if not a.relation.enumerates:
        return False
    if is_decision_rules(a.policy):
        return a.horizon <= 8
    return provides(a.policy, Enumerable) and a.horizon <= 5
