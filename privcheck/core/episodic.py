"""Episodic agents as the field writes them, and the response tapes they are run on.

An episodic agent is a factory ``make(...)`` returning, for one run, an object with

* ``act(k, h, state) -> action`` — episode k = 1 … K, step h = 1 … H, states 0 … S−1, actions 0 … A−1;
* ``update(k, h, state, action, reward, next_state)`` after every step;
* ``end_episode(k)``, where the code has one, after the episode's last update.

The factory receives, by keyword, whichever of ``episodes``, ``horizon``, ``states``, ``actions``, ``rng`` (a
:class:`numpy.random.Generator` of its own for that run) and the claim's parameters (``epsilon``, ``delta``, ``rho``,
…) it declares — also under the field's usual spellings (:data:`EPISODIC_ALIASES`: ``K``, ``H``, ``S``, ``A``,
``n_states``, …) — and the user's own parameters given with ``factory_args``.  A factory that also declares ``runs``
makes a *batched* agent: called once for a batch of runs with one generator, its ``act`` takes and returns an array
of one state and one action per run, and ``update`` arrays likewise (the built-in agents are written so, for speed).
A factory that declares ``dim`` or ``features`` is a linear MDP's agent: the audit gives it the dimension and the
public features φ(s, a) (:func:`linear_features`: ‖φ‖₂ ≤ 1, on a grid); its users' tapes stay tabular.
An agent is told apart from a bandit policy by its signature: it declares ``episodes`` or ``states`` (or a usual
spelling of them), or its class's ``act`` takes three arguments (:func:`is_episodic`).  The field's step-level shapes
are run as this protocol (:mod:`privcheck.core.episode_shapes`): a run object with ``select_action(state)`` and
``update(state, action, reward, next_state[, done])``, and a training loop that declares ``env`` and runs itself on a
gymnasium-style environment serving the users' episodes.

One user is one episode.  What a user would answer is fixed before any run, as a response tape
(:class:`Tapes`): their initial state, and for every step h, state s and action a, the reward and next state they
would give — so that neighbouring inputs (one user's tape replaced: :class:`~.neighbours.EpisodeNeighbours`) are
defined before the agent acts.  A run of the agent on tapes (:func:`run_episodes`) outputs every episode's actions —
the changed user's own recorded as 0, where a relation leaves them out — or what the agent publishes (``releases``:
attributes of the run object read after each episode, a method called).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

from .episode_shapes import ENV, StepRun, TapeEnv, is_step_level, step_level_class
from .errors import InvalidArgument, TargetError, check_int, raised
from .protocols import EndsEpisodes, EpisodicRun, provides
from .published import as_rows, published
from .sequential import matched_keywords

__all__ = [
    "Tapes",
    "EpisodicAgent",
    "is_episodic",
    "linear_features",
    "run_episodes",
    "EPISODIC_ALIASES",
    "EPISODIC_INSTANCE",
    "FEATURE_GRID_BITS",
]

#: the keywords an episodic factory may declare, besides ``rng``, ``seed``, ``runs``, ``dim``, ``features`` and the
#: claim's parameters
EPISODIC_INSTANCE = ("episodes", "horizon", "states", "actions")
#: a linear MDP's public feature map φ(s, a) lies on the grid 2^-FEATURE_GRID_BITS (:func:`linear_features`)
FEATURE_GRID_BITS = 4
#: the field's other spellings of those keywords (said in the report)
EPISODIC_ALIASES = {
    "K": "episodes",
    "n_episodes": "episodes",
    "num_episodes": "episodes",
    "H": "horizon",
    "episode_length": "horizon",
    "S": "states",
    "n_states": "states",
    "num_states": "states",
    "nS": "states",
    "A": "actions",
    "n_actions": "actions",
    "num_actions": "actions",
    "nA": "actions",
    "eps": "epsilon",
    "random_state": "rng",
    "d": "dim",
    "feature_dim": "dim",
    "phi": "features",
}
#: the keywords by which a factory asks for a linear MDP's features (it is then given ``dim`` and ``features``)
_LINEAR = {"dim", "d", "feature_dim", "features", "phi"}
#: the names that tell an episodic factory from a bandit policy's (never ``K``, ``H``, ``A``: a bandit's arms, …)
_DECLARED = {"episodes", "n_episodes", "num_episodes", "states", "n_states", "num_states", "nS"}
#: the keyword a batched agent's factory declares: it is given the number of runs of a batch
RUNS = "runs"


@dataclass(frozen=True)
class Tapes:
    """The users' response tapes, one per episode: ``initial`` (K,) their initial states; ``rewards`` (K, H, S, A)
    the reward each would give at step h in state s after action a; ``next_states`` (K, H, S, A) the state they would
    move to; ``user`` the audited user's episode (0-based; None: nobody marked).  :meth:`packed` is the form a pair's
    sides take in an audit and its witness: one row per episode, ``[mark, initial, rewards…, next_states…]``."""

    initial: np.ndarray
    rewards: np.ndarray
    next_states: np.ndarray
    user: int | None = None

    @property
    def shape(self) -> tuple:
        """(episodes, horizon, states, actions)."""
        return tuple(int(n) for n in self.rewards.shape)

    def packed(self) -> np.ndarray:
        """One row per episode: the mark, the initial state, the rewards, the next states (floats)."""
        k = self.shape[0]
        mark = np.zeros((k, 1))
        if self.user is not None:
            mark[self.user] = 1.0
        return np.hstack(
            [mark, self.initial.reshape(k, 1), self.rewards.reshape(k, -1), self.next_states.reshape(k, -1)]
        ).astype(float)

    def first(self, n: int) -> "Tapes":
        """The first ``n`` users' tapes (the marked user kept where among them)."""
        user = self.user if self.user is not None and self.user < n else None
        return Tapes(self.initial[:n], self.rewards[:n], self.next_states[:n], user)

    @classmethod
    def unpacked(cls, x, horizon: int, states: int, actions: int) -> "Tapes":
        """The tapes of a packed input (:meth:`packed`), checked: bad input is an :class:`InvalidArgument`."""
        a = np.asarray(x, dtype=float)
        per = horizon * states * actions
        if a.ndim != 2 or a.shape[1] != 2 + 2 * per:
            raise InvalidArgument(
                f"an episodic input must be episodes × {2 + 2 * per} (the mark, the initial state, then the {per} "
                f"rewards and the {per} next states of horizon {horizon} × states {states} × actions {actions}), "
                f"not shape {a.shape}"
            )
        marks = np.nonzero(a[:, 0] != 0)[0]
        return cls.checked(
            a[:, 1], a[:, 2 : 2 + per], a[:, 2 + per :], (horizon, states, actions), None if marks.size == 0 else marks
        )

    @classmethod
    def checked(cls, initial, rewards, next_states, hsa: tuple, user=None) -> "Tapes":
        """Tapes from their parts, every state an integer among ``states`` and every reward finite."""
        horizon, states, actions = hsa
        initial = np.asarray(initial, dtype=float)
        k = initial.shape[0] if initial.ndim == 1 else 0
        try:
            r = np.asarray(rewards, dtype=float).reshape(k, horizon, states, actions)
            n = np.asarray(next_states, dtype=float).reshape(k, horizon, states, actions)
        except ValueError:
            raise InvalidArgument(
                f"tapes must hold, per episode, horizon {horizon} × states {states} × actions {actions} rewards and "
                "next states"
            ) from None
        for what, s in (("initial state", initial), ("next state", n)):
            if not np.all((s == np.round(s)) & (s >= 0) & (s < states)):
                raise InvalidArgument(f"a tape's {what} is not one of the {states} states 0 … {states - 1}")
        if not np.isfinite(r).all():
            raise InvalidArgument("a tape holds a reward that is NaN or infinite")
        if user is not None:
            user = np.atleast_1d(user)
            if user.size != 1:
                raise InvalidArgument("tapes mark more than one user")
            user = int(user[0])
        return cls(initial.astype(np.int64), r, n.astype(np.int64), user)


