"""Policies as the field writes them: one object per run.

A sequential policy is a factory ``make(...)`` that returns, for one run, an object with ``act(t) -> arm`` for the
rounds t = 1 … T and ``update(t, arm, reward)``; the object draws its randomness from the generator it is given.
The factory receives, by keyword, whichever of these it declares (all of them when it takes ``**kwargs``):

* ``n_arms`` and ``horizon`` — the instance audited;
* ``rng`` — a :class:`numpy.random.Generator` of its own for that run, spawned from the audit's seed;
* the claim's parameters ``epsilon``, ``delta``, ``rho``, ``mu`` (those the claim has), so that the policy is
  calibrated to the claim under test as the built-ins are.

It needs nothing else: no ``n_arms``, ``name`` or ``claim`` attribute.  :class:`SequentialPolicy` makes such a
factory a batched :class:`~privcheck.core.protocols.Policy` — the protocol every engine and the simulator run —
by keeping one object per run: a batch of runs is a list of objects, each acting and updating in turn.  The
generator of each run is spawned from two uniforms the caller draws for it at round 1 (so a run depends only on
the audit's seed and its place in the chunk), and each batch has numpy's and Python's global generators of its
own, seeded from the same uniforms and swapped in while its runs act (the caller's global state is left as it
was), so that a policy drawing from them still gives independent, reproducible runs across batches and workers
(the auditor's reproducibility probe tells whether it draws from anything else).

Examples of adapters for the common shapes (``get_arm``/``update``; ``step(last_reward, last_arm)``;
SMPyBandits' ``choice()``/``getReward(arm, reward)``) are in ``examples/sequential.py``.
"""

from __future__ import annotations

import inspect
import random
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from .claims import parameters
from .errors import InvalidArgument, TargetError
from .globalrng import BatchGenerators, swapped

__all__ = ["SequentialRun", "SequentialPolicy", "as_policy", "claim_parameters", "is_sequential_factory"]

#: the keywords a factory may declare, besides the claim's parameters
_INSTANCE = ("n_arms", "horizon", "rng")
_CLAIM = ("epsilon", "delta", "rho", "mu")


@runtime_checkable
class SequentialRun(Protocol):
    """One run of a sequential policy: the arm at round t (1-based), and the reward of the arm played."""

    def act(self, t: int) -> Any: ...

    def update(self, t: int, arm: int, reward: float) -> Any: ...


def claim_parameters(claim) -> dict:
    """The parameters of ``claim`` a sequential policy may be calibrated from (ε and δ, α and ε, ρ, μ: those its
    type declares, :func:`privcheck.core.claims.parameters`); none for no claim."""
    return {} if claim is None else parameters(claim)


