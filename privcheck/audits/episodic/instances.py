"""The tabular MDPs an episodic audit draws its users' response tapes from, and the input search over tapes.

An instance is a tabular MDP (initial distribution, transitions P(s' | s, a), mean rewards in [0, 1]); its users'
tapes (:class:`privcheck.core.episodic.Tapes`) are drawn from it with a fixed seed — the same in every audit, so that
the inputs are defined before any run.  :func:`candidate_pairs` proposes neighbouring tape sets: one user's tape
replaced, early, in the middle and second to last (the last user's change reaches no other episode), at the reward
extremes, towards a rare state, or both — on the instance's population and on a quiet one (every other user stays in
state 0, rewarded nothing), where the changed user is the only signal.  The sampled engine's pair screening keeps the
pairs whose outputs differ most; every bound is certified on fresh runs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from privcheck.core import InvalidArgument
from privcheck.core.episodic import Tapes

__all__ = ["MDP", "MDPS", "mdp_named", "tapes_of", "candidate_pairs", "INSTANCE_SEED"]

#: the seed the users' tapes are drawn with (the same in every audit)
INSTANCE_SEED = 0


class MDP(NamedTuple):
    """A tabular MDP: ``initial`` (S,), ``transitions`` (S, A, S), ``rewards`` (S, A) means in [0, 1]."""

    name: str
    initial: np.ndarray
    transitions: np.ndarray
    rewards: np.ndarray


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
        raise InvalidArgument(f"mdp={name!r} must be one of {', '.join(MDPS)}") from None


def tapes_of(mdp: MDP, episodes: int, horizon: int, seed: int = INSTANCE_SEED) -> Tapes:
    """``episodes`` users' tapes drawn from ``mdp`` (Bernoulli rewards of its means, next states from its
    transitions), with ``seed``."""
    rng = np.random.default_rng(seed)
    S, A = mdp.rewards.shape
    initial = rng.choice(S, size=episodes, p=mdp.initial)
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


def candidate_pairs(mdp: MDP, episodes: int, horizon: int) -> list:
    """The neighbouring tape sets proposed (see the module docstring), as (x, x', what changed) — x packed."""
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
    for base, where, users in (("a quiet population", quiet, _positions(episodes)), (mdp.name, drawn, [0])):
        for user in users:
            for said, x, y in changes:
                a, b = _changed(where, user, *x), _changed(where, user, *y)
                out.append((a.packed(), b.packed(), f"user {user + 1}'s tape ({said}) among {base}"))
    return out