def linear_features(states: int, actions: int, dim: int) -> np.ndarray:
    """The public feature map of a linear MDP audit, φ(s, a) ∈ ℝ^dim for every state and action, (states, actions,
    dim): the one-hot vectors where dim ≥ states·actions, else Gaussian directions of seed 0 normalised to norm 1 and
    cut toward zero onto the grid 2^-:data:`FEATURE_GRID_BITS` — every φ on the grid with ‖φ‖₂ ≤ 1, the bound the
    field's analyses assume (a feature at norm 1 exactly where one-hot).  The features are public (the instance's,
    like its states); the users' tapes stay tabular, so neighbouring inputs are what they are for a tabular agent."""
    states, actions, dim = (check_int(n, v, 1) for n, v in (("states", states), ("actions", actions), ("dim", dim)))
    n = states * actions
    if dim >= n:
        phi = np.eye(n, dim)
    else:
        v = np.random.default_rng([0, states, actions, dim]).standard_normal((n, dim))
        scale = float(1 << FEATURE_GRID_BITS)
        phi = np.trunc(v / np.linalg.norm(v, axis=1, keepdims=True) * scale) / scale
    return phi.reshape(states, actions, dim)


def is_episodic(obj) -> bool:
    """Whether ``obj`` is an episodic agent's factory (or class): it declares ``episodes`` or ``states`` (or a usual
    spelling of them that no bandit uses: ``K`` is a bandit's arms), or it is a class whose ``act`` takes three
    arguments (k, h, state), or a step agent's class (:func:`~.episode_shapes.step_level_class`: a contextual
    bandit's ``update(context, action, reward)`` takes three)."""
    try:
        names = set(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        names = set()
    if names & _DECLARED or step_level_class(obj):
        return True
    if not (isinstance(obj, type) and provides(obj, EpisodicRun)):
        return False
    try:
        return len([p for p in inspect.signature(obj.act).parameters if p != "self"]) == 3
    except (TypeError, ValueError):
        return False


class EpisodicAgent:
    """A factory of episodic runs (see the module docstring) with the instance it is audited on: ``episodes``,
    ``horizon``, ``states``, ``actions``, the claim's ``params``, the user's ``extra`` (``factory_args``).  The factory
    is called once here, as a check, with a generator of seed 0."""

    def __init__(self, factory, episodes, horizon, states, actions, params=None, name="agent", extra=None, dim=None):
        if not callable(factory):
            raise InvalidArgument(f"{name} is not a function returning an episodic agent")
        self.factory, self.name = factory, name
        self.episodes = check_int("episodes", episodes, 1)
        self.horizon = check_int("horizon", horizon, 1)
        self.states = check_int("states", states, 1)
        self.actions = check_int("actions", actions, 1)
        instance = dict(zip(EPISODIC_INSTANCE, (self.episodes, self.horizon, self.states, self.actions)))
        try:
            declared = set(inspect.signature(factory).parameters)
        except (TypeError, ValueError):
            declared = set()
        #: a linear MDP's feature dimension (None: tabular) and its public features (:func:`linear_features`)
        self.dim = None if dim is None else check_int("dim", dim, 1)
        self.features = None if dim is None else linear_features(self.states, self.actions, self.dim)
        if declared & _LINEAR and self.dim is None:
            raise InvalidArgument(
                f"{name} declares {', '.join(sorted(declared & _LINEAR))}: a linear MDP's agent — give dim=, the "
                "dimension of the features φ(s, a) it is given (‖φ‖₂ ≤ 1)"
            )
        if self.dim is not None:
            instance.update(dim=self.dim, features=self.features)
        #: whether the factory makes a batch of runs at once (it declares ``runs``)
        self.batched = RUNS in declared
        #: whether the factory is a training loop run on a gymnasium-style environment (it declares ``env``)
        self.loop = ENV in declared
        if self.batched and self.loop:
            raise InvalidArgument(f"{name} declares both runs and env: a training loop runs one run on its env")
        if self.batched:
            instance[RUNS] = 1
        if self.loop:
            instance[ENV] = ENV  # (each run's environment given as it starts: run_episodes)
        self._call = matched_keywords(
            factory, instance, dict(params or {}), name, extra, EPISODIC_ALIASES, quiet=("features",)
        )
        notes = [n for n in [self._call.note(name)] if n]
        #: whether a run has ``end_episode(k)``
        self.ends_episodes = False
        if self.loop:
            notes.append(
                f"{name} runs its own loop on a gymnasium-style environment whose k-th episode is the k-th user's "
                f"response tape (reset() and step(action), truncated after {self.horizon} steps); the actions it "
                "passes to step() are the output"
            )
        else:
            probe = self.make(np.random.default_rng(0), 1)
            self.ends_episodes = provides(probe, EndsEpisodes)
            if isinstance(probe, StepRun):
                notes.append(f"{name} makes {probe.said()}")
        self.adapter_note = "; ".join(notes) or None

    def __repr__(self) -> str:
        return f"EpisodicAgent({self.name}, K={self.episodes}, H={self.horizon}, S={self.states}, A={self.actions})"

    def make(self, rng: np.random.Generator, runs: int):
        """One run (a batch of ``runs``, when batched) made by the factory with the generator ``rng``."""
        if self.batched:
            self._call.kw[RUNS] = int(runs)
        try:
            run = self._call(self.factory, rng)
        except Exception as exc:
            raise raised(TargetError, f"{self.name}: the factory raised {type(exc).__name__}: {exc}", exc) from None
        if not self.batched and is_step_level(run):
            return StepRun(run, self.horizon)
        if not provides(run, EpisodicRun):
            raise InvalidArgument(
                f"{self.name} returned {type(run).__name__}, not an episodic agent with act(k, h, state) and "
                "update(k, h, state, action, reward, next_state), nor a step agent with select_action(state) and "
                "update(state, action, reward, next_state)"
            )
        return run

    @property
    def instance(self) -> dict:
        """The instance audited, by keyword."""
        out = dict(zip(EPISODIC_INSTANCE, (self.episodes, self.horizon, self.states, self.actions)))
        return out if self.dim is None else {**out, "dim": self.dim}


def _call(run, name: str, method: str, *args):
    try:
        return getattr(run, method)(*args)
    except Exception as exc:
        said = f"{method}({', '.join(str(a) if np.ndim(a) == 0 else '…' for a in args)})"
        raise raised(TargetError, f"{name}: {said} raised {type(exc).__name__}: {exc}", exc) from None


def _released(run, names: tuple, name: str, runs: int) -> np.ndarray:
    """What a run object (a batch of ``runs``) publishes now (:func:`~.published.published`): each named value as
    floats, concatenated — one row per run."""
    parts = []
    for attr in names:
        missing = lambda: InvalidArgument(f"releases= names {attr!r}, which {name}'s runs do not have")  # noqa: E731
        value = published(run, attr, name, missing)
        if value is None:
            raise missing()
        try:
            parts.append(as_rows(value, runs))
        except (TypeError, ValueError):
            raise TargetError(f"{name}: its release {attr!r} is not numbers (one array per run)") from None
    return np.hstack(parts)


def _actions(out, name: str, k: int, h: int, n_actions: int, runs: int) -> np.ndarray:
    a = np.asarray(out)
    if a.shape not in ((runs,), ()) or not np.issubdtype(a.dtype, np.number):
        raise TargetError(f"{name}: act({k}, {h}, …) returned {out!r}, not one action (or one per run)")
    ints = a.astype(np.int64)
    if not np.all(ints == a) or np.any(ints < 0) or np.any(ints >= n_actions):
        raise TargetError(f"{name}: act({k}, {h}, …) returned {out!r}, not an action among 0 … {n_actions - 1}")
    return np.broadcast_to(ints, (runs,))


def run_episodes(agent: EpisodicAgent, tapes: Tapes, rng: np.random.Generator, size: int, releases=None):
    """``size`` independent runs of ``agent`` on ``tapes``: every episode's actions, (size, K·H), the marked user's
    own recorded as 0 (joint DP leaves them out) — or, with ``releases``, what the agent publishes after each episode,
    (size, K·width).  A batched agent runs them at once on ``rng``; one-object-per-run agents each get a generator
    spawned from it.  Tapes of fewer users than the agent's ``episodes`` run the first episodes of its runs (the agent
    made for all of them) and stop: what those episodes output is what a whole run outputs first, since an agent
    learns of a user only when their episode is run — except a training loop, which runs itself to the end."""
    size = int(size)
    if agent.batched:
        return _batch(agent, agent.make(rng, size), tapes, size, releases)
    lists = (tapes.initial.tolist(), tapes.rewards.tolist(), tapes.next_states.tolist())
    if agent.loop:
        if tapes.shape[0] != agent.episodes:
            raise InvalidArgument(
                f"{agent.name} is a training loop (it declares env), which runs all its {agent.episodes} episodes: "
                f"its runs cannot be read on the first {tapes.shape[0]}"
            )
        if releases:
            raise InvalidArgument(
                f"releases= reads a run object, and {agent.name} is a training loop (it declares env): audit its "
                "actions, or give a factory of the agent it trains"
            )
        return np.asarray([_looped(agent, child, tapes.user, lists) for child in rng.spawn(size)], dtype=np.int64)
    rows = [_one(agent, agent.make(child, 1), tapes.user, lists, releases) for child in rng.spawn(size)]
    width = {len(r) for r in rows}
    if len(width) > 1:
        raise TargetError(f"{agent.name}: what it publishes ({', '.join(releases)}) changed size between runs")
    return np.asarray(rows, dtype=float if releases else np.int64).reshape(size, -1)


def _action(out, name: str, k: int, h: int, n_actions: int) -> int:
    """One run's action, checked: an integer among the actions."""
    try:
        a = int(out)
        ok = a == out and 0 <= a < n_actions and not isinstance(out, (bool, str))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise TargetError(f"{name}: act({k}, {h}, …) returned {out!r}, not an action among 0 … {n_actions - 1}")
    return a


def _one(agent: EpisodicAgent, run, user, lists, releases) -> list:
    """One run object through every episode (Python scalars throughout: the field's code is written for them)."""
    initial, rewards, nexts = lists
    name, n_actions, H = agent.name, agent.actions, agent.horizon
    act, update = run.act, run.update
    end = run.end_episode if agent.ends_episodes else None
    out = []
    for k in range(len(initial)):
        s = initial[k]
        rk, nk = rewards[k], nexts[k]
        for h in range(H):
            try:
                a = act(k + 1, h + 1, s)
            except Exception as exc:
                said = f"{name}: act({k + 1}, {h + 1}, {s}) raised {type(exc).__name__}: {exc}"
                raise raised(TargetError, said, exc) from None
            a = _action(a, name, k + 1, h + 1, n_actions)
            r, nxt = rk[h][s][a], nk[h][s][a]
            _update(update, name, k, h, s, a, r, nxt)
            if not releases:
                out.append(0 if k == user else a)
            s = nxt
        if end is not None:
            _call(run, name, "end_episode", k + 1)
        if releases:
            out.extend(_released(run, tuple(releases), name, 1)[0].tolist())
    return out


def _looped(agent: EpisodicAgent, rng: np.random.Generator, user, lists) -> list:
    """One run of a training loop on a :class:`~.episode_shapes.TapeEnv` of the tapes: the actions it stepped with."""
    name = agent.name

    def check(action, name, k, h):
        try:
            return _action(action, name, k, h, agent.actions)
        except TargetError:
            raise TargetError(
                f"{name}: step({action!r}) at step {h} of episode {k}: not an action among 0 … {agent.actions - 1}"
            ) from None

    env = TapeEnv(lists, agent.horizon, agent.states, agent.actions, user, name, check, rng.spawn(1)[0])
    agent._call.kw[ENV] = env
    try:
        agent._call(agent.factory, rng)
    except TargetError:
        raise
    except Exception as exc:
        raise raised(TargetError, f"{name}: its loop raised {type(exc).__name__}: {exc}", exc) from None
    if env.episodes_done != agent.episodes:
        raise TargetError(
            f"{name}: its loop ran {env.episodes_done} whole episodes of the {agent.episodes} (one per user) and "
            "returned: run every episode to the horizon"
        )
    return env.actions


def _update(update, name, k, h, s, a, r, nxt) -> None:
    try:
        update(k + 1, h + 1, s, a, r, nxt)
    except Exception as exc:
        said = f"update({k + 1}, {h + 1}, {s}, {a}, {r}, {nxt})"
        raise raised(TargetError, f"{name}: {said} raised {type(exc).__name__}: {exc}", exc) from None


def _batch(agent: EpisodicAgent, run, tapes: Tapes, runs: int, releases) -> np.ndarray:
    """A batched agent's ``runs`` through every episode of ``tapes`` at once."""
    K, H = tapes.shape[0], agent.horizon
    idx = np.arange(runs)
    out = [] if releases else np.zeros((runs, K * H), dtype=np.int64)
    name = agent.name
    for k in range(K):
        s = np.full(runs, tapes.initial[k], dtype=np.int64)
        for h in range(H):
            a = _actions(_call(run, name, "act", k + 1, h + 1, s), name, k + 1, h + 1, agent.actions, runs)
            r = tapes.rewards[k, h, s, a]
            nxt = tapes.next_states[k, h, s, a]
            _call(run, name, "update", k + 1, h + 1, s, a, r, nxt)
            if not releases and k != tapes.user:
                out[idx, k * H + h] = a
            s = nxt
        if agent.ends_episodes:
            _call(run, name, "end_episode", k + 1)
        if releases:
            out.append(_released(run, tuple(releases), name, runs))
    if not releases:
        return out
    widths = {o.shape[1] for o in out}
    if len(widths) != 1:
        raise TargetError(f"{name}: what it publishes ({', '.join(releases)}) changed size between episodes")
    return np.hstack(out)