def _accepted(factory) -> tuple[set, bool]:
    """(the keywords ``factory`` declares among the ones it may be given, whether it takes ``**kwargs``)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return set(), False
    var = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    return {k for k in (*_INSTANCE, *_CLAIM) if k in params}, var


def _keywords(factory, n_arms: int, horizon, params: dict, name: str) -> tuple[dict, bool]:
    """(the keywords ``factory`` is called with, whether it also takes ``rng``): those it declares among
    ``n_arms``, ``horizon`` and the claim's ``params`` (all of them when it takes ``**kwargs``), None values left
    out; a factory that takes a horizon when none is given is bad input."""
    accepted, var = _accepted(factory)
    if "horizon" in accepted and horizon is None:
        raise InvalidArgument(f"{name} takes a horizon: give horizon=")
    given = {"n_arms": int(n_arms), "horizon": horizon, **params}
    return {k: v for k, v in given.items() if (var or k in accepted) and v is not None}, "rng" in accepted or var


def is_sequential_factory(obj) -> bool:
    """Whether ``obj`` is a callable that is not itself a run (a factory of runs, or of a batched policy)."""
    return callable(obj) and not isinstance(obj, SequentialRun) and not isinstance(obj, type)


class SequentialPolicy:
    """A factory of one-object-per-run policies as a batched policy (see the module docstring).

    ``factory`` is called once per run with the keywords it declares among ``n_arms``, ``horizon``, ``rng`` and
    ``params`` (the claim's parameters); ``name`` is what reports call it.  The factory is called once here, as a
    check, with a generator of seed 0."""

    n_uniforms = 2  # per run and round; read at round 1 only: the run's generator and the batch's global seeds
    n_update_uniforms = 0

    def __init__(
        self,
        factory: Callable,
        n_arms: int,
        horizon: int | None = None,
        params: dict | None = None,
        name: str = "policy",
    ):
        if not callable(factory):
            raise InvalidArgument(f"{name} is not a function returning a policy")
        self.factory, self.n_arms, self.horizon, self.name = factory, int(n_arms), horizon, name
        self._kw, self._rng = _keywords(factory, self.n_arms, horizon, params or {}, name)
        self._make(np.random.default_rng(0))  # checks the factory now, before any work

    def _make(self, rng):
        try:
            run = self.factory(**self._kw, **({"rng": rng} if self._rng else {}))
        except Exception as exc:
            raise TargetError(f"{self.name}: the factory raised {type(exc).__name__}: {exc}") from None
        if not isinstance(run, SequentialRun):
            raise InvalidArgument(
                f"{self.name} returned {type(run).__name__}, not a policy with act(t) and update(t, arm, reward)"
            )
        return run

    def __repr__(self) -> str:
        return f"SequentialPolicy({self.name}, n_arms={self.n_arms})"

    def init(self, runs: int) -> "_Runs":
        return _Runs([None] * int(runs))

    def act(self, state: "_Runs", t: int, u: np.ndarray) -> np.ndarray:
        if state and state[0] is None:
            self._start(state, u)
        out = np.empty(len(state), dtype=object)
        with state.globals():
            for i, run in enumerate(state):
                try:
                    out[i] = run.act(t)
                except Exception as exc:
                    raise TargetError(f"{self.name}: act({t}) raised {type(exc).__name__}: {exc}") from None
        return _arms(out)

    def update(self, state: "_Runs", t: int, arms: np.ndarray, feedback: np.ndarray, u) -> "_Runs":
        with state.globals():
            for run, arm, r in zip(state, arms.tolist(), np.asarray(feedback, dtype=float).tolist()):
                try:
                    run.update(t, arm, r)
                except Exception as exc:
                    raise TargetError(f"{self.name}: update({t}, …) raised {type(exc).__name__}: {exc}") from None
        return state

    def _start(self, state: "_Runs", u: np.ndarray) -> None:
        """One object per run, each with a generator spawned from its own two uniforms (53 bits each); the
        batch's global generators seeded from the first run's."""
        bits = np.floor(np.asarray(u, dtype=float)[:, :2] * 2.0**53).astype(np.uint64)
        state.generators = BatchGenerators(
            np.random.RandomState(int(bits[0, 0] % (1 << 32))).get_state(),
            random.Random(int(bits[0, 0]) << 53 | int(bits[0, 1])).getstate(),
        )
        with state.globals():  # a factory may draw from them too
            for i in range(len(state)):
                seq = np.random.SeedSequence([int(bits[i, 0]), int(bits[i, 1])])
                state[i] = self._make(np.random.Generator(np.random.PCG64(seq)))


class _Runs(list):
    """The objects of a batch of runs, and the states of numpy's and Python's global generators as the batch left
    them: swapped in while its runs act or update, and the caller's own states put back after (a policy that
    draws from the global generators gets independent runs across batches; the caller's state is untouched) —
    :mod:`privcheck.core.globalrng`."""

    generators: BatchGenerators | None = None

    def globals(self):
        return swapped(self.generators)


def _arms(out: np.ndarray) -> np.ndarray:
    """The arms returned, as a numeric array when they are numbers (``checked_actions`` then checks them)."""
    try:
        return np.asarray(out.tolist())
    except (TypeError, ValueError):
        return out


def as_policy(obj, *, n_arms: int, horizon: int | None = None, claim=None, name: str = "policy"):
    """A batched policy from what a user gives: a batched policy as it is; a factory of batched policies called
    once (with the keywords it declares among ``n_arms``, ``horizon`` and the claim's parameters); a factory of
    runs (:class:`SequentialRun`) as a :class:`SequentialPolicy`."""
    from .protocols import Policy

    if isinstance(obj, Policy):
        return obj
    if not is_sequential_factory(obj):
        raise InvalidArgument(f"{name} is neither a policy nor a function returning one")
    params = claim_parameters(claim)
    kw, rng = _keywords(obj, n_arms, horizon, params, name)
    try:
        made = obj(**kw, **({"rng": np.random.default_rng(0)} if rng else {}))
    except Exception as exc:
        raise InvalidArgument(f"the policy factory {name} raised {type(exc).__name__}: {exc}") from None
    if isinstance(made, Policy):
        if made.n_arms != n_arms:
            raise InvalidArgument(f"{name} gave a policy on {made.n_arms} arms for an instance of {n_arms}")
        return made
    if isinstance(made, SequentialRun):
        return SequentialPolicy(obj, n_arms, horizon, params, name)
    raise InvalidArgument(
        f"{name} returned {type(made).__name__}: neither a batched policy (init, act, update, "
        "n_arms, n_uniforms) nor one run of a policy (act(t), update(t, arm, reward))"
    )
