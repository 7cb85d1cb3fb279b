"""The step-level shapes the field writes episodic agents in, run as the episodic protocol
(:mod:`privcheck.core.episodic`).

* **A step agent**: a run object with ``select_action(state)`` (or ``act(state)``) and ``update(state, action, reward,
  next_state)`` (or ``observe(…)``; a fifth parameter is told whether the step ends the episode, as a gymnasium loop's
  ``done``), and ``end_episode()`` where it has one — the shape of most tabular RL code written against a
  gymnasium-style environment.  :class:`StepRun` calls it as ``act(k, h, state)``, ``update(k, h, …)`` and
  ``end_episode(k)``; what it publishes is read from the run object itself.
* **A training loop**: a function that declares ``env`` and runs its own loop on it — ``state, info = env.reset()``,
  then ``state, reward, terminated, truncated, info = env.step(action)`` until ``truncated``, episode after episode.
  It is given a :class:`TapeEnv`, a gymnasium-style environment whose k-th episode is the k-th user's response tape
  (``observation_space.n`` states, ``action_space.n`` actions, truncated after the horizon), which records the actions
  it is given: those are the audited output.

Either is told apart by its signature (:func:`is_step_level`, a factory declaring ``env``), so a researcher's code is
audited as written.
"""

from __future__ import annotations

import inspect

import numpy as np

from .errors import TargetError
from .protocols import EndsEpisodes, provides

__all__ = ["StepRun", "is_step_level", "step_level_class", "TapeEnv", "Discrete", "ENV"]

#: the keyword a training loop declares: it is given the environment that serves the users' episodes
ENV = "env"


def _arity(fn) -> int | None:
    """The positional parameters a callable takes (``self`` not counted; None: no signature)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def _chooser(obj):
    """The step agent's action method: ``select_action`` or a one-argument ``act`` (None: neither)."""
    for attr in ("select_action", "act"):
        fn = getattr(obj, attr, None)
        if callable(fn) and _arity(fn) == 1:
            return fn
    return None


def _learner(obj):
    """The step agent's update: ``update`` or ``observe`` taking (state, action, reward, next_state[, done])."""
    for attr in ("update", "observe"):
        fn = getattr(obj, attr, None)
        if callable(fn) and (_arity(fn) or 0) >= 4:
            return fn
    return None


def _ender(obj):
    """The step agent's ``end_episode()`` — or ``end_episode(k)`` — or None."""
    if not provides(obj, EndsEpisodes) or _arity(obj.end_episode) not in (0, 1):
        return None
    return obj.end_episode


def is_step_level(run) -> bool:
    """Whether a run object is a step agent: an action method of the state alone and a step update."""
    return _chooser(run) is not None and _learner(run) is not None


def step_level_class(cls) -> bool:
    """Whether a class makes step agents (its methods read unbound, ``self`` first)."""
    if not isinstance(cls, type):
        return False
    chooser = next((getattr(cls, a) for a in ("select_action", "act") if callable(getattr(cls, a, None))), None)
    learner = next((getattr(cls, a) for a in ("update", "observe") if callable(getattr(cls, a, None))), None)
    if chooser is None or learner is None:
        return False
    return _arity(chooser) == 2 and (_arity(learner) or 0) >= 5


class StepRun:
    """A step agent's run as an episodic run: ``act(k, h, state)`` is its ``select_action(state)``,
    ``update(k, h, state, action, reward, next_state)`` its update (with ``done`` at the horizon's last step where it
    takes a fifth argument), ``end_episode(k)`` its ``end_episode()`` where it has one; every other attribute (what it
    publishes) is the run's own."""

    def __init__(self, run, horizon: int):
        self.run = run
        self._choose, self._learn = _chooser(run), _learner(run)
        self._done = (_arity(self._learn) or 0) >= 5
        self._end = _ender(run)
        self._end_takes_k = self._end is not None and _arity(self._end) == 1  # (read once: not at every episode)
        self._horizon = horizon

    def said(self) -> str:
        """How this step agent is called, for the report."""
        done = ", done" if self._done else ""
        end = " and its end_episode() after each episode" if self._end is not None else ""
        return (
            f"a step agent: its {self._choose.__name__}(state) gives the action at each step, its "
            f"{self._learn.__name__}(state, action, reward, next_state{done}) follows it{end}"
        )

    def act(self, k, h, state):
        return self._choose(state)

    def update(self, k, h, state, action, reward, next_state):
        if self._done:
            return self._learn(state, action, reward, next_state, h == self._horizon)
        return self._learn(state, action, reward, next_state)

    def end_episode(self, k):
        if self._end is not None:
            self._end(*((k,) if self._end_takes_k else ()))

    def __getattr__(self, attr):  # (only for attributes not found above: what the run publishes)
        run = self.__dict__.get("run")
        if run is None:
            raise AttributeError(attr)
        return getattr(run, attr)


class Discrete:
    """A gymnasium-style finite space: ``n`` elements 0 … n−1; ``sample()`` draws from the run's own generator."""

    def __init__(self, n: int, rng: np.random.Generator):
        self.n, self._rng = int(n), rng

    def sample(self) -> int:
        return int(self._rng.integers(self.n))

    def contains(self, x) -> bool:
        try:
            return int(x) == x and 0 <= int(x) < self.n
        except (TypeError, ValueError):
            return False

    def __repr__(self) -> str:
        return f"Discrete({self.n})"


class TapeEnv:
    """A gymnasium-style environment over the users' response tapes: ``reset()`` starts the next user's episode and
    returns ``(state, info)``; ``step(action)`` returns ``(next_state, reward, terminated, truncated, info)`` from
    that user's tape, ``truncated`` at the horizon's last step.  It records the actions (``actions``, the marked
    user's own as 0: joint DP leaves them out) and is checked as it goes: a step after the episode's end, a reset in
    the middle of one, more episodes than users and an action outside the actions are the agent's errors."""

    def __init__(self, lists, horizon: int, states: int, actions: int, user, name: str, check, rng):
        self._initial, self._rewards, self._nexts = lists
        self._H, self._user, self._name, self._check = horizon, user, name, check
        self.observation_space, self.action_space = Discrete(states, rng), Discrete(actions, rng)
        self.actions: list = []
        self._k, self._h, self._s = -1, horizon, None

    @property
    def episodes_done(self) -> int:
        """Episodes run to their horizon."""
        return self._k + (self._h == self._H)

    def reset(self, *, seed=None, options=None):
        name, K = self._name, len(self._initial)
        if 0 < self._h < self._H:
            raise TargetError(
                f"{name}: reset() in the middle of episode {self._k + 1} (after step {self._h} of {self._H}): every "
                "episode runs to the horizon, where step() says truncated"
            )
        if self._k + 1 >= K:
            raise TargetError(f"{name}: reset() for episode {K + 1}, but there are {K} episodes (one per user)")
        self._k, self._h = self._k + 1, 0
        self._s = self._initial[self._k]
        return self._s, {}

    def step(self, action):
        name, k, h = self._name, self._k, self._h
        if k < 0 or h >= self._H:
            raise TargetError(f"{name}: step() before reset() (or after the episode's last step): call reset() first")
        a = self._check(action, name, k + 1, h + 1)
        s = self._s
        r, nxt = self._rewards[k][h][s][a], self._nexts[k][h][s][a]
        self.actions.append(0 if k == self._user else a)
        self._h, self._s = h + 1, nxt
        return nxt, r, False, self._h == self._H, {}
