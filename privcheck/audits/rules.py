"""The claim rules: for each claim type, what the engines compute for it, which certified figure decides it and at
what value, how an event is scored for it, what an exact engine refines when undecided, the curve it guarantees,
the figure its report leads with and what its witness is.  A claim type is its class in
:mod:`privcheck.core.claims` (its parameters, JSON fields and name) and its rule here; every other module consults
these two."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable

from privcheck.core import DEFAULT_ORDERS, FDP, ApproxDP, GaussianDP, InvalidArgument, PureDP, RenyiDP, ZCDP
from privcheck.core.claims import parameters
from privcheck.core import tradeoff as tr
from privcheck.core.enclosure import Enclosure

from .cells import divergences
from .figures import Figures, Needs
from .stats import RHO_ORDERS, bernoulli_renyi, epsilon_from_bounds, renyi_from_bounds, rho_from_bounds, zcdp_excess

__all__ = [
    "RULES",
    "needs",
    "label",
    "deciding",
    "score",
    "claimed_score",
    "by_ratio",
    "claim_curve",
    "escalation",
    "figure_of",
    "with_figure",
    "head",
    "curve_witness",
    "by_cells",
    "cells_score",
]


@dataclass(frozen=True)
class _Rule:
    label: Callable  # claim -> the deciding figure's name as printed
    figures: Callable  # (figures, claim) -> [(enclosure, claimed value)]; refuted if any lo > value
    score: Callable  # (p_lower, q_upper arrays, claim) -> the deciding figure an event would certify (ranking)
    curve: Callable  # claim -> its trade-off function (vectorised α ↦ β), for the audit figure
    claimed: Callable = lambda c: c.epsilon  # claim -> the value of ``score`` above which the claim is refuted
    #: claim -> (ε at which δ is computed, δ at which ε is computed, whether the engines compute δ(ε)); else none
    dp: Callable | None = None
    #: claim -> (figure, claimed value, parameter) an exact engine refines when undecided (:func:`escalation`)
    escalates: Callable | None = None
    #: claim -> the figure its report leads with (a key of the report's parts: epsilon, delta, renyi, rho, mu, fgap)
    head: Callable = lambda c: "epsilon"
    #: its witness is the best likelihood-ratio prefix of the curve (claims about the whole trade-off curve)
    curve_witness: bool = False
    #: (P lower, Q upper of nested events, claim) -> the deciding figure their cells would certify (ranking), for
    #: the claims whose figure is a divergence that several cells certify beyond one event (:mod:`..cells`)
    cells: Callable | None = None


def _score_dp(p, q, c):
    return epsilon_from_bounds(p, q, c.delta)


def _score_renyi(p, q, c):
    return renyi_from_bounds(p, q, c.order)


def _score_rho(p, q, c):
    return rho_from_bounds(p, q)


def _score_mu(p, q, c):
    return tr.mu_from_bounds(p, q)


def _score_fgap(p, q, c):
    return tr.fgap_lower(c.tradeoff, p, q)


def _cells_renyi(P, Q, c):
    return float(divergences(P, Q, [c.order])[0])


def _cells_rho(P, Q, c):
    return float((divergences(P, Q, RHO_ORDERS) / RHO_ORDERS).max())


def _renyi_allowed(order, eps):
    return lambda p, q: (bernoulli_renyi(p, q, order) <= eps) & (bernoulli_renyi(q, p, order) <= eps)


def _zcdp_allowed(rho):
    return lambda p, q: zcdp_excess(p, q, rho) <= 0


def _dp_pairs(f: Figures, c):
    out = [(f.epsilon, c.epsilon)]
    if f.delta is not None:
        out.append((f.delta, c.delta))
    return out


RULES: dict = {
    PureDP: _Rule(
        lambda c: "ε",
        _dp_pairs,
        _score_dp,
        lambda c: tr.dp_tradeoff(c.epsilon),
        dp=lambda c: (c.epsilon, 0.0),
        escalates=lambda c: ("epsilon", c.epsilon, None),
    ),
    ApproxDP: _Rule(
        lambda c: f"δ at ε = {c.epsilon:g}",
        lambda f, c: list(reversed(_dp_pairs(f, c))),
        _score_dp,
        lambda c: tr.dp_tradeoff(c.epsilon, c.delta),
        dp=lambda c: (c.epsilon, c.delta),
        escalates=lambda c: ("delta", c.delta, c.epsilon),
        head=lambda c: "delta" if c.delta > 0 else "epsilon",
    ),
    RenyiDP: _Rule(
        lambda c: f"D_{c.order:g}",
        lambda f, c: [(f.renyi[c.order], c.epsilon)],
        _score_renyi,
        lambda c: tr.bernoulli_tradeoff(_renyi_allowed(c.order, c.epsilon)),
        escalates=lambda c: ("renyi", c.epsilon, c.order),
        head=lambda c: "renyi",
        cells=_cells_renyi,
    ),
    ZCDP: _Rule(
        lambda c: "ρ",
        lambda f, c: [(f.rho, c.rho)],
        _score_rho,
        lambda c: tr.bernoulli_tradeoff(_zcdp_allowed(c.rho)),
        lambda c: c.rho,
        head=lambda c: "rho",
        cells=_cells_rho,
    ),
    GaussianDP: _Rule(
        lambda c: "μ",
        lambda f, c: [(f.mu, c.mu)],
        _score_mu,
        lambda c: tr.gdp_tradeoff(c.mu),
        lambda c: c.mu,
        head=lambda c: "mu",
        curve_witness=True,
    ),
    FDP: _Rule(
        lambda c: f"the largest {c.name}(α) − β",
        lambda f, c: [(f.fgap, 0.0)],
        _score_fgap,
        lambda c: c.tradeoff,
        lambda c: 0.0,
        head=lambda c: "fgap",
        curve_witness=True,
    ),
}
# (zCDP, μ-GDP and f-DP escalate nothing: only their lower ends are certified — a grid supremum, the best
# likelihood-ratio prefix — so they are never undecided)


def _rule(claim) -> _Rule:
    rule = RULES.get(type(claim))
    if rule is None:
        raise InvalidArgument(f"claim={claim!r} must be one of {', '.join(t.__name__ for t in RULES)}")
    return rule


def label(claim) -> str:
    """The name of the figure that decides ``claim``, as printed."""
    return _rule(claim).label(claim)


def needs(claim) -> Needs:
    """What the engines compute for ``claim`` (refuses anything that is not a privcheck claim)."""
    rule = _rule(claim)
    epsilon, delta = (0.0, 0.0) if rule.dp is None else rule.dp(claim)
    order = parameters(claim).get("order")
    orders = tuple(sorted(set(DEFAULT_ORDERS) | ({order} if order is not None else set())))
    return Needs(epsilon, delta, orders, rule.dp is not None, getattr(claim, "tradeoff", None))


def by_ratio(claim) -> bool:
    """Whether (ε, δ) figures decide ``claim`` (ε-DP, or (ε, δ)-DP): the claims a bound on the ratio of one event's
    probabilities serves — alone where δ = 0 (:func:`~privcheck.audits.stats.ratio_epsilon`), with the event's own
    lower bound where δ > 0 (:func:`~privcheck.audits.stats.ratio_epsilon_at_delta`)."""
    return needs(claim).dp


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
    rule = _rule(claim)
    return None if rule.escalates is None else rule.escalates(claim)


def head(claim) -> str:
    """The figure a report on ``claim`` leads with (epsilon, delta, renyi, rho, mu or fgap)."""
    return _rule(claim).head(claim)


def curve_witness(claim) -> bool:
    """Whether ``claim``'s witness is the best likelihood-ratio prefix of its curve (a claim about the whole
    trade-off curve), rather than an event at the claimed ε."""
    return _rule(claim).curve_witness


def by_cells(claim) -> bool:
    """Whether ``claim``'s figure is a divergence (D_α, ρ) that the cells of several nested events certify beyond one
    event's two probabilities (:mod:`privcheck.audits.cells`)."""
    return _rule(claim).cells is not None


def cells_score(claim, P, Q) -> float:
    """The figure deciding ``claim`` that nested events with lower bounds ``P`` and upper bounds ``Q`` would certify
    from their cells (float; for ranking ladders)."""
    return _rule(claim).cells(P, Q, claim)


def figure_of(figures: Figures, kind: str, claim) -> Enclosure:
    """The figure named by :func:`escalation` ("epsilon", "delta", "renyi" at the claim's order)."""
    return figures.renyi[claim.order] if kind == "renyi" else getattr(figures, kind)


def with_figure(figures: Figures, kind: str, claim, enc: Enclosure) -> Figures:
    """``figures`` with the figure named by :func:`escalation` replaced by ``enc``."""
    if kind == "renyi":
        return dataclasses.replace(figures, renyi={**figures.renyi, claim.order: enc})
    return dataclasses.replace(figures, **{kind: enc})
