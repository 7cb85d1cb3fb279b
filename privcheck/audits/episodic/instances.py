"""The tabular MDPs an episodic audit draws its users' response tapes from, and the input search over tapes.

An instance is a tabular MDP (initial distribution, transitions P(s' | s, a), mean rewards in [0, 1]): a built-in
(:data:`MDPS`) or a user's environment in the form of gymnasium's toy-text environments — a table ``P[s][a]`` of
outcomes (probability, next state, reward, terminated), as FrozenLake, Taxi and CliffWalking hold it
(:func:`mdp_of_env`).  Its users' tapes (:class:`privcheck.core.episodic.Tapes`) are drawn from it with a fixed seed —
the same in every audit, so that the inputs are defined before any run.  The instance only chooses which inputs are
proposed: any tapes are inputs of the audited agent, so a bound certified on them holds whatever the instance.
:func:`candidate_pairs` proposes neighbouring tape sets: one user's tape replaced, early, in the middle and second to
last (the last user's change reaches no other episode), at the reward extremes, towards a rare state, or both — on
the instance's population and on a quiet one (every other user stays in state 0, rewarded nothing), where the
changed user is the only signal.  The sampled engine's pair screening keeps the
pairs whose outputs differ most; every bound is certified on fresh runs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from privcheck.core import InvalidArgument, check_int
from privcheck.core.episodic import Tapes

__all__ = [
    "MDP",
    "MDPS",
    "mdp_named",
    "mdp_of_env",
    "mdp_for",
    "environment_of",
    "said_in_python",
    "tapes_of",
    "candidate_pairs",
    "INSTANCE_SEED",
]

#: the seed the users' tapes are drawn with (the same in every audit)
INSTANCE_SEED = 0


class MDP(NamedTuple):
    """A tabular MDP: ``initial`` (S,), ``transitions`` (S, A, S), ``rewards`` (S, A) means in [0, 1] — a user's
    reward a Bernoulli draw of its mean — or, read from an environment, its ``outcomes``: (probabilities, next states,
    rewards in [0, 1]), each (S, A, M), a step's next state and reward drawn together as one of its M outcomes
    (probability 0 pads); ``note`` says how it was read (None: a built-in)."""

    name: str
    initial: np.ndarray
    transitions: np.ndarray
    rewards: np.ndarray
    outcomes: tuple | None = None
    note: str | None = None


def chain(states: int, actions: int) -> MDP:
    """A chain: the last action moves right (with probability 0.9), every other moves left; reward 1 at the right
    end under the last action, 0.05 at the left end under the others."""
    S, A = states, actions
    P, R = _leftwards(S, A)
    for s in range(S):
        P[s, A - 1, min(s + 1, S - 1)] += 0.9
        P[s, A - 1, s] += 0.1
    R[0, : max(A - 1, 1)] = 0.05
    R[S - 1, A - 1] = 1.0
    return MDP("chain", _start(S), P, R)


def riverswim(states: int, actions: int) -> MDP:
    """RiverSwim (Strehl and Littman 2008), rewards scaled to [0, 1]: swimming right (the last action) moves right
    with probability 0.35, stays with 0.6 and drifts left with 0.05 (at the ends: 0.6/0.4 to stay); every other action
    moves left surely; reward 0.005 at the left bank, 1 at the right under swimming."""
    S, A = states, actions
    P, R = _leftwards(S, A)
    for s in range(S):
        if S == 1:
            P[s, A - 1, s] = 1.0
            continue
        right, left = min(s + 1, S - 1), max(s - 1, 0)
        if s == 0:
            P[s, A - 1, s] += 0.6
            P[s, A - 1, right] += 0.4
        elif s == S - 1:
            P[s, A - 1, s] += 0.6
            P[s, A - 1, left] += 0.4
        else:
            P[s, A - 1, right] += 0.35
            P[s, A - 1, s] += 0.6
            P[s, A - 1, left] += 0.05
    R[0, : max(A - 1, 1)] = 0.005
    R[S - 1, A - 1] = 1.0
    return MDP("riverswim", _start(S), P, R)


def random_mdp(states: int, actions: int) -> MDP:
    """A random tabular MDP (seed 1): Dirichlet(1) transitions, uniform mean rewards, a uniform initial state."""
    rng = np.random.default_rng(1)
    P = rng.dirichlet(np.ones(states), size=(states, actions))
    R = rng.uniform(size=(states, actions))
    return MDP("random", np.full(states, 1.0 / states), P, R)


def _leftwards(S: int, A: int) -> tuple:
    """(transitions, rewards) of S states and A actions where every action but the last moves left surely (state 0
    stays), the last's row left empty for the instance to fill, and no reward yet."""
    P = np.zeros((S, A, S))
    for s in range(S):
        P[s, : A - 1, max(s - 1, 0)] = 1.0
    return P, np.zeros((S, A))


