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

The field's other shapes (``get_arm``/``update(arm, reward)``, ``step(last_reward, last_arm)``, SMPyBandits'
``choice()``/``getReward(arm, reward)``) are wrapped by :mod:`privcheck.adapters` (:mod:`.foreign`), automatically
when a factory's runs have one of them.  A factory's parameters are matched by name: besides the keywords above it
may take ``seed`` (an integer drawn from the run's generator), a few spellings of the field (``K``, ``T``, ``eps``,
``random_state``, …: :data:`ALIASES`) and its own parameters, given with ``factory_args``; a required parameter none
of these names is refused, listing the keywords offered.
"""

from __future__ import annotations

import inspect
import math
import random
from contextlib import ExitStack, contextmanager, nullcontext
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from . import claims
from .claims import parameters
from .errors import InvalidArgument, TargetError, raised
from .globalrng import BatchGenerators, swapped

__all__ = [
    "SequentialRun",
    "SequentialPolicy",
    "as_policy",
    "claim_parameters",
    "is_sequential_factory",
    "looks_like_policy",
    "takes_contexts",
    "public_contexts",
]

#: the field's other spellings of those keywords, given the same value (said in the report)
ALIASES = {
    "K": "n_arms",
    "num_arms": "n_arms",
    "nb_arms": "n_arms",
    "nbArms": "n_arms",
    "narms": "n_arms",
    "n_actions": "n_arms",
    "T": "horizon",
    "n_rounds": "horizon",
    "num_rounds": "horizon",
    "eps": "epsilon",
    "random_state": "rng",
    "d": "dim",
    "n_features": "dim",
    "context_dim": "dim",
}
#: a factory parameter given an integer seed drawn from the run's generator
SEED = "seed"
#: the seed of the public contexts a contextual policy is audited on when none are given (the same in every audit)
CONTEXT_SEED = 0
#: the dimension of those contexts when neither the call nor the factory says it
DEFAULT_DIM = 2


@runtime_checkable
class SequentialRun(Protocol):
    """One run of a sequential policy: the arm at round t (1-based), and the reward of the arm played."""

    def act(self, t: int) -> Any: ...

    def update(self, t: int, arm: int, reward: float) -> Any: ...


def claim_parameters(claim) -> dict:
    """The parameters of ``claim`` a sequential policy may be calibrated from (ε and δ, α and ε, ρ, μ: those its
    type declares, :func:`privcheck.core.claims.parameters`); none for no claim."""
    return {} if claim is None else parameters(claim)


class _Call:
    """How a factory is called: the keywords it takes (values known now), the names given the run's generator and
    an integer seed drawn from it, and the aliases used (param -> offered keyword)."""

    def __init__(self, kw: dict, rng_names: tuple, seed_names: tuple, aliases: dict):
        self.kw, self.rng_names, self.seed_names, self.aliases = kw, rng_names, seed_names, aliases

    def __call__(self, factory, rng):
        seeds = {n: int(rng.integers(2**63)) for n in self.seed_names} if self.seed_names else {}
        return factory(**self.kw, **{n: rng for n in self.rng_names}, **seeds)

    def note(self, name: str) -> str | None:
        if not self.aliases:
            return None
        said = ", ".join(f"{p} = {k}" for p, k in self.aliases.items())
        return f"{name}'s parameters matched by their usual names: {said}"


def _keywords(
    factory,
    n_arms: int,
    horizon,
    params: dict,
    name: str,
    extra: dict | None = None,
    dim: int | None = None,
    context_bound: float = 1.0,
) -> _Call:
    """How ``factory`` is called: with those of ``n_arms``, ``horizon``, ``rng`` (or an integer ``seed``), the
    claim's ``params`` and the user's ``extra`` (``factory_args``) it declares — by name or by a usual spelling of
    the field (:data:`ALIASES`) — all of them when it takes ``**kwargs``; None values left out.  A required
    parameter that none of these names is bad input, refused listing what is offered; so is an ``extra`` it does not
    take, and a horizon it takes when none is given.  A contextual policy may declare ``dim`` and
    ``context_bound`` (the norm bound L of the contexts it is given); ``**kwargs`` is not given the bound."""
    instance = {"n_arms": int(n_arms), "horizon": horizon, "dim": dim, "context_bound": context_bound}
    return matched_keywords(factory, instance, params, name, extra, ALIASES, quiet=("context_bound",))


def matched_keywords(
    factory, instance: dict, params: dict, name: str, extra: dict | None, aliases: dict, quiet: tuple = ()
) -> _Call:
    """How ``factory`` is called, for any protocol's instance: with those of ``instance`` (name -> value), ``rng``
    (or an integer ``seed``), the claim's ``params`` and the user's ``extra`` it declares — by name or by a usual
    spelling (``aliases``: spelling -> name) — all of them when it takes ``**kwargs`` (but the ``quiet`` ones, given
    only when ``extra`` names them); None values left out.  A required parameter none of these names is refused,
    listing what is offered; so is an ``extra`` it does not take, and a horizon it takes when none is given."""
    extra = dict(extra or {})
    _check_own(extra, params, tuple(instance), aliases)
    values = {**instance, **params, **extra}
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):  # (a callable without a signature): called with nothing, as before
        return _Call({}, (), (), {})
    var = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values())
    kw, rng_names, seed_names, said, missing = {}, [], [], {}, []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        target = p.name if p.name in (*values, "rng", SEED) else aliases.get(p.name)
        if target not in (*values, "rng", SEED):
            target = None  # (an alias of a claim parameter this claim does not have)
        required = p.default is p.empty
        if p.kind is p.POSITIONAL_ONLY or target is None or (target in values and values[target] is None):
            if required:
                missing.append(p.name)
            continue
        if target != p.name:
            said[p.name] = target
        if target == "rng":
            rng_names.append(p.name)
        elif target == SEED:
            seed_names.append(p.name)
        else:
            kw[p.name] = values[target]
    if var:
        spread = {k: v for k, v in values.items() if k not in quiet or k in extra}
        kw.update({k: v for k, v in spread.items() if v is not None and k not in kw and k not in said.values()})
        if not rng_names and "rng" not in sig.parameters:
            rng_names.append("rng")
    if missing:
        if instance.get("horizon", 0) is None and any(aliases.get(m, m) == "horizon" for m in missing):
            raise InvalidArgument(f"{name} takes a horizon: give horizon=")
        claimed = [m for m in missing if aliases.get(m, m) in claims.claim_parameters()]
        if claimed:  # a claim's parameter the claim under test does not have: the claim must say it
            wanted = aliases.get(claimed[0], claimed[0])
            raise InvalidArgument(
                f"{name} takes {claimed[0]}, a parameter of the claim, which the claim under test does not have: "
                f"state a claim with {wanted}= (the factory is calibrated from the claim's own parameters)"
            )
        offered = [*list(instance)[:2], "rng", *list(instance)[2:], SEED, *params, *extra]
        raise InvalidArgument(
            f"{name} requires {', '.join(missing)}, which privcheck does not give it: a factory is called with "
            f"those of {', '.join(offered)} it declares (also under the usual names "
            f"{', '.join(aliases)}); rename {'them' if len(missing) > 1 else 'it'}, give "
            f"{'them defaults' if len(missing) > 1 else 'it a default'}, or give values with factory_args="
        )
    unknown = [k for k in extra if k not in kw and not var]
    if unknown:
        raise InvalidArgument(f"factory_args= gives {', '.join(unknown)}, which {name} does not take")
    return _Call(kw, tuple(rng_names), tuple(seed_names), said)


def _check_own(
    extra: dict, params: dict, instance: tuple = ("n_arms", "horizon", "dim", "context_bound"), aliases=None
) -> None:
    """Refuse, in ``factory_args``, what the audit itself gives a factory: a claim's parameter (ε, δ, ρ, …, or a
    usual spelling of one) — the policy runs at the claim's, or the audit would test one claim while the policy is
    calibrated to another — and the ``instance``'s own keywords (arms, horizon, dimension, bound, …) and generator."""
    aliases = ALIASES if aliases is None else aliases
    for key in extra:
        what = aliases.get(key, key)
        if what in claims.claim_parameters():
            has = f"the claim under test says {what}={params[what]!r}" if what in params else "the claim says it"
            raise InvalidArgument(
                f"factory_args= gives {key}, a parameter of the claim: the policy is calibrated from the claim's "
                f"own ({has}); state the claim you mean instead (with {what}=)"
            )
        if what in (*instance, "rng", SEED):
            said = {"n_arms": "arms", "rng": "seed", SEED: "seed"}.get(what, what)
            raise InvalidArgument(f"factory_args= gives {key}, which the audit gives the factory: use {said}=")


