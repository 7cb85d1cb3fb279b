"""The mechanism and policy protocols, and the adapter that makes a user's function a mechanism.

A mechanism has a ``claim`` (what it asserts, rounded to the safe side) kept apart from its sampler
``sample(x, rng, size)``, which returns an array whose axis 0 indexes ``size`` independent draws.  Optional
exact faces:

* finite outputs: ``support(x)`` (array of possible outputs, axis 0 indexing outcomes) and
  ``logpmf(x, outcomes)``;
* real scalar outputs: ``logcdf(x, o)`` and ``logsf(x, o)``, ln P[M(x) ≤ o] and ln P[M(x) > o] — of a density
  (then ``logpdf(x, o)`` too) or of a lattice distribution (a grid mechanism's step CDF); the exact engine
  takes interval masses from them.

A user's function ``f(x, rng, size)`` is a mechanism too (:class:`CallableMechanism`); a function without
``size`` is called once per draw, which is slow, and the report says so.

A policy (:class:`Policy`) keeps its state as data and is batched over independent runs: ``init(runs)``,
``act(state, t, u)`` with ``u`` uniforms drawn by the caller (``n_uniforms`` per run), ``update(state, t, arms,
feedback, u)`` (``n_update_uniforms`` per run, 0 by default).  An enumerable policy also gives ``probs(state, t)``
(its decision kernel, runs × arms) and, where its probabilities are exact numbers other than their doubles,
``exact_probs``.  A decision-rule policy (:func:`is_decision_rules`) gives its rule tables as ``rules`` with the
float rows ``p0``, ``p1``.  The auditor works on these protocols only; the command line maps names to objects.

Every optional hook the auditor reads is declared here, as a :class:`typing.Protocol` with its docstring, and is
asked for with :func:`provides` — nowhere else does the auditor probe an object for an attribute.

Names, claims and definitions follow one convention for mechanisms and policies alike: ``name`` (a short
string, for reports), ``claim`` (the privacy the object asserts) and, for a policy, ``definition`` (which
neighbours its claim is about: ``table``, ``view``, ``interactive`` or ``local``) are plain attributes (or
properties) of the instance.
"""

from __future__ import annotations

import inspect
import math
from typing import Any, Callable, Protocol, runtime_checkable

import numpy as np

from .claims import Claim
from .errors import InvalidArgument, PrivcheckError, TargetError, raised
from .globalrng import chunk_globals

__all__ = [
    "provides",
    "OwnGlobalGenerators",
    "Adapted",
    "RandomnessWarning",
    "Named",
    "Claimed",
    "Defined",
    "FiniteFace",
    "LogFiniteFace",
    "CdfFace",
    "DensityFace",
    "ExampleInput",
    "FloatSampler",
    "Unvectorised",
    "OwnRelation",
    "OwnStatistics",
    "ReleasedOverRounds",
    "FixedHorizon",
    "Enumerable",
    "ExactKernel",
    "UpdateUniforms",
    "ReleaseSchedule",
    "Steady",
    "PhaseScale",
    "WidthScale",
    "AuditTable",
    "Chunked",
    "UserReports",
    "DecisionRules",
    "FiniteChannel",
    "BoundedReports",
    "Contextual",
    "Mechanism",
    "CallableMechanism",
    "as_mechanism",
    "has_finite_face",
    "has_density_face",
    "draw",
    "check_like",
    "Policy",
    "update_uniforms",
    "is_decision_rules",
]


def provides(obj, hook: type) -> bool:
    """Whether ``obj`` provides the optional ``hook`` (one of the protocols below): it has every member, and
    every method member is callable."""
    if not isinstance(obj, hook):
        return False
    return all(callable(getattr(obj, m)) for m in _methods(hook))


def _methods(hook: type) -> tuple:
    return tuple(m for m, v in vars(hook).items() if callable(v) and not m.startswith("_"))


# ---------------------------------------------------------------------------------------- optional hooks


@runtime_checkable
class Named(Protocol):
    """A short name for reports (mechanisms and policies alike)."""

    name: str