def _start(S: int) -> np.ndarray:
    p = np.zeros(S)
    p[0] = 1.0
    return p


#: the built-in instances by name
MDPS = {"chain": chain, "riverswim": riverswim, "random": random_mdp}


def mdp_named(name: str, states: int, actions: int) -> MDP:
    """The built-in instance ``name`` at the given size, or an :class:`InvalidArgument` listing them."""
    try:
        return MDPS[name](states, actions)
    except (KeyError, TypeError):
        raise InvalidArgument(
            f"mdp={name!r} must be one of {', '.join(MDPS)}, or an environment with a toy-text table P[s][a]"
        ) from None


def mdp_for(mdp, states: int | None, actions: int | None) -> MDP:
    """The instance ``mdp`` names: a built-in's name at ``states`` × ``actions``, or an environment read by
    :func:`mdp_of_env` — whose states and actions are its own, and must be ``states`` and ``actions`` where given."""
    if isinstance(mdp, str):
        if states is None or actions is None:
            raise InvalidArgument(
                f"states={states!r}, actions={actions!r}: give both for the built-in MDP mdp={mdp!r}, or an "
                "environment as mdp= (its own are read from its table P)"
            )
        return mdp_named(mdp, check_int("states", states, 1), check_int("actions", actions, 1))
    read = mdp_of_env(environment_of(mdp))
    S, A = read.rewards.shape
    for given, own, what in ((states, S, "states"), (actions, A, "actions")):
        if given is not None and given != own:
            raise InvalidArgument(f"{what}={given} but the environment mdp= has {own} {what} (its table P)")
    return read


def environment_of(mdp):
    """The environment ``mdp`` gives: itself where it holds a table ``P``, else what it makes called with no arguments
    (a class, a factory)."""
    if not _is_maker(mdp):
        return mdp
    try:
        return mdp()
    except Exception as exc:
        said = getattr(mdp, "__name__", type(mdp).__name__)
        raise InvalidArgument(f"mdp={said}: made with no arguments, it raised {type(exc).__name__}: {exc}") from None


def said_in_python(mdp) -> str:
    """How a reproduce line writes the environment ``mdp``: a class's or factory's name; for an environment made
    by gymnasium (it carries its ``spec``), ``gymnasium.make(id, **kwargs)``; else its class called with no
    arguments."""
    if _is_maker(mdp):
        return getattr(mdp, "__name__", repr(mdp))
    spec = getattr(mdp, "spec", None)
    if isinstance(getattr(spec, "id", None), str):
        kwargs = getattr(spec, "kwargs", None) or {}
        return f"gymnasium.make({spec.id!r}" + "".join(f", {k}={v!r}" for k, v in kwargs.items()) + ")"
    return f"{type(mdp).__name__}()"


def _is_maker(mdp) -> bool:
    """Whether ``mdp`` makes the environment (a class, a factory) rather than being one (it holds no table)."""
    return callable(mdp) and _own(mdp, "P") is None


def _own(env, name: str):
    """The environment's attribute ``name`` — its own, or its ``unwrapped``'s (gymnasium's wrappers do not pass the
    toy-text attributes on) — or None; a class has none (it makes environments)."""
    for obj in (env, getattr(env, "unwrapped", None)):
        value = getattr(obj, name, None) if obj is not None and not isinstance(obj, type) else None
        if value is not None:
            return value
    return None


def _table_of(env):
    """The environment's table ``P`` (:func:`_own`), or an :class:`InvalidArgument` saying what it must be."""
    table = _own(env, "P")
    if table is not None:
        return table
    raise InvalidArgument(
        f"mdp={env!r} must be a built-in's name ({', '.join(MDPS)}) or an environment with a table P[s][a] of "
        "(probability, next state, reward, terminated) outcomes, as gymnasium's toy-text environments have"
    )