def looks_like_policy(obj) -> bool:
    """Whether ``obj`` reads as a bandit policy rather than a mechanism ``f(x, rng, size)``: a policy object, a class,
    or a function declaring the instance's ``n_arms`` or ``horizon`` (or a usual spelling of them: :data:`ALIASES`)
    — a guess for messages, never for what is run."""
    from .foreign import shape_of
    from .protocols import Policy

    if isinstance(obj, type):  # a class whose instances are runs, in the sequential protocol or a foreign shape
        return all(callable(getattr(obj, m, None)) for m in ("act", "update")) or shape_of(obj) is not None
    if isinstance(obj, Policy) or (not callable(obj) and isinstance(obj, SequentialRun)):
        return True
    try:
        names = set(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return False
    return "size" not in names and any(ALIASES.get(n, n) in ("n_arms", "horizon") for n in names)


def is_sequential_factory(obj) -> bool:
    """Whether ``obj`` is a callable that is not itself a run (a factory of runs, or of a batched policy) — a
    function, or a class whose instances are runs."""
    return callable(obj) and (isinstance(obj, type) or not isinstance(obj, SequentialRun))


class SequentialPolicy:
    """A factory of one-object-per-run policies as a batched policy (see the module docstring).

    ``factory`` is called once per run with the keywords it declares (:func:`_keywords`: among ``n_arms``,
    ``horizon``, ``rng``, ``params`` — the claim's parameters — and ``extra``, the user's own); ``name`` is what
    reports call it.  Unless ``probed`` (a run :func:`as_policy` already made), the factory is called once here, as
    a check, with a generator of seed 0.  ``note`` says how it was adapted (:mod:`.foreign`), if it was; ``call``,
    how the factory is called, where the caller worked it out already."""

    n_uniforms = 2  # per run and round; read at round 1 only: the run's generator and the batch's global seeds
    n_update_uniforms = 0

    def __init__(
        self,
        factory: Callable,
        n_arms: int,
        horizon: int | None = None,
        params: dict | None = None,
        name: str = "policy",
        extra: dict | None = None,
        probed=None,
        note: str | None = None,
        contexts: np.ndarray | None = None,
        dim: int | None = None,
        call: _Call | None = None,
        context_bound: float = 1.0,
    ):
        if not callable(factory):
            raise InvalidArgument(f"{name} is not a function returning a policy")
        self.factory, self.n_arms, self.horizon, self.name = factory, int(n_arms), horizon, name
        #: the public contexts of a contextual policy, (horizon, n_arms, dim): round t's are ``contexts[t - 1]``
        self.contexts = contexts
        #: the norm bound L the contexts were checked against (drawn on its sphere)
        self.context_bound = context_bound
        self._call = call or _keywords(factory, self.n_arms, horizon, params or {}, name, extra, dim, context_bound)
        notes = [n for n in (note, self._call.note(name)) if n]
        self.adapter_note = "; ".join(notes) if notes else None
        self.randomness_warning = None  # set by as_policy when a probe run drew no randomness
        self._run_types = set()  # classes whose act and update make_run has seen (checked once a class)
        if probed is None:
            probed = self.make_run(np.random.default_rng(0))  # checks the factory now, before any work
        from .foreign import run_call

        #: the runs' call that chooses an arm, as the user's code names it (:class:`~.protocols.SaysAct`)
        self.act_call = run_call(probed) or ("act(t, contexts)" if contexts is not None else "act(t)")

    def make_run(self, rng):
        """One run of the policy, made by the factory with the generator ``rng`` (its keywords as worked out once)."""
        try:
            run = self._call(self.factory, rng)
        except Exception as exc:
            raise raised(TargetError, f"{self.name}: the factory raised {type(exc).__name__}: {exc}", exc) from None
        if type(run) not in self._run_types:  # a run of a class seen before has the class's act and update
            if not isinstance(run, SequentialRun):
                raise InvalidArgument(
                    f"{self.name} returned {type(run).__name__}, not a policy with act(t) and update(t, arm, reward)"
                )
            if all(callable(getattr(type(run), m, None)) for m in ("act", "update")):
                self._run_types.add(type(run))
        return run

    def __repr__(self) -> str:
        return f"SequentialPolicy({self.name}, n_arms={self.n_arms})"

    def init(self, runs: int) -> "_Runs":
        return _Runs([None] * int(runs))

    def held(self, state: "_Runs"):
        """A block in which every act and update of the runs in ``state`` shares one swap of their global generators
        (:meth:`_Runs.held`)."""
        return state.held()

    def act(self, state: "_Runs", t: int, u: np.ndarray, contexts: np.ndarray | None = None) -> np.ndarray:
        """Each run's arm at round t; a contextual run is given round t's ``contexts`` (n_arms × dim) — the
        policy's public ones unless the input has its own (joint DP: the changed user's row)."""
        if state and state[0] is None:
            self._start(state, u)
        if contexts is None and self.contexts is not None:
            contexts = self.contexts[t - 1]
        if contexts is not None and np.ndim(contexts) == 3:  # each run its own (chosen by an adversary as it goes)
            return self._act_each(state, t, contexts)
        arms = None  # the arms offered, when some are not: the run sees their contexts only, and answers among them
        if contexts is not None and np.isnan(contexts).any():
            arms = offered(contexts)
            contexts = contexts[arms]
        seen = () if contexts is None else (contexts,)  # a contextual run sees round t's contexts
        with state.globals():
            try:  # (one frame for all the runs: at a few runs a batch, the per-call overhead is the audit's time)
                out = [run.act(t, *seen) for run in state]
            except Exception as exc:
                raise self._failed(self._said_act(t), exc) from None
        return self._among(self._arms(out, t), arms)

    def _act_each(self, state: "_Runs", t: int, contexts: np.ndarray) -> np.ndarray:
        """Round t's arms when each run has its own contexts (runs × n_arms × dim)."""
        out = []
        with state.globals():
            for i, run in enumerate(state):
                c, arms = contexts[i], None
                if np.isnan(c).any():
                    arms = offered(c)
                    c = c[arms]
                try:
                    arm = run.act(t, c)
                except Exception as exc:
                    raise self._failed(self._said_act(t), exc) from None
                out.append(arm if arms is None else self._among(self._arms([arm], t), arms)[0])
        return self._arms(out, t)

    def _said_act(self, t: int) -> str:
        """The runs' call that chooses an arm at round ``t``, as the user's code names it."""
        return self.act_call.replace("(t", f"({t}", 1)

    def _arms(self, out: list, t: int) -> np.ndarray:
        """The runs' answers at round ``t`` as an array (:func:`_arms`): one arm each — a run that answered with
        several values (the arms' scores, say) is refused in its own code's words."""
        held = _arms(out)
        if held.dtype != object and held.ndim > 1:
            call = self._said_act(t)
            raise TargetError(
                f"{self.name}: {call} returned {held.shape[1]} values (shape {held.shape[1:]}) where one arm is "
                f"expected, an integer in [0, {self.n_arms}) — if they are the arms' scores, return the index of the "
                "arm it plays (int(np.argmax(scores)))"
            )
        return held

    def _failed(self, call: str, exc: Exception) -> TargetError:
        """The error of a run's ``call`` (``act(t)``, ``update(t, …)``) that raised ``exc``."""
        return raised(TargetError, f"{self.name}: {call} raised {type(exc).__name__}: {exc}", exc)

    def _among(self, out: np.ndarray, arms) -> np.ndarray:
        """The runs' answers among the arms offered (``arms``; None: all were), as arm indices."""
        if arms is None:
            return out
        from .protocols import checked_actions

        return arms[checked_actions(out, len(out), len(arms), f"{self.name} (among the {len(arms)} arms offered)")]

    def update(self, state: "_Runs", t: int, arms: np.ndarray, feedback: np.ndarray, u) -> "_Runs":
        with state.globals():
            try:
                for run, arm, r in zip(state, arms.tolist(), np.asarray(feedback, dtype=float).tolist()):
                    run.update(t, arm, r)
            except Exception as exc:
                raise self._failed(f"update({t}, …)", exc) from None
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
                state[i] = self.make_run(np.random.Generator(np.random.PCG64(seq)))


class _Runs(list):
    """The objects of a batch of runs, and the states of numpy's and Python's global generators as the batch left
    them: swapped in while its runs act or update, and the caller's own states put back after (a policy that
    draws from the global generators gets independent runs across batches; the caller's state is untouched) —
    :mod:`privcheck.core.globalrng`."""

    generators: BatchGenerators | None = None
    _hold: ExitStack | None = None  # while held: where the swap, once made, stays until the hold ends

    def globals(self):
        """The batch's global generators swapped in for a block (see :meth:`held`)."""
        if self._hold is None:
            return swapped(self.generators)
        if not self._swapped:
            self._hold.enter_context(swapped(self.generators))
            self._swapped = True
        return nullcontext()

    @contextmanager
    def held(self):
        """Every block of the runs' calls within this one under a single swap, made at the first and undone at the
        end: a loop over the rounds of a small batch (the input search's coupled runs: a few dozen) otherwise swaps
        twice a round, and measured, the swaps were a fifth of an audit of a policy written one object per run.  The
        caller's code between the calls sees the batch's global generators; privcheck's draws only from the
        generators it is given."""
        with ExitStack() as stack:
            self._hold, self._swapped = stack, False
            try:
                yield self
            finally:
                self._hold = None


def _arms(out: list) -> np.ndarray:
    """The arms returned, as a numeric array when they are numbers (``checked_actions`` then checks them), else as
    an object array of what was returned."""
    try:
        return np.asarray(out)
    except (TypeError, ValueError):
        held = np.empty(len(out), dtype=object)
        for i, a in enumerate(out):
            held[i] = a
        return held


#: said of a policy whose probe run drew from nothing it was given
_NO_DRAW = (
    "{name} drew no randomness in a probe run — not from the rng it is given, nor from numpy's or Python's global "
    "generators: it is deterministic, or draws from a generator of its own; if that one has a fixed seed (such as "
    "default_rng(42)), every run repeats the same noise and its privacy is a deterministic policy's — draw from the "
    "rng it is given"
)


#: the longest horizon a probe run is played over to tell whether a policy draws any randomness
_PROBE_ROUNDS = 4096


def _draws_nothing(run, rng, start: dict, n_arms: int, horizon, contexts=None) -> bool:
    """Whether ``run`` — made by the factory with ``rng``, whose state was ``start`` before — played on rewards of
    1/2 for the whole ``horizon``, has drawn from neither ``rng`` nor the global generators (played under global
    generators of its own, so the caller's are untouched).  Not judged (False) without a horizon, beyond
    :data:`_PROBE_ROUNDS` rounds (a policy may draw only late), or when the run fails (the audit reports it)."""
    if horizon is None or horizon > _PROBE_ROUNDS:
        return False
    batch = BatchGenerators(np.random.RandomState(0).get_state(), random.Random(0).getstate())
    numpy0, python0 = batch.numpy_state, batch.python_state
    try:
        with swapped(batch):
            for t in range(1, horizon + 1):
                arm = run.act(t) if contexts is None else run.act(t, contexts[t - 1])
                run.update(t, int(arm) % n_arms, 0.5)
    except Exception:
        return False
    same_numpy = np.array_equal(batch.numpy_state[1], numpy0[1]) and batch.numpy_state[2] == numpy0[2]
    return rng.bit_generator.state == start and same_numpy and batch.python_state == python0


def takes_contexts(run) -> bool:
    """Whether a run's ``act`` takes the round's contexts beside the round (``act(t, contexts)``)."""
    try:
        params = [
            p
            for p in inspect.signature(run.act).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
        ]
    except (TypeError, ValueError):
        return False
    return len(params) == 2


def public_contexts(n_arms: int, horizon: int, dim: int, seed: int = CONTEXT_SEED, bound: float = 1.0) -> np.ndarray:
    """Contexts of a contextual audit when none are given: each arm's features at each round drawn once, uniformly
    on the sphere of radius ``bound`` (the norm bound L) in R^dim, from ``seed`` — public, and the same in every
    audit."""
    g = np.random.default_rng(seed).standard_normal((int(horizon), int(n_arms), int(dim)))
    return bound * (g / np.linalg.norm(g, axis=2, keepdims=True))


def check_context_bound(context_bound) -> float:
    """The norm bound L of a contextual audit's contexts: a finite positive number (default 1)."""
    if context_bound is None:
        return 1.0
    try:
        L = float(context_bound)
    except (TypeError, ValueError):
        raise InvalidArgument(f"context_bound={context_bound!r} must be a positive number") from None
    if not (math.isfinite(L) and L > 0):
        raise InvalidArgument(f"context_bound={context_bound!r} must be a finite positive number")
    return L


def check_contexts(contexts, horizon: int, n_arms: int, bound: float, what: str = "contexts=") -> np.ndarray:
    """Contexts (horizon × n_arms × dim) of numbers whose every feature vector has a norm of at most ``bound``, or
    an :class:`InvalidArgument` naming ``what``.  An arm not offered at a round has a row of NaN (``null`` in
    JSON): the round's action set is then the arms offered, at least one."""
    try:
        contexts = np.asarray(contexts, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgument(f"{what} must hold numbers, shape (horizon, n_arms, dim)") from None
    if contexts.ndim != 3 or contexts.shape[:2] != (horizon, n_arms) or contexts.shape[2] < 1:
        raise InvalidArgument(
            f"{what} must be numbers of shape (horizon, n_arms, dim) = ({horizon}, {n_arms}, d), not {contexts.shape}"
        )
    absent = np.isnan(contexts)
    if np.isinf(contexts).any() or (absent.any(axis=2) != absent.all(axis=2)).any():
        raise InvalidArgument(
            f"{what} must be finite numbers, an arm not offered at a round a whole row of NaN (null in JSON)"
        )
    if absent.all(axis=2).all(axis=1).any():
        t = int(np.flatnonzero(absent.all(axis=2).all(axis=1))[0])
        raise InvalidArgument(f"{what}: no arm is offered at round {t + 1} (every row NaN)")
    norms = np.where(absent.all(axis=2), 0.0, np.linalg.norm(np.nan_to_num(contexts), axis=2))
    if norms.max() > bound * (1 + 1e-12):
        t, k = np.unravel_index(int(norms.argmax()), norms.shape)
        raise InvalidArgument(
            f"{what}: the context of arm {k} at round {t + 1} has norm {norms[t, k]:.6g}, above the bound "
            f"context_bound={bound:g} (the L of the papers: give the bound your policy is calibrated for)"
        )
    return contexts


def offered(contexts: np.ndarray) -> np.ndarray:
    """The arms offered at a round, from its contexts (n_arms × dim; an arm not offered a row of NaN)."""
    return np.flatnonzero(~np.isnan(contexts).all(axis=1))


def _dimension(dim, contexts) -> int:
    """The contexts' dimension: ``dim`` (default :data:`DEFAULT_DIM`), or that of the ``contexts`` given — which must
    agree with ``dim`` when both are given, before any of the user's code sees them."""
    shape = np.shape(contexts) if contexts is not None else ()
    if len(shape) != 3:
        return DEFAULT_DIM if dim is None else dim
    if dim is not None and shape[2] != dim:
        raise InvalidArgument(
            f"contexts= are vectors of dimension {shape[2]} (shape {tuple(shape)}), not dim={dim}: give the "
            "dimension your policy is written for, and contexts of it"
        )
    return int(shape[2])


def _contextual(made, n_arms: int, horizon, dim, contexts, name: str, bound: float) -> tuple:
    """(contexts, note) of a contextual run: the given contexts checked, or the public ones drawn."""
    if horizon is None:
        raise InvalidArgument(f"{name} is a contextual policy (act(t, contexts)): give horizon=")
    if contexts is None:
        contexts = public_contexts(n_arms, horizon, dim, bound=bound)
        sphere = "the unit sphere" if bound == 1 else f"the sphere of radius {bound:g}"
        how = f"drawn once on {sphere} of R^{dim} (seed {CONTEXT_SEED}, the same in every audit)"
    else:
        contexts = check_contexts(contexts, horizon, n_arms, bound)
        how = f"as given (norms at most {bound:g})"
    note = (
        f"{name} is contextual (act(t, contexts)): each round's contexts, {n_arms} × {contexts.shape[2]}, are public "
        f"and the same in every run — {how}"
    )
    return contexts, note


def as_policy(
    obj,
    *,
    n_arms: int,
    horizon: int | None = None,
    claim=None,
    name: str = "policy",
    factory_args: dict | None = None,
    dim: int | None = None,
    contexts=None,
    context_bound=None,
    one_based: bool = False,
):
    """A batched policy from what a user gives: a batched policy as it is; a factory of batched policies called
    once (with the keywords it declares: :func:`_keywords`); a factory (or class) of runs (:class:`SequentialRun`)
    as a :class:`SequentialPolicy` — runs of a known foreign shape through their adapter (:mod:`.foreign`), said in
    the policy's ``adapter_note``.  ``factory_args``: the factory's own parameters, by name.  A run whose ``act``
    takes the round's contexts (``act(t, contexts)``, an ``n_arms × dim`` array) is contextual: it is audited on
    ``contexts`` (horizon × n_arms × dim) or, when none are given, on public contexts drawn on the unit sphere
    (:func:`public_contexts`, of dimension ``dim``, on the sphere of radius ``context_bound``, the norm bound L
    every context is checked against); the factory may declare ``dim`` and ``context_bound``.  ``one_based``: the
    runs, of a foreign shape recognised here, number their arms from 1."""
    from .foreign import ADAPTERS, adapt, shape_of
    from .protocols import Policy

    if isinstance(obj, Policy):
        if factory_args:
            raise InvalidArgument("factory_args= applies to a factory, not to a policy object")
        return obj
    if not is_sequential_factory(obj):
        raise InvalidArgument(
            f"{name} is {type(obj).__name__}: give a policy, a function (or class) making one run with act(t) and "
            "update(t, arm, reward), or one whose runs privcheck.adapters wraps "
            f"({'; '.join(f'{k}: {v}' for k, (_, v) in ADAPTERS.items())})"
        )
    params = claim_parameters(claim)
    dim = _dimension(dim, contexts)  # (what a factory declaring dim is given, and the contexts' dimension)
    bound = check_context_bound(context_bound)
    call = _keywords(obj, n_arms, horizon, params, name, factory_args, dim, bound)
    probe = np.random.default_rng(0)
    start = probe.bit_generator.state
    try:
        made = call(obj, probe)
    except Exception as exc:
        raise raised(InvalidArgument, f"the policy factory {name} raised {type(exc).__name__}: {exc}", exc) from None
    if isinstance(made, Policy):
        if made.n_arms != n_arms:
            raise InvalidArgument(f"{name} gave a policy on {made.n_arms} arms for an instance of {n_arms}")
        return made
    note = getattr(obj, "adapter", None)
    note = None if note is None else f"{name}'s runs go through privcheck.adapters.{note}"
    shape = None if isinstance(made, SequentialRun) else shape_of(made)
    if shape is not None:
        obj = adapt(obj, shape, one_based=one_based)
        made = ADAPTERS[shape][0](made, one_based)
        note = f"{name}'s runs have {ADAPTERS[shape][1]}: run through privcheck.adapters.{shape}, " + (
            "arms numbered from 1"
            if one_based
            else "arms numbered from 0 (for code numbering them from 1, give one_based=True)"
        )
    elif one_based:
        raise InvalidArgument(
            f"one_based=True applies to runs of a shape privcheck.adapters wraps; {name}'s runs have act and update, "
            "whose arms are numbered from 0"
        )
    if isinstance(made, SequentialRun):
        ctx = None
        if takes_contexts(made):
            ctx, said = _contextual(made, n_arms, horizon, dim, contexts, name, bound)
            note = "; ".join(filter(None, [note, said]))
        elif contexts is not None:
            raise InvalidArgument(f"contexts= applies to a contextual policy; {name}'s act takes the round only")
        policy = SequentialPolicy(
            obj,
            n_arms,
            horizon,
            params,
            name,
            factory_args,
            probed=made,
            note=note,
            contexts=ctx,
            dim=dim,
            call=call,
            context_bound=bound,
        )
        if call.rng_names and not call.seed_names and _draws_nothing(made, probe, start, n_arms, horizon, ctx):
            policy.randomness_warning = _NO_DRAW.format(name=name)
        return policy
    raise InvalidArgument(
        f"{name} returned {type(made).__name__}: neither a batched policy (init, act, update, n_arms, n_uniforms) "
        "nor one run of a policy (act(t), update(t, arm, reward)), nor a shape privcheck.adapters wraps "
        f"({'; '.join(f'{k}: {v}' for k, (_, v) in ADAPTERS.items())})"
    )
