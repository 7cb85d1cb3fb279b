"""Joint DP for contextual policies: one user's whole row — their context and their rewards — changed, and every
action but that user's own audited.

A contextual policy's recommendation to a user depends on that user's context by design, so no such policy is DP
when its whole row changes and its own action is watched.  The guarantee papers state ("Differentially Private
Contextual Linear Bandits", Shariff and Sheffet, §2) is joint DP: the actions shown to every *other* user do not
reveal the changed user's data.  An input here holds, per round, the arms' rewards, a mark on the audited user's
round (the same on both sides of a pair: it is not data) and the arms' contexts (:func:`joint_input`); the output
is the action sequence with the marked round's action replaced by arm 0 whatever was played, so that no event can
read it.  The other users' contexts are fixed in advance — the policy's public ones, or those the search chose —
or chosen as the run goes by an adversary that sees the actions shown (:func:`joint_adversaries`).

The pairs are searched with nothing hand-built (:func:`joint_searched`): the Table-DP search's pairs (where the
policy's decisions read a round's rewards), each with the round's contexts kept and reversed; and, at those rounds
and the first, the changed user's contexts alone reversed and turned a quarter turn — on rewards all 0 (their
contexts then move only second-moment statistics, a Gram matrix) and all 1 (then reward-weighted sums too), among
the public contexts, among contexts all repeating the first round's (every other user's the same: a Gram matrix
of low rank, which the changed user's context alone completes), among contexts all alike (every arm's model
then alike, so that a noise shared between them cancels in their comparison), among near-tied arms (at angles
T^(−1/2) apart: the estimate least certain along the direction their comparison reads, :func:`near_tied`) and
among probes (a Gram matrix all but blind along one direction for the first half of the users, then arms along
that direction at lengths that read the estimate there at thresholds out to its noise's tails, :func:`probes`),
where the user's rewards move from 0 to 1 too.  They are ranked on coupled runs of the joint output, family by family —
each family's best in turn, so that one family whose pairs often play differently with little to tell (near-ties)
does not crowd out the others.  The other users' contexts of a pair are the same on both sides, fixed before the
run.  A lower bound never certifies privacy.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcheck.core import InvalidArgument, TableNeighbours
from privcheck.core.sequential import check_contexts, offered

from .adapters import PolicyMechanism, chosen_contexts
from .inputs import NO_DEPENDENCE, reward_levels, search_runs, search_size, searched
from .plan import KEEP_PAIRS

__all__ = [
    "ContextualTable",
    "JOINT_ADVERSARIES",
    "JointMechanism",
    "joint_input",
    "joint_parts",
    "joint_searched",
    "joint_search_size",
    "joint_pair_text",
    "check_joint_pairs",
    "split_contextual",
    "with_table_contexts",
]


def joint_adversaries() -> dict:
    """Who chooses the other users' contexts in a joint audit: nobody (``fixed``: the input's, fixed in advance),
    and ``mirroring-contexts``, which reverses each round's contexts in every run whose last action shown (the changed
    user's own left out) was not arm 0 — the contexts then follow the decisions the changed user's data moved."""
    from .adversaries import adversaries

    return {"fixed": None, "mirroring-contexts": adversaries(2, contextual=True)["mirroring-contexts"]}


#: the names of :func:`joint_adversaries`, said in reports
JOINT_ADVERSARIES = ("fixed", "mirroring-contexts")


def check_joint_pairs(policy, horizon: int, pairs) -> None:
    """Given joint pairs of the policy's shape, (horizon, n_arms, 2 + dim), their contexts within its bound."""
    K, d = policy.n_arms, policy.contexts.shape[2]
    for i, pair in enumerate(pairs):
        for side in pair:
            x = np.asarray(side, dtype=float)
            if x.shape != (horizon, K, 2 + d):
                raise InvalidArgument(
                    f"pairs=: pair {i + 1} holds an input of shape {x.shape}, not ({horizon}, {K}, {2 + d}) — per "
                    "round and arm, the reward, the mark of the audited user's round, and the arm's context"
                )
            check_contexts(x[:, :, 2:], horizon, K, policy.context_bound, f"pairs= (pair {i + 1})")