@runtime_checkable
class Claimed(Protocol):
    """The privacy the object asserts, rounded to the safe side: the claim audited when none is given."""

    claim: Claim


@runtime_checkable
class Defined(Protocol):
    """A policy's ``definition``: which neighbours its claim is about (table, view, interactive or local; None
    when it claims nothing) — the definition audited when none is given."""

    definition: str | None


@runtime_checkable
class FiniteFace(Protocol):
    """A finite output: ``support(x)`` lists the possible outputs (axis 0), ``pmf(x, outcomes)`` their exact
    probabilities (doubles, or exact numbers)."""

    def support(self, x: Any) -> np.ndarray: ...

    def pmf(self, x: Any, outcomes: np.ndarray) -> Any: ...


@runtime_checkable
class LogFiniteFace(Protocol):
    """A finite output given by log-probabilities: ``support(x)`` and ``logpmf(x, outcomes)``."""

    def support(self, x: Any) -> np.ndarray: ...

    def logpmf(self, x: Any, outcomes: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class CdfFace(Protocol):
    """A real scalar output: ln P[M(x) ≤ o] and ln P[M(x) > o] (of a density, or of a lattice distribution)."""

    def logcdf(self, x: Any, o: np.ndarray) -> np.ndarray: ...

    def logsf(self, x: Any, o: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class DensityFace(Protocol):
    """A real scalar output with a density: its log-density (with :class:`CdfFace`, the exact binned face)."""

    def logpdf(self, x: Any, o: np.ndarray) -> np.ndarray: ...


@runtime_checkable
class ExampleInput(Protocol):
    """An input whose neighbours are searched when the audit is given neither pairs nor an input."""

    example_input: Any


@runtime_checkable
class FloatSampler(Protocol):
    """Which sampler draws the outputs: ``"exact"`` (integers on a grid) or ``"float"`` (textbook floating
    point, which the report flags: its exact faces are the real-valued mechanism's, not its doubles')."""

    sampler: str


@runtime_checkable
class Unvectorised(Protocol):
    """``vectorised`` False: the target is called once per draw (a function without ``size``), which is slow."""

    vectorised: bool


@runtime_checkable
class Adapted(Protocol):
    """``adapter_note``: how a user's policy was made runnable — through an adapter of the field's shapes
    (:mod:`privcheck.adapters`), its parameters matched by their usual names — said in the report (None: as given)."""

    adapter_note: Any


@runtime_checkable
class RandomnessWarning(Protocol):
    """``randomness_warning``: what a probe of a user's policy found wrong with its randomness (a run that drew from
    nothing it was given), said before any verdict and in the report (None: nothing found)."""

    randomness_warning: Any


@runtime_checkable
class OwnGlobalGenerators(Protocol):
    """``own_global_generators`` true: the target gives numpy's and Python's global generators states of its own
    for each draw (a sequential policy's runs), so :func:`draw` does not swap in the chunk's (it does for every other
    target: :func:`privcheck.core.globalrng.chunk_globals`)."""

    own_global_generators: bool


@runtime_checkable
class OwnRelation(Protocol):
    """The neighbour relation of a built-in whose own claim may be unavailable (e.g. uncalibrated)."""

    relation: Any


@runtime_checkable
class OwnStatistics(Protocol):
    """Features of the outputs that the sampled engine thresholds beside its own (e.g. a policy's pulls of each
    arm): a list of :class:`~privcheck.audits.mechanism.events.Statistic`."""

    def statistics(self) -> list: ...


@runtime_checkable
class ReleasedOverRounds(Protocol):
    """A target whose draws are values released after each of its rounds (a policy's or an episodic agent's releases
    view): ``released_over()`` is (rounds, blocks) — each draw ``blocks`` blocks of rounds × W values, the first the
    releases, a round's W values together — or None where its draws are not releases (its actions).  The sampled
    engine fits the stepped projection on them (:func:`privcheck.audits.mechanism.continual.stepped`)."""

    def released_over(self) -> tuple | None: ...


@runtime_checkable
class FixedHorizon(Protocol):
    """A policy built for a horizon T: the audit's horizon when none is given."""

    horizon: int


@runtime_checkable
class Enumerable(Protocol):
    """A policy whose decision kernel can be read: ``probs(state, t)`` (runs × arms), for the exact engines."""

    def probs(self, state: Any, t: int) -> np.ndarray: ...


@runtime_checkable
class ExactKernel(Protocol):
    """The decision kernel as exact numbers (Fractions or intervals) where they are not their doubles."""

    def exact_probs(self, state: Any, t: int) -> Any: ...


@runtime_checkable
class UpdateUniforms(Protocol):
    """How many uniforms per run ``update`` takes (0 when not declared)."""

    n_update_uniforms: int


@runtime_checkable
class ReleaseSchedule(Protocol):
    """The round at whose end the policy first makes a private release (∞ if never): an audit horizon at or
    before it is vacuous and refused."""

    def first_release(self) -> float: ...


@runtime_checkable
class Steady(Protocol):
    """A policy whose next actions are fixed for stretches of rounds (an episode's or a phase's schedule), so that
    an audit can run those rounds as one block.  ``steady(state, t, most)`` → (runs, L) int64, 0 ≤ L ≤ most: the
    arm each run plays at rounds t … t + L − 1, which no feedback in those rounds can change (its ``act`` there
    reads no uniform); ``accumulate(state, t, arms, feedback, u)`` with the arms observed (runs, L: those played,
    or an adversary's queries), the feedback (runs, L) and the uniforms (L, runs, n_update_uniforms) those rounds'
    updates would be given → the state after them, the same as L calls of ``update``."""

    def steady(self, state: Any, t: int, most: int) -> np.ndarray: ...

    def accumulate(self, state: Any, t: int, arms: np.ndarray, feedback: np.ndarray, u: np.ndarray) -> Any: ...


@runtime_checkable
class PhaseScale(Protocol):
    """A phased policy's ``phase_scale``: the factor on its phase lengths (a shorter schedule releases sooner)."""

    phase_scale: float


@runtime_checkable
class WidthScale(Protocol):
    """An index or elimination policy's ``width_scale``: the factor on its confidence widths (narrower widths
    end its first phase sooner; privacy does not depend on them)."""

    width_scale: float


@runtime_checkable
class AuditTable(Protocol):
    """A reward table of ``horizon`` rows whose neighbours reach the policy's full sensitivity (e.g. rewards at
    ± its clipping bound): where a sampled policy audit searches when given no input."""

    def audit_table(self, horizon: int) -> np.ndarray: ...


@runtime_checkable
class Chunked(Protocol):
    """A target whose draws are expensive (a policy's runs): its streams are cut into chunks of ``chunk_draws``
    draws instead of :data:`~privcheck.core.rng.CHUNK_SIZE`, so that a few thousand draws spread over workers."""

    chunk_draws: int


@runtime_checkable
class UserReports(Protocol):
    """The randomizer each user applies to their own report (a local-DP policy): what a local audit checks."""

    def report_mechanism(self) -> Any: ...


@runtime_checkable
class DecisionRules(Protocol):
    """A two-armed policy given by decision-rule tables (``rules``) with their float rows ``p0``, ``p1``: every
    probability an exact number, so δ can be computed in rational arithmetic."""

    rules: list
    p0: Any
    p1: Any


@runtime_checkable
class FiniteChannel(Protocol):
    """A finite feedback randomizer: ``Q[r, s]`` = P[report s | reward r]."""

    Q: np.ndarray


@runtime_checkable
class BoundedReports(Protocol):
    """A real-valued report randomizer clipping rewards at the public bound ``bound``."""

    bound: float


@runtime_checkable
class RewardDomain(Protocol):
    """The rewards a policy's claim is about, when not [0, 1]: ``reward_domain`` (lo, hi), ends possibly infinite —
    a heavy-tailed policy's privacy holds for any real reward (its truncation bounds what one can do).  Given
    tables are checked against it; an audit's ``reward_range=`` must lie within it."""

    reward_domain: tuple


@runtime_checkable
class PublicContexts(Protocol):
    """A contextual policy's public contexts, ``contexts`` (horizon × n_arms × dim; None when the policy reads
    none): what its audits run on."""

    contexts: Any


@runtime_checkable
class SaysAct(Protocol):
    """How the user's code names the call that chooses an arm (``act_call``: ``"get_arm(contexts)"``,
    ``"step(last_reward, last_arm)"``, …), said in messages about what it returned instead of ``act``."""

    act_call: str


@runtime_checkable
class Contextual(Protocol):
    """``contextual`` True: an environment that draws a fresh action set each round, or a policy that takes one."""

    contextual: bool


@runtime_checkable
class Mechanism(Protocol):
    """What the auditor needs: a claim and a batched sampler."""

    claim: Claim

    def sample(self, x: Any, rng: np.random.Generator, size: int) -> np.ndarray: ...


@runtime_checkable
class Policy(Protocol):
    """What the policy auditor needs (see the module docstring)."""

    n_arms: int
    n_uniforms: int

    def init(self, runs: int) -> Any: ...

    def act(self, state: Any, t: int, u: np.ndarray) -> np.ndarray: ...

    def update(self, state: Any, t: int, arms: np.ndarray, feedback: np.ndarray, u: np.ndarray | None) -> Any: ...


def contexts_of(policy):
    """The public contexts a contextual policy is audited on (:class:`PublicContexts`), or None: a policy that reads
    no contexts."""
    return policy.contexts if provides(policy, PublicContexts) else None


def update_uniforms(policy) -> int:
    """How many uniforms per run the policy's ``update`` takes (0 unless it declares ``n_update_uniforms``)."""
    return int(policy.n_update_uniforms) if provides(policy, UpdateUniforms) else 0


def checked_actions(arms, size: int, n_arms: int, name: str = "the policy", policy=None) -> np.ndarray:
    """The arms a policy's ``act`` returned, as int64 of shape (size,), or a :class:`TargetError` naming the policy
    (and the call as the user's code names it, where ``policy`` says it: :class:`SaysAct`): integers (or integral
    floats) in [0, n_arms) — never cast silently (0.5 is not arm 0, −1 is not the last)."""
    a = np.asarray(arms)
    # (how the user's code names the call, read only to say an error: on every round's path, the protocol check
    # was two fifths of this function's time — measured under py-spy on a 1,000-round policy audit)
    said = lambda: policy.act_call if provides(policy, SaysAct) else "act"  # noqa: E731
    if a.shape != (size,):
        if a.size == size and a.ndim <= 2 and size > 0:
            a = a.reshape(size)
        else:
            raise TargetError(f"{name}: act returned shape {a.shape}, not ({size},): one arm per run")
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise TargetError(f"{name}: {said()} returned {a.dtype} values, not arm indices (integers)")
    if a.dtype.kind == "f":
        if not np.isfinite(a).all() or (a != np.floor(a)).any():
            bad = a[~np.isfinite(a) | (a != np.floor(a))][0].item()
            raise TargetError(f"{name}: {said()} returned {bad!r}, not an arm index (an integer in [0, {n_arms}))")
    if a.dtype == np.int64:  # the usual case, on every round's path: a negative arm is ≥ 2^63 as uint64
        out = bool(size) and a.view(np.uint64).max() >= n_arms
    else:
        out = bool(size) and (a.min() < 0 or a.max() >= n_arms)
    if out:
        bad = a[(a < 0) | (a >= n_arms)][0].item()
        hint = (
            " (code that numbers its arms from 1 goes through an adapter of privcheck.adapters with one_based=True)"
            if bad == n_arms
            else ""
        )
        raise TargetError(
            f"{name}: {said()} returned arm {bad!r}, outside [0, {n_arms}) — arms are 0 … {n_arms - 1}{hint}"
        )
    return a.astype(np.int64, copy=False)


def is_decision_rules(policy) -> bool:
    """Whether the policy is given by decision-rule tables (``rules`` with float rows ``p0``, ``p1``): two arms,
    binary feedback, every probability an exact number."""
    return provides(policy, DecisionRules) and isinstance(policy.rules, list)


def has_finite_face(m) -> bool:
    """``support`` with ``pmf`` (exact probabilities) or ``logpmf`` (exact log-probabilities)."""
    return provides(m, FiniteFace) or provides(m, LogFiniteFace)


def has_density_face(m) -> bool:
    return provides(m, DensityFace)


class CallableMechanism:
    """A user function ``f(x, rng, size)`` (or ``f(x, rng)``) seen as a mechanism.

    ``claim`` is optional here: the auditor is always told the claim under test.
    """

    def __init__(self, fn: Callable, name: str | None = None, claim: Claim | None = None):
        if not callable(fn):
            raise InvalidArgument(f"target {fn!r} is not callable")
        self.fn = fn
        self.name = name or getattr(fn, "__qualname__", repr(fn))
        self.claim = claim
        self.vectorised = _takes_size(fn)

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        if self.vectorised:
            return self.fn(x, rng, size)
        if not size:
            return np.empty((0,))
        draws = [self.fn(x, rng) for _ in range(size)]
        try:
            return np.stack([np.asarray(d) for d in draws])
        except (OverflowError, ValueError, TypeError):  # e.g. Python ints beyond int64, ragged draws: as given
            return draws

    def __repr__(self):
        return f"CallableMechanism({self.name})"


def _takes_size(fn) -> bool:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    params = list(sig.parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params) or "size" in sig.parameters:
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3


def as_mechanism(obj, name: str | None = None) -> Any:
    """``obj`` if it already has ``sample``, else a :class:`CallableMechanism` around it."""
    if callable(getattr(obj, "sample", None)):
        return obj
    if callable(obj):
        return CallableMechanism(obj, name=name)
    raise InvalidArgument(f"target {obj!r} is neither a mechanism (with .sample) nor a callable")


def draw(
    mechanism, x, rng: np.random.Generator, size: int, *, name: str = "target", expect: tuple | None = None
) -> np.ndarray:
    """Call ``mechanism.sample`` and check what comes back.

    Returns a numeric (or string) array with ``size`` rows; outputs of mixed types (symbols beside numbers, None,
    tuples, draws of different lengths) come back as string labels (:func:`_canonical`).  ``expect`` = (trailing
    shape, dtype kind) of earlier draws; a different shape or kind is a :class:`TargetError`, as are NaN values
    and exceptions raised by the target.
    """
    try:
        if provides(mechanism, OwnGlobalGenerators) and mechanism.own_global_generators:
            out = mechanism.sample(x, rng, size)
        else:  # the chunk's own global generators: a target drawing from np.random.* or random.* gets fresh ones
            with chunk_globals(rng):
                out = mechanism.sample(x, rng, size)
    except PrivcheckError:
        raise
    except Exception as exc:  # the user's code failed: one clear line, no traceback
        raise raised(TargetError, f"{name} raised {type(exc).__name__}: {exc} (input {_show(x)})", exc) from None
    arr = _canonical(out, size, name, x)
    if arr.ndim == 0 or arr.shape[0] != size:
        raise TargetError(f"{name} returned shape {arr.shape} for size={size}: axis 0 must index the {size} draws")
    if arr.dtype.kind not in "biufU":
        raise TargetError(f"{name} returned dtype {arr.dtype}: outputs must be numbers, booleans or strings")
    if arr.dtype.kind == "c":
        raise TargetError(f"{name} returned complex numbers")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise TargetError(f"{name} returned NaN (input {_show(x)})")
    if expect is not None:
        check_like(arr, expect, name)
    return arr


def check_like(arr: np.ndarray, expect: tuple, name: str = "target") -> None:
    """A :class:`TargetError` unless the draws ``arr`` have the trailing shape and dtype family of ``expect`` =
    (trailing shape, dtype kind) — those of earlier draws of the same target."""
    shape, kind = expect
    if arr.shape[1:] != shape:
        raise TargetError(f"{name} returned draws of shape {arr.shape[1:]} after earlier draws of shape {shape}")
    if _kind_family(arr.dtype.kind) != _kind_family(kind):
        raise TargetError(f"{name} returned dtype kind '{arr.dtype.kind}' after earlier draws of kind '{kind}'")


def _symbol(v) -> str:
    """A canonical label of one value of a mixed output: strings quoted, numbers by repr, None, tuples and lists
    element by element (so "2" and 2 stay apart)."""
    if isinstance(v, (str, np.str_)):
        return repr(str(v))
    if isinstance(v, (list, tuple, np.ndarray)):
        inner = ", ".join(_symbol(w) for w in (v.tolist() if isinstance(v, np.ndarray) else v))
        return f"({inner})"
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return repr(v)


def _canonical(out, size, name, x) -> np.ndarray:
    """The draws as a numeric or string array.  Outputs that mix types (symbols beside numbers, None, tuples) or
    whose draws have different lengths become labels (:func:`_symbol`): per coordinate when every draw has the
    same number of coordinates, else one label per draw — the sampled engine then audits them as categories."""
    if isinstance(out, np.ndarray) and out.dtype != object:
        return out
    try:
        obj = np.asarray(out, dtype=object)
    except Exception:  # ragged nesting numpy cannot even hold as objects
        obj = None
    if obj is not None and obj.ndim >= 1 and obj.shape[0] == size:
        flat = obj.ravel().tolist()
        nested = any(isinstance(v, (list, tuple, np.ndarray)) for v in flat)
        if not nested:
            if all(isinstance(v, (bool, np.bool_)) for v in flat):
                return obj.astype(bool)
            if all(
                isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                for v in flat
            ):
                return _numbers(obj, flat)
            if all(isinstance(v, (str, np.str_)) for v in flat):
                return obj.astype(str)
            return np.array([_symbol(v) for v in flat], dtype=str).reshape(obj.shape)
    try:
        draws = list(out)
    except TypeError:
        raise TargetError(
            f"{name} returned {type(out).__name__}, not a sequence of {size} draws (input {_show(x)})"
        ) from None
    if len(draws) != size:
        raise TargetError(f"{name} returned {len(draws)} draws for size={size}: axis 0 must index the draws")
    return np.array([_symbol(v) for v in draws], dtype=str)


def _numbers(obj: np.ndarray, flat: list) -> np.ndarray:
    """Numbers as an array that keeps them apart: int64 when all are integers that fit, float64 when every value
    is a double exactly (so 2⁷⁰ and 2⁷⁰ + 1 are never merged into one double), else exact labels."""
    ints = [v for v in flat if isinstance(v, (int, np.integer))]
    if len(ints) == len(flat) and all(-(2**63) <= int(v) < 2**63 for v in ints):
        return obj.astype(np.int64)
    if all(int(v) == float(v) for v in ints if abs(int(v)) < 2**1023) and all(abs(int(v)) < 2**1023 for v in ints):
        return obj.astype(float)
    return np.array([_symbol(int(v) if isinstance(v, (int, np.integer)) else v) for v in flat], dtype=str).reshape(
        obj.shape
    )


def _kind_family(kind: str) -> str:
    return "U" if kind == "U" else "n"


def _show(x) -> str:
    try:
        s = str(np.asarray(x).tolist())
    except Exception:
        s = repr(x)
    return s if len(s) <= 60 else s[:57] + "..."


@runtime_checkable
class EpisodicRun(Protocol):
    """One run of an episodic agent (:mod:`privcheck.core.episodic`): the action at step h of episode k in a state,
    and the step's update (a batched agent's take and give one per run)."""

    def act(self, k: int, h: int, state) -> Any: ...

    def update(self, k: int, h: int, state, action, reward, next_state) -> Any: ...


@runtime_checkable
class EndsEpisodes(Protocol):
    """``end_episode(k)``: an episodic run's work once episode k's last step is updated (its releases, its next
    policy)."""

    def end_episode(self, k: int) -> Any: ...


@runtime_checkable
class SendsReports(Protocol):
    """``report(…)``: a locally private run's user randomizer — what one user sends, from their own data: a bandit
    run's ``report(reward)`` (``report(contexts, reward)`` when contextual), an episodic run's
    ``report(trajectory)`` (one episode's steps ``(state, action, reward, next_state)``; one message per run when
    batched)."""

    def report(self, *data) -> Any: ...
