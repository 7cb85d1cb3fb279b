"""The field's other shapes of one-object-per-run policies, as the sequential protocol (``act(t)`` or, for a
contextual policy, ``act(t, contexts)``; ``update(t, arm, reward)``): the adapters behind :mod:`privcheck.adapters`.

Papers' code writes a policy run in a handful of shapes; each has an adapter here, a wrapper of the user's factory
(or class) that keeps its signature — so privcheck still gives it, by keyword, what it declares (``n_arms``,
``horizon``, ``rng``, the claim's parameters):

=================  =====================================================  ==============================
adapter            the run object has                                     privcheck calls
=================  =====================================================  ==============================
``get_arm``        ``get_arm()`` and ``update(arm, reward)``              ``get_arm()`` each round
``get_arm_t``      ``get_arm(t)`` and ``update(arm, reward)``             ``get_arm(t)`` (t from 1)
``step``           ``step(last_reward, last_arm) -> arm``                 ``step(None, None)`` first
``smpybandits``    ``choice()`` and ``getReward(arm, reward)``            ``startGame()`` (if any) first
``select``         ``select(x)`` and ``update(x, arm, reward)``           ``select(x)``, x the round's
                   (LinUCB's shape: a contextual policy)                  contexts (n_arms × dim)
=================  =====================================================  ==============================

``get_arm_contexts`` is ``get_arm(contexts)`` and ``update(arm, reward)``, a contextual policy: ``get_arm``'s one
argument is the round when it is named as one (``t``, ``round``, …: :data:`ROUND_NAMES`), else the round's contexts.

Every adapter takes ``one_based=True`` for code whose arms are numbered from 1 (it returns 1 … K and is told the
arm played in the same numbering).  :func:`shape_of` tells which shape a run object has; a factory whose runs have
one of these shapes is wrapped automatically (arms from 0), and the report says so.
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

__all__ = [
    "ADAPTERS",
    "ROUND_NAMES",
    "adapt",
    "run_call",
    "shape_of",
    "get_arm",
    "get_arm_t",
    "get_arm_contexts",
    "step",
    "smpybandits",
    "select",
]


class _Run:
    """One run of a foreign-shaped policy as a sequential run (``act(t)``, ``update(t, arm, reward)``); ``calls``:
    the run's own call that chooses an arm, as its code names it (said in messages)."""

    calls = "act(t)"

    def __init__(self, inner, one_based: bool):
        self.inner, self.shift = inner, 1 if one_based else 0

    def _out(self, arm):
        return arm - self.shift if self.shift else arm


class _GetArm(_Run):
    calls = "get_arm()"

    def act(self, t):
        return self._out(self.inner.get_arm())

    def update(self, t, arm, reward):
        self.inner.update(arm + self.shift, reward)


class _GetArmT(_GetArm):
    calls = "get_arm(t)"

    def act(self, t):
        return self._out(self.inner.get_arm(t))


class _GetArmContexts(_GetArm):
    """``get_arm(contexts) -> arm`` given the round's contexts (n_arms × dim), ``update(arm, reward)``."""

    calls = "get_arm(contexts)"

    def act(self, t, contexts):
        return self._out(self.inner.get_arm(contexts))


class _Step(_Run):
    calls = "step(last_reward, last_arm)"

    def __init__(self, inner, one_based: bool):
        super().__init__(inner, one_based)
        self.last = (None, None)

    def act(self, t):
        return self._out(self.inner.step(*self.last))

    def update(self, t, arm, reward):
        self.last = (reward, arm + self.shift)


class _SMPyBandits(_Run):
    calls = "choice()"

    def __init__(self, inner, one_based: bool):
        super().__init__(inner, one_based)
        start = getattr(inner, "startGame", None)
        if callable(start):
            start()

    def act(self, t):
        return self._out(self.inner.choice())

    def update(self, t, arm, reward):
        self.inner.getReward(arm + self.shift, reward)


class _Select(_Run):
    """LinUCB's shape: ``select(x) -> arm`` given the round's contexts, ``update(x, arm, reward)`` with the same."""

    calls = "select(x)"

    def act(self, t, contexts):
        self.x = contexts
        return self._out(self.inner.select(contexts))

    def update(self, t, arm, reward):
        self.inner.update(self.x, arm + self.shift, reward)


def run_call(run) -> str | None:
    """The call that chooses an arm in ``run``'s own code (``"get_arm(contexts)"``), if it is an adapted run."""
    return run.calls if isinstance(run, _Run) else None