def joint_input(rewards, contexts, user: int) -> np.ndarray:
    """An input of a joint-DP audit, (T, K, 2 + dim): ``rewards`` (T × K) in channel 0, the mark of the audited
    user's round ``user`` (0-based) in channel 1, ``contexts`` (T × K × dim) in channels 2 …"""
    rewards = np.asarray(rewards, dtype=float)
    contexts = np.asarray(contexts, dtype=float)
    mark = np.zeros(rewards.shape)
    mark[user] = 1.0
    return np.concatenate([rewards[:, :, None], mark[:, :, None], contexts], axis=2)


def joint_parts(x) -> tuple[np.ndarray, int, np.ndarray]:
    """(rewards T × K, the marked round 0-based, contexts T × K × dim) of a joint input."""
    x = np.asarray(x, dtype=float)
    return x[:, :, 0], int(np.argmax(x[:, 0, 1])), x[:, :, 2:]


class JointMechanism(PolicyMechanism):
    """A contextual policy run on joint inputs (:func:`joint_input`): its contexts are the input's, and the marked
    user's own action is left out of the output (recorded as arm 0).  ``relation``: joint DP's
    (:class:`~.relations.Joint`)."""

    def __init__(self, policy, horizon: int, relation, channel=None, name: str = "policy", adversary=None):
        super().__init__(policy, horizon, relation, channel, name)
        self.adversary = adversary  # None: the other users' contexts fixed in advance (the input's)
        self.chooses_contexts = adversary is not None

    def _shortened(self, t: int):
        made = JointMechanism(self.policy, t, self.relation, self.channel, self.name, self.adversary)
        return made.with_releases(self.releases)

    def round_contexts(self, public, last, counts, t, own=False):
        """The input's contexts at the changed user's round and before any action is shown; else, against an
        adversary, those it chooses from the actions shown to the users before (the changed user's own left out)."""
        if self.adversary is None or own or last is None:
            return public
        return chosen_contexts(self.adversary, public, last, counts, t)

    def blank(self) -> np.ndarray:
        T = self.horizon
        return joint_input(np.zeros((T, self.policy.n_arms)), self.policy.contexts[:T], 0)

    def inputs(self, x: np.ndarray) -> tuple:
        T, K, d = self.horizon, self.policy.n_arms, self.policy.contexts.shape[2]
        if x.shape != (T, K, 2 + d):
            raise InvalidArgument(
                f"a joint-DP input of shape {x.shape} must be ({T}, {K}, {2 + d}): per round and arm, the reward, "
                "the mark of the audited user's round, and the arm's context"
            )
        rewards, user, contexts = joint_parts(x)
        return rewards, contexts, user + 1


def _quarter_turn(c: np.ndarray) -> np.ndarray:
    """Each context turned a quarter turn in its first two coordinates (reversed when it has one)."""
    if c.shape[-1] < 2:
        return -c
    out = c.copy()
    out[..., 0], out[..., 1] = -c[..., 1], c[..., 0]
    return out


def _changed_row(x, y) -> int:
    rows = np.nonzero(np.any(np.asarray(x) != np.asarray(y), axis=tuple(range(1, np.ndim(x)))))[0]
    return int(rows[0]) if rows.size else 0


def joint_candidates(reward_pairs: list, contexts: np.ndarray, levels: tuple = (0.0, 1.0)) -> tuple[list, list]:
    """(pairs, the family of each: 0 for those of the search's pairs, then one per set of other users' contexts)
    — joint pairs built from the Table-DP search's reward pairs and the public ``contexts`` (the module's
    docstring says which; rewards at the two ``levels``, 0 and 1 unless the audit's range says otherwise),
    duplicates dropped; the last round never changed (its user's data reach no other
    action)."""
    T, K = contexts.shape[:2]
    out, seen = [], set()
    family = 0  # which family the pairs added belong to (each pair's is kept in ``families``)
    families = []

    def add(rx, cx, ry, cy, r):
        a, b = joint_input(rx, cx, r), joint_input(ry, cy, r)
        key = a.tobytes() + b.tobytes()
        if r < T - 1 and not np.array_equal(a, b, equal_nan=True) and key not in seen:
            seen.add(key)
            out.append((a, b))
            families.append(family)

    rows = []
    for x, y in reward_pairs:
        r = _changed_row(x, y)
        rows.append(r)
        reversed_ = contexts.copy()
        reversed_[r] = -contexts[r]
        add(x, contexts, y, contexts, r)
        add(x, contexts, y, reversed_, r)
    repeated = np.broadcast_to(contexts[:1], contexts.shape)  # every user's the first's: a Gram matrix of rank ≤ K
    first = contexts[0][offered(contexts[0])[:1]]  # the first offered arm's context at the first round
    same = np.broadcast_to(first[None], contexts.shape)  # every arm of every user alike: models alike
    publics = [contexts, repeated, same]
    if contexts.shape[2] >= 2:
        norm = float(np.linalg.norm(first))
        publics.append(near_tied(T, K, contexts.shape[2], norm))
        if K >= 2:
            publics.append(probes(T, K, contexts.shape[2], norm))
    for r in list(dict.fromkeys([0, *rows]))[:JOINT_ROWS]:
        for family, public in enumerate(publics, start=1):
            public = np.array(public)
            for level in levels:
                base = np.full((T, K), level)
                for moved in (-public[r], _quarter_turn(public[r])):
                    other = public.copy()
                    other[r] = moved
                    add(base, public, base, other, r)
            low, high = np.full((T, K), levels[0]), np.full((T, K), levels[0])
            high[r] = levels[1]
            add(low, public, high, public, r)
    return out, families


