"""pytest helpers and hypothesis strategies for users' own CI.

``assert_private(mechanism, claim, ...)`` audits and raises ``AssertionError`` (with the report) when the
claim is refuted.  Given ``definition=`` ("table", "view", "interactive", "local") it audits a bandit policy —
a built-in policy object, a batched policy's factory, or a factory of one object per run
(:mod:`privcheck.core.sequential`) — with :func:`privcheck.audit_policy`, at :data:`TEST_POLICY_SAMPLES` runs per
side (every draw is a whole run) and an eighth of that per pair when screening searched pairs.

Its default confidence is 1 − 10⁻⁶: a false alarm — a correct mechanism failing CI — costs more than a slightly
weaker bound.

Many assertions in one suite: the probability that *any* of n correct mechanisms is flagged is at most the
sum of their failure probabilities, so give each ``confidence=split_confidence(c, n)`` for an overall
confidence c (Bonferroni).

Strategies (hypothesis): :func:`epsilons`, :func:`deltas`, :func:`rhos`, :func:`rr_probabilities`,
:func:`neighbouring_pairs` (pairs inside a relation's ball).
"""

from __future__ import annotations

import numpy as np

from .audits.mechanism.api import audit
from .audits.policy.api import audit_policy
from .core import AddRemove, InvalidArgument, ReplaceOne, ReplaceRecord

__all__ = [
    "assert_private",
    "split_confidence",
    "DEFAULT_TEST_CONFIDENCE",
    "TEST_SAMPLES",
    "TEST_POLICY_SAMPLES",
    "audit_target",
    "TEST_FALSE_ALARM",
    "TEST_SEED",
    "epsilons",
    "deltas",
    "rhos",
    "rr_probabilities",
    "neighbouring_pairs",
]

#: the defaults of every ``assert_private`` — this one and the pytest fixture's (which splits the false-alarm
#: budget over the suite's audits: pytest_privcheck)
TEST_SAMPLES = 200_000
#: runs per side of a policy audit in a test (each a whole run of the horizon), each candidate pair screened on an
#: eighth of them: a policy whose true ε is twice its claim (examples/elimination.py's successive elimination at
#: T = 1,000) is refuted in about 40 s on a 2-core machine (benchmarks/plugin_power.py), a loud leak at the quick
#: stage in seconds
TEST_POLICY_SAMPLES = 6_000
TEST_FALSE_ALARM = 1e-6
TEST_SEED = 0
DEFAULT_TEST_CONFIDENCE = 1 - TEST_FALSE_ALARM


def split_confidence(confidence: float, n_assertions: int) -> float:
    """Per-assertion confidence so that n assertions all hold with probability ≥ ``confidence``."""
    if not 0 < confidence < 1:
        raise InvalidArgument(f"confidence={confidence!r} must be in (0, 1)")
    if n_assertions < 1:
        raise InvalidArgument(f"n_assertions={n_assertions!r} must be >= 1")
    return 1 - (1 - confidence) / n_assertions


def audit_target(target, claim=None, *, definition: str | None = None, samples: int | None = None, **kw):
    """:func:`privcheck.audit` of a mechanism, or :func:`privcheck.audit_policy` of a policy when ``definition`` is
    given, with a test's sample sizes unless given (:data:`TEST_SAMPLES` draws, :data:`TEST_POLICY_SAMPLES` runs
    and an eighth of those per screened pair), stopping early when refuted unless ``stop_early=False``."""
    kw.setdefault("stop_early", True)  # a broken target fails fast; a correct one pays a few tenths of a percent
    if definition is None:
        return audit(target, claim, samples=TEST_SAMPLES if samples is None else samples, **kw)
    samples = TEST_POLICY_SAMPLES if samples is None else samples
    kw.setdefault("screening", max(100, samples // 8))
    return audit_policy(target, claim, definition, samples=samples, **kw)


def assert_private(
    mechanism_or_callable,
    claim=None,
    *,
    pairs=None,
    input=None,
    samples: int | None = None,
    confidence: float = DEFAULT_TEST_CONFIDENCE,
    seed=TEST_SEED,
    method: str = "auto",
    **kw,
):
    """Audit and raise ``AssertionError`` if the claim is refuted; return the report otherwise.

    A policy is audited when ``definition=`` is given (:func:`audit_target`).  The seed defaults to 0 so that a
    CI run is reproducible; pass ``seed=None`` for a fresh one.
    """
    report = audit_target(
        mechanism_or_callable,
        claim,
        pairs=pairs,
        input=input,
        samples=samples,
        confidence=confidence,
        seed=seed,
        method=method,
        **kw,
    )
    if report.violates_claim:
        raise AssertionError("privacy claim refuted:\n" + str(report))
    return report


# ------------------------------------------------------------------------------------------ strategies


def _st():
    try:
        from hypothesis import strategies as st
    except ImportError as exc:  # pragma: no cover - hypothesis is a test dependency
        raise ImportError("privcheck.testing strategies need hypothesis (pip install hypothesis)") from exc
    return st


def epsilons(min_value: float = 1e-3, max_value: float = 10.0):
    return _st().floats(min_value, max_value, allow_nan=False, allow_infinity=False)


def deltas(min_value: float = 1e-12, max_value: float = 0.5):
    return _st().floats(min_value, max_value, allow_nan=False, allow_infinity=False)


def rhos(min_value: float = 1e-3, max_value: float = 10.0):
    return _st().floats(min_value, max_value, allow_nan=False, allow_infinity=False)


def rr_probabilities():
    """(p00, p11) in [0, 1]²."""
    st = _st()
    p = st.floats(0.0, 1.0, allow_nan=False)
    return st.tuples(p, p)


def neighbouring_pairs(relation, size: int = 4, elements=None):
    """Pairs (x, x') of float vectors of length ``size`` that are neighbours under ``relation``.

    Supports ``ReplaceOne`` (a random direction scaled into the ball), ``ReplaceRecord`` and ``AddRemove``.
    """
    st = _st()
    bound = (
        relation.sensitivity
        if isinstance(relation, ReplaceOne)
        else relation.bound
        if isinstance(relation, (AddRemove, ReplaceRecord))
        else None
    ) or 1.0
    el = elements or st.floats(-bound, bound, allow_nan=False, allow_infinity=False)
    vec = st.lists(el, min_size=size, max_size=size).map(np.array)

    if isinstance(relation, ReplaceOne):

        def build(t):
            x, direction, frac = t
            norm = {"l1": np.abs(direction).sum(), "l2": np.linalg.norm(direction), "linf": np.abs(direction).max()}[
                relation.norm
            ]
            if norm == 0:
                return x, x + np.eye(size)[0] * relation.sensitivity * frac
            return x, x + direction / norm * relation.sensitivity * frac

        dirs = st.lists(st.floats(-1, 1, allow_nan=False), min_size=size, max_size=size).map(np.array)
        return st.tuples(vec, dirs, st.floats(0.01, 1.0)).map(build)
    if isinstance(relation, ReplaceRecord):

        def build_r(t):
            x, i, v = t
            y = x.copy()
            y[i % size] = v
            return x, y

        return st.tuples(vec, st.integers(0, size - 1), el).map(build_r)
    if isinstance(relation, AddRemove):
        return st.tuples(vec, el).map(lambda t: (t[0], np.append(t[0], t[1])))
    raise InvalidArgument(f"no strategy for relation {relation.describe()}")
