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


from privcheck.core import DEFAULT_ORDERS, FDP, ApproxDP, GaussianDP, PureDP, RenyiDP, ZCDP
from privcheck.core import tradeoff as tr
from privcheck.core.enclosure import Enclosure

from .report import AuditReport

__all__ = ["Figures", "Needs", "needs", "decide", "make_report", "REFUTED", "NOT_REFUTED", "UNDECIDED", "RULES",
           "deciding", "score", "claimed_score", "escalation", "figure_of", "with_figure", "claim_curve",
           "straddles"]

REFUTED, NOT_REFUTED, UNDECIDED = "refuted", "not refuted", "undecided"


@dataclass(frozen=True)
class Needs:
    """What a claim asks the engines to compute: δ at ``epsilon``, ε at ``delta``, D_α at ``orders``, and the
    gap to an f-DP claim's curve ``tradeoff`` (μ and the trade-off points are computed for every claim)."""

    epsilon: float
    delta: float
    orders: tuple
    dp: bool  # whether (ε, δ) figures decide the claim
    tradeoff: Callable | None = None


@dataclass(frozen=True)
class Figures:
    """Certified figures: ``epsilon`` is pure ε when the claimed δ is 0, else ε at the claimed δ;
    ``delta`` is δ at the claimed ε (None for Rényi and zCDP claims); ``mu`` the GDP parameter (lower end);
    ``fgap`` the largest f(α) − β over the certified points of an f-DP claim's curve f (lower end; positive
    refutes); ``curve`` the certified trade-off points (:class:`~privcheck.core.tradeoff.Curve`) of the pair
    shown."""

    epsilon: Enclosure
    delta: Enclosure | None
    renyi: dict
    rho: Enclosure
    kl: Enclosure | None = None
    certification: str = ""
    mu: Enclosure | None = None
    fgap: Enclosure | None = None
    curve: object = None


@dataclass(frozen=True)
class _Rule:
    label: Callable  # claim -> the deciding figure's name as printed
    figures: Callable  # (figures, claim) -> [(enclosure, claimed value)]; refuted if any lo > value
    score: Callable  # (p_lower, q_upper arrays, claim) -> the deciding figure an event would certify (ranking)
    curve: Callable  # claim -> its trade-off function (vectorised α ↦ β), for the audit figure
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


def _score_mu(p, q, c):
    return tr.mu_from_bounds(p, q)


def _score_fgap(p, q, c):
    return tr.fgap_lower(c.tradeoff, p, q)


def _renyi_allowed(order, eps):
    from .stats import bernoulli_renyi

    return lambda p, q: (bernoulli_renyi(p, q, order) <= eps) & (bernoulli_renyi(q, p, order) <= eps)


def _zcdp_allowed(rho):
    from .stats import zcdp_excess

    return lambda p, q: zcdp_excess(p, q, rho) <= 0


def _dp_pairs(f: Figures, c):
    out = [(f.epsilon, c.epsilon)]
    if f.delta is not None:
        out.append((f.delta, c.delta))
    return out


RULES: dict = {
    PureDP: _Rule(lambda c: "ε", _dp_pairs, _score_dp, lambda c: tr.dp_tradeoff(c.epsilon)),
    ApproxDP: _Rule(lambda c: f"δ at ε = {c.epsilon:g}", lambda f, c: list(reversed(_dp_pairs(f, c))), _score_dp,
                    lambda c: tr.dp_tradeoff(c.epsilon, c.delta)),
    RenyiDP: _Rule(lambda c: f"D_{c.order:g}", lambda f, c: [(f.renyi[c.order], c.epsilon)], _score_renyi,
                   lambda c: tr.bernoulli_tradeoff(_renyi_allowed(c.order, c.epsilon))),
    ZCDP: _Rule(lambda c: "ρ", lambda f, c: [(f.rho, c.rho)], _score_rho,
                lambda c: tr.bernoulli_tradeoff(_zcdp_allowed(c.rho)), lambda c: c.rho),
    GaussianDP: _Rule(lambda c: "μ", lambda f, c: [(f.mu, c.mu)], _score_mu, lambda c: tr.gdp_tradeoff(c.mu),
                      lambda c: c.mu),
    FDP: _Rule(lambda c: f"the largest {c.name}(α) − β", lambda f, c: [(f.fgap, 0.0)], _score_fgap,
               lambda c: c.tradeoff, lambda c: 0.0),
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
    return Needs(claim.epsilon if dp else 0.0, claim.delta if dp else 0.0, orders, dp,
                 claim.tradeoff if isinstance(claim, FDP) else None)


def claim_curve(claim):
    """The trade-off function the claim guarantees (vectorised α ↦ β): for drawing it."""
    return _rule(claim).curve(claim)


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
    zCDP, μ-GDP and f-DP (only their lower ends are certified — a grid supremum, the best likelihood-ratio
    prefix — so they are never undecided)."""
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
    pairs = [(enc, value) for enc, value in deciding(claim, figures) if enc is not None]  # None: not computed yet
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
    if any(enc is None for enc, _ in deciding(claim, figures)):
        from privcheck.core import ExactMethodUnavailable

        raise ExactMethodUnavailable(f"this engine does not compute the {_rule(claim).label(claim)} that decides "
                                     f"{claim.kind()}: use method=\"sample\"")
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
    if figures.mu is not None:
        enclosures["mu_enclosure"] = figures.mu.to_json()
    if figures.fgap is not None:
        enclosures["fgap_lower"] = None if math.isinf(figures.fgap.lo) else figures.fgap.lo
    if figures.curve is not None:
        enclosures["tradeoff"] = figures.curve.to_json()
    return AuditReport(
        target=target, claim=claim, epsilon_lower=figures.epsilon.lo,
        delta_lower=None if figures.delta is None else figures.delta.lo, rho_lower=figures.rho.lo,
        renyi_lower={k: v.lo for k, v in figures.renyi.items()}, violates_claim=verdict == REFUTED,
        mu_lower=None if figures.mu is None else figures.mu.lo, curve=figures.curve,
        method=method, samples_per_side=samples_per_side, confidence=float(confidence), witness=witness,
        seconds=time.perf_counter() - t0, seed=seed, selection_samples_per_side=selection_samples_per_side,
        candidates_certified=candidates_certified, notes=tuple(notes), command=command,
        extra=dict(extra or {}, verdict=verdict, certification=figures.certification, **enclosures))