#: the changed users' rounds the joint candidates are built at, at most (the first round, then the search's)
JOINT_ROWS = 4


def near_tied(horizon: int, n_arms: int, dim: int, norm: float) -> np.ndarray:
    """Every user's arms near-tied: at norm ``norm``, at angles spaced by T^(−1/2) around e₁ toward e₂, the same
    each round — the Gram matrix of T users is then least certain along e₂, by about as much as one user's context
    there moves it, and the arms' comparison reads exactly that direction (a quarter turn of a user's contexts
    points along it)."""
    phi = horizon**-0.5
    angles = phi * (np.arange(n_arms) - (n_arms - 1) / 2)
    c = np.zeros((n_arms, dim))
    c[:, 0], c[:, 1] = norm * np.cos(angles), norm * np.sin(angles)
    return np.broadcast_to(c, (horizon, n_arms, dim)).copy()


def probes(horizon: int, n_arms: int, dim: int, norm: float) -> np.ndarray:
    """Every user's first arm at ``norm``·e₁; in the first half of the rounds the other arms all but null (2⁻¹⁰ of
    ``norm`` along e₂), so that the Gram matrix of those users is all but blind along e₂ and one user's context
    there is most of what it holds; in the second half the other arms along ±e₂ at lengths falling geometrically
    from ``norm`` to ``norm``/64.  Against a first arm whose estimate is about its reward, an arm along e₂ of length
    s wins when the estimate along e₂ (with its width) exceeds about the first arm's score over s: the rounds of
    the second half read that estimate at thresholds from about one to about sixty-four times the first arm's —
    out to the tails of a noise added to it, where a change in its scale shows."""
    c = np.zeros((horizon, n_arms, dim))
    c[:, 0, 0] = norm
    half = horizon // 2
    late = np.arange(horizon) >= half
    lengths = np.where(late, norm * 64.0 ** (-(np.arange(horizon) - half) / max(horizon - half - 1, 1)), norm / 1024)
    signs = np.where(np.arange(n_arms) % 2 == 1, 1.0, -1.0)  # arms 1, 3, … along +e₂; 2, 4, … along −e₂
    c[:, 1:, 1] = lengths[:, None] * signs[None, 1:]
    return c


def most_candidates() -> int:
    """The most joint candidates :func:`joint_candidates` makes from a search's kept pairs."""
    return 2 * KEEP_PAIRS + 25 * JOINT_ROWS


def joint_search_size(mech, relation, start, shape, seed: int, cost, screening: int) -> int:
    """The most runs :func:`joint_searched` makes at ``screening`` (the Table-DP search's and the ranking's),
    computed without a run."""
    table = PolicyMechanism(mech.policy, mech.horizon, mech.relation.searched_on(), mech.channel, mech.name)
    shape = (mech.horizon, mech.policy.n_arms)
    searching = search_size(table, TableNeighbours(), start, shape, seed, cost, screening)
    return searching + most_candidates() * 2 * search_runs(screening)[1]