def _rows(table, what: str) -> list:
    """``table``'s entries in order: a sequence's, or a mapping's under the keys 0 … n−1."""
    if isinstance(table, dict):
        if sorted(table) != list(range(len(table))):
            raise InvalidArgument(f"mdp=: {what} must be keyed 0 … n−1, got keys {sorted(table, key=repr)[:6]!r}")
        return [table[i] for i in range(len(table))]
    try:
        return list(table)
    except TypeError:
        raise InvalidArgument(f"mdp=: {what} must be a sequence or a mapping, got {type(table).__name__}") from None


def mdp_of_env(env) -> MDP:
    """The tabular MDP of an environment that holds its dynamics as gymnasium's toy-text environments do: ``P[s][a]``
    a list of outcomes (probability, next state, reward, terminated) — S states, A actions, every state the same A;
    the initial distribution its ``initial_state_distrib`` where it has one (else state 0, said in the note).  A
    step's next state and reward are drawn together as one outcome; rewards outside [0, 1] are mapped to it by
    r ↦ (r − min)/(max − min) over the table's (the interval the field's private agents are calibrated for; said in
    the note); a terminated outcome's next state is taken as the table gives it (toy-text terminal states loop on
    themselves), the episode running its H steps."""
    states = _rows(_table_of(env), "P")
    S = len(states)
    if S < 1:
        raise InvalidArgument("mdp=: the environment's table P has no states")
    rows = [_rows(row, f"P[{s}]") for s, row in enumerate(states)]
    A = len(rows[0])
    if A < 1 or any(len(r) != A for r in rows):
        raise InvalidArgument(
            f"mdp=: every state of P must have the same actions, got {sorted({len(r) for r in rows})} actions"
        )
    M = max(len(list(out)) for r in rows for out in r)
    prob, nxt, rew = np.zeros((S, A, M)), np.zeros((S, A, M), dtype=np.int64), np.zeros((S, A, M))
    for s, r in enumerate(rows):
        for a, out in enumerate(r):
            out = list(out)
            for m, o in enumerate(out):
                try:
                    p, n, rw = float(o[0]), o[1], float(o[2])
                    whole = int(n) == n
                except (TypeError, IndexError, ValueError, OverflowError):
                    raise InvalidArgument(
                        f"mdp=: P[{s}][{a}][{m}] = {o!r} must be (probability, next state, reward, terminated)"
                    ) from None
                if not (0.0 <= p <= 1.0) or not np.isfinite(rw) or not whole or not 0 <= int(n) < S:
                    raise InvalidArgument(
                        f"mdp=: P[{s}][{a}][{m}] = {o!r}: a probability in [0, 1], a next state in 0 … {S - 1} and "
                        "a finite reward"
                    )
                prob[s, a, m], nxt[s, a, m], rew[s, a, m] = p, int(n), rw
            if not out or abs(prob[s, a].sum() - 1.0) > 1e-9:
                raise InvalidArgument(
                    f"mdp=: the outcomes of P[{s}][{a}] have probabilities summing to {prob[s, a].sum():g}, not 1"
                )
    prob /= prob.sum(axis=-1, keepdims=True)
    notes = []
    lo, hi = float(rew[prob > 0].min()), float(rew[prob > 0].max())
    if lo < 0.0 or hi > 1.0:
        if hi > lo:
            rew = np.clip((rew - lo) / (hi - lo), 0.0, 1.0)
            shift = f"r + {-lo:g}" if lo < 0 else f"r − {lo:g}"
            notes.append(f"its rewards in [{lo:g}, {hi:g}] mapped to [0, 1] by r ↦ ({shift})/{hi - lo:g}")
        else:
            rew = np.zeros_like(rew)
            notes.append(f"its rewards, all {lo:g}, taken as 0")
    initial = _own(env, "initial_state_distrib")
    if initial is None:
        initial = _start(S)
        notes.append("it has no initial_state_distrib: every user starts in state 0")
    initial = np.asarray(initial, dtype=float)
    if initial.shape != (S,) or np.any(initial < 0) or abs(initial.sum() - 1.0) > 1e-9:
        raise InvalidArgument(f"mdp=: initial_state_distrib must be {S} probabilities summing to 1")
    transitions = np.zeros((S, A, S))
    np.add.at(transitions, (*np.indices((S, A, M))[:2], nxt), prob)
    name = type(getattr(env, "unwrapped", None) or env).__name__
    note = f"the users' tapes are drawn from the environment {name} ({S} states, {A} actions, read from its table P" + (
        f"; {'; '.join(notes)})" if notes else ")"
    )
    return MDP(name, initial / initial.sum(), transitions, (prob * rew).sum(axis=-1), (prob, nxt, rew), note)


