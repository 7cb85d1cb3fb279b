"""The one verdict path: certified figures → verdict → report, for every engine and every claim type.

Every engine (exact mechanism faces, sampled, policy Table/View, interactive) computes :class:`Figures` — each
figure an :class:`~privcheck.core.enclosure.Enclosure` [lo, hi] of the exact value for the object as
represented (a sampled or binned figure has only its lower end: hi = inf) — and hands them, with its witness,
to :func:`make_report`.  The verdict is decided here and nowhere else:

* **refuted** — a certified lower end exceeds the claim: the refutation is a proof (with the engine's stated
  confidence when it sampled);
* **not refuted** — no certified lower end exceeds it; when the engine also certified an upper end at or below
  the claim, the report says the claim holds on the pairs audited;
* **undecided** — the exact value's enclosure contains the claim even after the engine raised its precision:
  not a refutation (exit 0), and said so.

A claim type is one :class:`_Rule`: which figure decides it and at what value; a new claim type touches only
:data:`RULES`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

from privcheck.core import DEFAULT_ORDERS, ApproxDP, PureDP, RenyiDP, ZCDP
from privcheck.core.enclosure import Enclosure

from .report import AuditReport

__all__ = ["Figures", "Needs", "needs", "decide", "make_report", "REFUTED", "NOT_REFUTED", "UNDECIDED", "RULES",
           "deciding", "score", "claimed_score", "escalation", "figure_of", "with_figure",
           "straddles"]

REFUTED, NOT_REFUTED, UNDECIDED = "refuted", "not refuted", "undecided"


@dataclass(frozen=True)
class Needs:
    """What a claim asks the engines to compute: δ at ``epsilon``, ε at ``delta``, D_α at ``orders``."""

    epsilon: float
    delta: float
    orders: tuple
    dp: bool  # whether (ε, δ) figures decide the claim


@dataclass(frozen=True)
class Figures:
    """Certified figures: ``epsilon`` is pure ε when the claimed δ is 0, else ε at the claimed δ;
    ``delta`` is δ at the claimed ε (None for Rényi and zCDP claims)."""

    epsilon: Enclosure
    delta: Enclosure | None
    renyi: dict
    rho: Enclosure
    kl: Enclosure | None = None
    certification: str = ""


@dataclass(frozen=True)
class _Rule:
    label: Callable  # claim -> the deciding figure's name as printed
    figures: Callable  # (figures, claim) -> [(enclosure, claimed value)]; refuted if any lo > value
    score: Callable  # (p_lower, q_upper arrays, claim) -> the deciding figure an event would certify (ranking)
    claimed: Callable = lambda c: c.epsilon  # claim -> the value of ``score`` above which the claim is refuted


def _score_dp(p, q, c):
    from .stats import epsilon_from_bounds

    return epsilon_from_bounds(p, q, c.delta)


def _score_renyi(p, q, c):
    from .stats import renyi_from_bounds

    return renyi_from_bounds(p, q, c.order)


def _score_rho(p, q, c):
    from .stats import rho_from_bounds

    return rho_from_bounds(p, q)


def _dp_pairs(f: Figures, c):
    out = [(f.epsilon, c.epsilon)]
    if f.delta is not None:
        out.append((f.delta, c.delta))
    return out


RULES: dict = {
    PureDP: _Rule(lambda c: "ε", _dp_pairs, _score_dp),
    ApproxDP: _Rule(lambda c: f"δ at ε = {c.epsilon:g}", lambda f, c: list(reversed(_dp_pairs(f, c))), _score_dp),
    RenyiDP: _Rule(lambda c: f"D_{c.order:g}", lambda f, c: [(f.renyi[c.order], c.epsilon)], _score_renyi),
    ZCDP: _Rule(lambda c: "ρ", lambda f, c: [(f.rho, c.rho)], _score_rho, lambda c: c.rho),
}


def _rule(claim) -> _Rule:
    rule = RULES.get(type(claim))
    if rule is None:
        from privcheck.core import InvalidArgument

        raise InvalidArgument(f"claim={claim!r} must be one of {', '.join(t.__name__ for t in RULES)}")
    return rule


def needs(claim) -> Needs:
    _rule(claim)
    dp = isinstance(claim, (PureDP, ApproxDP))
    orders = tuple(sorted(set(DEFAULT_ORDERS) | ({claim.order} if isinstance(claim, RenyiDP) else set())))
    return Needs(claim.epsilon if dp else 0.0, claim.delta if dp else 0.0, orders, dp)


def score(claim, p_lower, q_upper):
    """The figure deciding ``claim`` that events with these bounds would certify (float; for ranking events)."""
    return _rule(claim).score(p_lower, q_upper, claim)


def claimed_score(claim) -> float:
    """The value of :func:`score` above which an event refutes ``claim``."""
    return float(_rule(claim).claimed(claim))


def deciding(claim, figures: Figures) -> list:
    """[(enclosure, claimed value)] of the figures that decide ``claim``, the headline first."""
    return _rule(claim).figures(figures, claim)


def escalation(claim):
    """(figure, claimed value, parameter) that an exact engine refines when the verdict is undecided: pure ε for
    a pure claim, δ at the claimed ε for an approximate one, D_α at the claimed order for a Rényi claim; None for
    zCDP (ρ is a grid supremum: only its lower end is certified, so it is never undecided)."""
    if isinstance(claim, PureDP):
        return "epsilon", claim.epsilon, None
    if isinstance(claim, ApproxDP):
        return "delta", claim.delta, claim.epsilon
    if isinstance(claim, RenyiDP):
        return "renyi", claim.epsilon, claim.order
    return None


def figure_of(figures: Figures, kind: str, claim) -> Enclosure:
    """The figure named by :func:`escalation` ("epsilon", "delta", "renyi" at the claim's order)."""
    return figures.renyi[claim.order] if kind == "renyi" else getattr(figures, kind)


def with_figure(figures: Figures, kind: str, claim, enc: Enclosure) -> Figures:
    from dataclasses import replace

    if kind == "renyi":
        return replace(figures, renyi={**figures.renyi, claim.order: enc})
    return replace(figures, **{kind: enc})


def straddles(enc: Enclosure, value: float) -> bool:
    """Whether the enclosure leaves open which side of ``value`` the exact value lies on."""
    return not (enc.exceeds(value) or enc.at_most(value))


def decide(claim, figures: Figures) -> str:
    """refuted if a certified lower end exceeds the claim; undecided if an enclosure with a finite upper end
    contains the claim and no figure shows the claim holds; else not refuted."""
    pairs = deciding(claim, figures)
    if any(enc.exceeds(value) for enc, value in pairs):
        return REFUTED
    if any(enc.at_most(value) for enc, value in pairs):
        return NOT_REFUTED
    if any(math.isfinite(enc.hi) for enc, _ in pairs):
        return UNDECIDED
    return NOT_REFUTED


def holds_on_pairs(claim, figures: Figures) -> bool:
    return any(enc.at_most(value) for enc, value in deciding(claim, figures))


def make_report(*, target: str, claim, figures: Figures, witness: dict, method: str, seed: int, t0: float,
                samples_per_side: int | None = None, confidence: float = 1.0, notes=(), command: str = "",
                extra: dict | None = None, selection_samples_per_side: int | None = None,
                candidates_certified: int = 1) -> AuditReport:
    """The one builder of :class:`AuditReport`."""
    verdict = decide(claim, figures)
    notes = list(notes)
    if figures.certification:
        notes.insert(0, f"certified by {figures.certification}")
    head = deciding(claim, figures)[0][0]
    if verdict == UNDECIDED:
        notes.append(f"undecided: the exact {_rule(claim).label(claim)} lies in [{head.lo:.17g}, {head.hi:.17g}], "
                     "which contains the claim, at the highest precision tried: not a refutation")
    elif method == "exact" and verdict == NOT_REFUTED and holds_on_pairs(claim, figures):
        notes.append("the certified upper end is at or below the claim: it holds on the pairs audited")
    enclosures = {"epsilon_enclosure": figures.epsilon.to_json(),
                  "delta_enclosure": None if figures.delta is None else figures.delta.to_json(),
                  "rho_enclosure": figures.rho.to_json(),
                  "renyi_enclosures": {str(k): v.to_json() for k, v in figures.renyi.items()}}
    if figures.kl is not None:
        enclosures["kl_enclosure"] = figures.kl.to_json()
    return AuditReport(
        target=target, claim=claim, epsilon_lower=figures.epsilon.lo,
        delta_lower=None if figures.delta is None else figures.delta.lo, rho_lower=figures.rho.lo,
        renyi_lower={k: v.lo for k, v in figures.renyi.items()}, violates_claim=verdict == REFUTED,
        method=method, samples_per_side=samples_per_side, confidence=float(confidence), witness=witness,
        seconds=time.perf_counter() - t0, seed=seed, selection_samples_per_side=selection_samples_per_side,
        candidates_certified=candidates_certified, notes=tuple(notes), command=command,
        extra=dict(extra or {}, verdict=verdict, certification=figures.certification, **enclosures))