def joint_searched(mech, relation, pairs, start, shape, seed: int, planned, cost, screening: int, executor=None):
    """The joint pairs to audit and the notes that say how they were found: given pairs as given; else the
    candidates of :func:`joint_candidates`, ranked family by family by how many of their coupled runs play
    differently (the user's own action left out, :func:`_by_family`), the :data:`~.plan.KEEP_PAIRS` first kept.
    The ranking's runs (at most :func:`most_candidates` pairs') are planned with the Table-DP search's, whose paths
    run on ``executor``."""
    _, coupled_runs = search_runs(screening)
    if pairs is not None:
        pairs = [(np.asarray(a, float), np.asarray(b, float)) for a, b in pairs]
        moved = mech.coupled_differences(pairs, seed, coupled_runs, executor)
        return pairs, [] if any(moved) else [NO_DEPENDENCE.format(runs=coupled_runs, pairs=len(pairs))]
    table = PolicyMechanism(mech.policy, mech.horizon, mech.relation.searched_on(), mech.channel, mech.name)
    ranking = most_candidates() * 2 * coupled_runs  # the ranking's runs, at most, planned with the search's
    told = {}

    def plan_with_ranking(search_total: int):
        told["progress"] = planned(search_total + ranking)
        return told["progress"]

    shape = (mech.horizon, mech.policy.n_arms)
    reward_pairs, notes = searched(
        table, TableNeighbours(), None, start, shape, seed, plan_with_ranking, cost, screening, executor
    )
    lo, hi = reward_levels(start)
    candidates, families = joint_candidates(reward_pairs, mech.policy.contexts, (lo, hi))
    moved = mech.coupled_differences(candidates, seed, coupled_runs, executor)
    if told.get("progress"):
        told["progress"](ranking)
    order = _by_family(moved, families)[:KEEP_PAIRS]
    notes = [
        *notes,
        f"joint pairs: {len(candidates)} built from those pairs (the changed user's contexts kept or reversed) and at "
        f"the first of their rounds (the user's contexts reversed or turned on rewards all {lo:g} and all {hi:g}, or "
        f"their rewards moved from {lo:g} to {hi:g}; the other users' contexts the public ones, every round's the "
        f"first's, every arm's alike, near-tied, or probes along a direction the first half of them all but leave "
        f"out); {len(order)} of them screened, ranked family by family by how often their {coupled_runs} coupled "
        "runs played differently with the user's own action left out",
    ]
    if not order:
        return candidates, [*notes, NO_DEPENDENCE.format(runs=coupled_runs, pairs=len(candidates))]
    return [candidates[i] for i in order], notes


def _by_family(moved: list, families: list) -> list:
    """The candidates that played differently, ranked family by family: each family's best (most coupled runs
    that differed; the first built on ties), then each family's second, …"""
    ranked = {}
    for i in sorted((i for i in range(len(moved)) if moved[i]), key=lambda i: (-moved[i], i)):
        ranked.setdefault(families[i], []).append(i)
    out, depth = [], 0
    while any(depth < len(v) for v in ranked.values()):
        out += [v[depth] for _, v in sorted(ranked.items()) if depth < len(v)]
        depth += 1
    return out


def joint_pair_text(a, b) -> str:
    """A joint pair in words: the changed user's round, their rewards and contexts on either side, and the other
    users' rewards and contexts (the same on both sides)."""
    import json

    ra, user, ca = joint_parts(a)
    rb, _, cb = joint_parts(b)

    def said(v):  # (an arm not offered, NaN, said as null)
        v = np.asarray(v, dtype=float)
        return json.dumps(np.where(np.isnan(v), None, v).tolist())

    parts = []
    if not np.array_equal(ra[user], rb[user]):
        parts.append(f"rewards {said(ra[user])} → {said(rb[user])}")
    if not np.array_equal(ca[user], cb[user], equal_nan=True):
        parts.append(f"contexts {said(ca[user])} → {said(cb[user])}")
    rewards, contexts = np.delete(ra, user, axis=0), np.delete(ca, user, axis=0)
    level = f"all {rewards.flat[0]:g}" if rewards.size and np.all(rewards == rewards.flat[0]) else "as in the JSON"
    if contexts.size and np.all(contexts == contexts[:1, :1]):
        alike = f"every arm's {said(contexts[0, 0])}"
    elif contexts.size and np.all(contexts == contexts[:1]):
        alike = f"every round's {said(contexts[0])}"
    else:
        alike = "as in the JSON"
    return (
        f"the user of round {user + 1} (their own action left out): {'; '.join(parts) or 'nothing'}; the other "
        f"users' rewards {level}, their contexts {alike}"
    )