def tapes_of(mdp: MDP, episodes: int, horizon: int, seed: int = INSTANCE_SEED) -> Tapes:
    """``episodes`` users' tapes drawn from ``mdp`` (Bernoulli rewards of its means, next states from its
    transitions), with ``seed``."""
    rng = np.random.default_rng(seed)
    S, A = mdp.rewards.shape
    initial = rng.choice(S, size=episodes, p=mdp.initial)
    if mdp.outcomes is not None:  # one outcome a step: its next state and reward together
        prob, nxt, rew = mdp.outcomes
        last = prob.shape[-1] - 1 - np.argmax(prob[..., ::-1] > 0, axis=-1)  # (S, A): the last of positive probability
        u = rng.random((episodes, horizon, S, A, 1))
        m = np.minimum((u >= np.cumsum(prob, axis=-1)).sum(axis=-1), last)
        s_, a_ = np.indices((S, A))
        return Tapes(initial.astype(np.int64), rew[s_, a_, m], nxt[s_, a_, m])
    rewards = (rng.random((episodes, horizon, S, A)) < mdp.rewards).astype(float)
    cum = np.cumsum(mdp.transitions, axis=-1)
    u = rng.random((episodes, horizon, S, A, 1))
    nxt = np.minimum((u > cum).sum(axis=-1), S - 1)
    return Tapes(initial.astype(np.int64), rewards, nxt.astype(np.int64))


def _positions(episodes: int) -> list:
    """The changed user's episodes (0-based): the first, the middle one, the second to last."""
    return sorted({0, (episodes - 1) // 2, episodes - 2})


def _quiet(episodes: int, horizon: int, states: int, actions: int) -> Tapes:
    z = np.zeros((episodes, horizon, states, actions))
    return Tapes(np.zeros(episodes, dtype=np.int64), z, z.astype(np.int64))


def _changed(base: Tapes, user: int, reward, state) -> Tapes:
    """``base`` with user ``user``'s tape given the reward ``reward`` everywhere and next state ``state`` everywhere
    (None: the base's), marked."""
    r, n = base.rewards.copy(), base.next_states.copy()
    if reward is not None:
        r[user] = reward
    if state is not None:
        n[user] = state
    return Tapes(base.initial, r, n, user)


def candidate_pairs(mdp: MDP, episodes: int, horizon: int, read: int | None = None) -> list:
    """The neighbouring tape sets proposed (see the module docstring), as (x, x', what changed) — x packed; where the
    runs are read on their first ``read`` episodes only, the changed user is placed among those."""
    if episodes < 2:
        raise InvalidArgument(
            "episodes=1: under joint DP per episode the one user's own actions are left out and nobody else acts — "
            "give episodes= of 2 or more"
        )
    S, A = mdp.rewards.shape
    rare = S - 1
    changes = [("rewards 1 → 0", (1.0, None), (0.0, None))]
    if S > 1:
        changes += [
            (f"next states {rare} → 0", (None, rare), (None, 0)),
            (f"rewards 1 → 0 and next states {rare} → 0", (1.0, rare), (0.0, 0)),
        ]
    quiet = _quiet(episodes, horizon, S, A)
    drawn = tapes_of(mdp, episodes, horizon)
    out = []
    users = _positions(episodes if read is None else read)
    for base, where, users in (("a quiet population", quiet, users), (mdp.name, drawn, [0])):
        for user in users:
            for said, x, y in changes:
                a, b = _changed(where, user, *x), _changed(where, user, *y)
                out.append((a.packed(), b.packed(), f"user {user + 1}'s tape ({said}) among {base}"))
    return out