#: the names of ``get_arm``'s one argument that say it is the round (any other name: the round's contexts)
ROUND_NAMES = ("t", "round", "rnd", "time", "timestep", "time_step", "step", "n", "i", "k", "iteration", "it")


def _one_argument(method) -> str | None:
    """The name of ``method``'s (bound) one required positional argument, or None when it takes none (or more)."""
    try:
        params = [
            p
            for p in inspect.signature(method).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        return None
    return params[0].name if len(params) == 1 else None


def shape_of(run) -> str | None:
    """The name of the adapter for a run object of a known foreign shape (:data:`ADAPTERS`), or None."""

    def has(*names):
        return all(callable(getattr(run, n, None)) for n in names)

    if has("act", "update"):
        return None  # the sequential protocol itself
    if has("get_arm", "update"):
        one = _one_argument(run.get_arm)
        return "get_arm" if one is None else "get_arm_t" if one in ROUND_NAMES else "get_arm_contexts"
    if has("step"):
        return "step"
    if has("choice", "getReward"):
        return "smpybandits"
    if has("select", "update"):
        return "select"
    return None


#: adapter name -> the run wrapper and what it expects (said in messages)
ADAPTERS: dict[str, tuple[type, str]] = {
    "get_arm": (_GetArm, "get_arm() and update(arm, reward)"),
    "get_arm_t": (_GetArmT, "get_arm(t) and update(arm, reward)"),
    "get_arm_contexts": (
        _GetArmContexts,
        "get_arm(contexts) and update(arm, reward), contexts the round's (n_arms × dim)",
    ),
    "step": (_Step, "step(last_reward, last_arm) -> arm"),
    "smpybandits": (_SMPyBandits, "choice() and getReward(arm, reward)"),
    "select": (_Select, "select(x) -> arm and update(x, arm, reward), x the round's contexts"),
}


def adapt(factory: Callable, shape: str, *, one_based: bool = False) -> Callable:
    """``factory`` (a function or a class making one run of the ``shape`` of :data:`ADAPTERS`) as a factory of
    sequential runs, with the same signature (privcheck gives it what it declares)."""
    from .errors import InvalidArgument

    if shape not in ADAPTERS:
        raise InvalidArgument(f"shape={shape!r} must be one of {', '.join(ADAPTERS)}")
    if not callable(factory):
        raise InvalidArgument(f"factory={factory!r} must be a function or a class making one run of the policy")
    if not isinstance(one_based, bool):
        raise InvalidArgument(f"one_based={one_based!r} must be True or False")
    wrapper_cls = ADAPTERS[shape][0]

    @functools.wraps(factory)
    def make(*args, **kwargs):
        return wrapper_cls(factory(*args, **kwargs), one_based)

    try:
        make.__signature__ = inspect.signature(factory)
    except (TypeError, ValueError):
        pass
    make.adapter = shape + (" (arms from 1)" if one_based else "")
    return make


def get_arm(factory: Callable, *, one_based: bool = False) -> Callable:
    """Runs with ``get_arm()`` and ``update(arm, reward)`` (:func:`adapt`)."""
    return adapt(factory, "get_arm", one_based=one_based)


def get_arm_t(factory: Callable, *, one_based: bool = False) -> Callable:
    """Runs with ``get_arm(t)`` (t = 1 … T) and ``update(arm, reward)`` (:func:`adapt`)."""
    return adapt(factory, "get_arm_t", one_based=one_based)


def get_arm_contexts(factory: Callable, *, one_based: bool = False) -> Callable:
    """Runs with ``get_arm(contexts)`` (the round's contexts, ``n_arms × dim``) and ``update(arm, reward)``: a
    contextual policy (:func:`adapt`)."""
    return adapt(factory, "get_arm_contexts", one_based=one_based)


def step(factory: Callable, *, one_based: bool = False) -> Callable:
    """Runs with ``step(last_reward, last_arm) -> arm``, called with ``(None, None)`` at the first round."""
    return adapt(factory, "step", one_based=one_based)


def smpybandits(factory: Callable, *, one_based: bool = False) -> Callable:
    """SMPyBandits' runs: ``startGame()`` (if it has one) once, then ``choice()`` and ``getReward(arm, reward)``."""
    return adapt(factory, "smpybandits", one_based=one_based)


def select(factory: Callable, *, one_based: bool = False) -> Callable:
    """LinUCB's runs: ``select(x) -> arm`` and ``update(x, arm, reward)``, ``x`` the round's contexts (the
    ``n_arms × dim`` array a contextual policy's ``act(t, contexts)`` is given): audited as a contextual policy."""
    return adapt(factory, "select", one_based=one_based)