@dataclass(frozen=True)
class ContextualTable:
    """A contextual reward table, as a Python user writes one: ``rewards`` (T × K), ``contexts`` (T × K × dim; a
    row of NaN for an arm not offered at a round), and — a side of a joint-DP pair — ``user``, the changed user's
    round (from 1).  ``input=`` and ``pairs=`` take it as they take the JSON object ``{"rewards", "contexts",
    "user"}`` (:func:`split_contextual`); the engines pack it into their own layout (:func:`joint_input`)."""

    rewards: object
    contexts: object
    user: int | None = None

    def as_dict(self) -> dict:
        """Its JSON object's form."""
        out = {"rewards": self.rewards, "contexts": self.contexts}
        return out if self.user is None else {**out, "user": self.user}


def split_contextual(input, pairs, relation):
    """(input, pairs, contexts) from contextual tables — :class:`ContextualTable`, or JSON objects ``{"rewards": T ×
    K, "contexts": T × K × d}``
    (a joint pair's sides also ``"user"``: the changed user's round, from 1) — as the engines take them: the
    rewards as the input, under joint DP each pair's sides as joint inputs (:func:`joint_input`), and the contexts
    they hold (None when no table is contextual; under joint DP with only pairs given, the first side's).  Under
    Table, View or Interactive DP the contexts are public: every contextual table given must hold the same."""
    found, joint_seen = [], []

    def table(obj, what: str, user: bool = False):
        if isinstance(obj, ContextualTable):
            obj = obj.as_dict()
        if not isinstance(obj, dict):
            return obj
        unknown = set(obj) - {"rewards", "contexts", "user"}
        if unknown or "rewards" not in obj or "contexts" not in obj:
            raise InvalidArgument(
                f'{what}: a contextual table is {{"rewards": T × K, "contexts": T × K × dim'
                + (', "user": the changed user\'s round (from 1)' if user else "")
                + "}"
                + (f", not keys {sorted(obj)}" if unknown or len(obj) < 2 else "")
            )
        try:
            rewards = np.asarray(obj["rewards"], dtype=float)
            contexts = np.asarray(obj["contexts"], dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgument(f"{what}: rewards and contexts must be numbers") from None
        if rewards.ndim != 2 or contexts.ndim != 3 or contexts.shape[:2] != rewards.shape:
            raise InvalidArgument(
                f"{what}: rewards {rewards.shape} and contexts {contexts.shape} must be T × K and T × K × dim"
            )
        if not user:
            if "user" in obj:
                raise InvalidArgument(f'{what}: "user" applies to a joint pair (definition="joint")')
            found.append(contexts)
            return rewards
        u = obj.get("user")
        if isinstance(u, bool) or not isinstance(u, int) or not 1 <= u < rewards.shape[0]:
            raise InvalidArgument(
                f"{what}: a joint pair's table needs \"user\", the changed user's round, an integer in [1, "
                f"{rewards.shape[0] - 1}] (the last round's user reaches no other action)"
            )
        joint_seen.append(contexts)
        return joint_input(rewards, contexts, u - 1)

    input = table(input, "input=")
    if pairs is not None and not isinstance(pairs, (str, bytes)):
        try:
            pairs = [tuple(table(side, "pairs=", relation.marks_user) for side in pair) for pair in pairs]
        except TypeError:
            pass  # (not a list of pairs: the argument checks say so)
    if not found:  # (a joint pair's contexts, public for the search and the cost, when no table gives them)
        return input, pairs, joint_seen[0] if joint_seen else None
    first = found[0]
    if any(c.shape != first.shape or not np.array_equal(c, first, equal_nan=True) for c in found[1:]):
        raise InvalidArgument(
            "the contextual tables given hold different contexts: under Table, View or Interactive DP the contexts "
            'are public, the same on both sides (for one user\'s contexts changed, definition="joint")'
        )
    return input, pairs, first


def with_table_contexts(input, pairs, relation, contexts=None):
    """(input, pairs, contexts) with contextual tables read (:func:`split_contextual`): the contexts they hold are
    the audit's, and must agree with ``contexts=`` when both are given."""
    input, pairs, held = split_contextual(input, pairs, relation)
    if held is None:
        return input, pairs, contexts
    if contexts is not None and not np.array_equal(np.asarray(contexts, dtype=float), held, equal_nan=True):
        raise InvalidArgument("contexts= differs from the contexts the contextual tables hold: give one of them")
    return input, pairs, held
