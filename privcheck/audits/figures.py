"""What every engine computes: certified :class:`Figures` of a claim's :class:`Needs`, and the figures one event
certifies from its probability bounds (:func:`event_figures`).

Each figure is an :class:`~privcheck.core.enclosure.Enclosure` [lo, hi] of the exact value for the object as
represented; a sampled or binned figure has only its lower end (hi = ∞).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

from privcheck.core.enclosure import (
    Enclosure,
    LogMassPair,
    delta_at,
    double_at_least,
    epsilon_at_delta,
    exact_interval,
    kl,
    pure_epsilon,
    renyi_enclosure,
    rho_lower,
)
from privcheck.core.tradeoff import certified_mu, fgap_lower

from .cells import certified_divergence, certified_rho

__all__ = ["Figures", "Needs", "event_figures", "with_ratio", "with_cells"]


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


def event_figures(p_lo: float, q_hi: float, nd: Needs, certification: str) -> Figures:
    """The certified figures of one event with P[M(x) ∈ S] ≥ p_lo and P[M(x') ∈ S] ≤ q_hi, as lower ends.

    ε, δ(ε) and ε at δ come from the event alone (δ ≥ P(S) − e^ε P'(S), monotone in both bounds), and so do
    μ ≥ Φ⁻¹(p_lo) − Φ⁻¹(q_hi) and an f-DP claim's gap f(q_hi) − (1 − p_lo) (:mod:`privcheck.core.tradeoff`); D_α,
    KL and ρ from the pair Bern(p_lo) ‖ Bern(q_hi), which is the minimum of d_α over the confidence box when
    p_lo > q_hi (0 otherwise).  Every figure is computed with outward rounding."""
    one = LogMassPair.from_masses([p_lo], [p_lo], [q_hi], [q_hi])
    eps = epsilon_at_delta(one, nd.delta).lo if nd.delta > 0 else pure_epsilon(one).lo
    dlt = delta_at(one, nd.epsilon).lo if nd.dp else None
    if p_lo > q_hi:
        (cp_,), (cp2,) = exact_interval([Fraction(1) - Fraction(p_lo)])
        (cq_,), (cq2,) = exact_interval([Fraction(1) - Fraction(q_hi)])
        bern = LogMassPair.from_masses(
            [p_lo, cp_], [p_lo, cp2], [q_hi, cq_], [q_hi, cq2], Enclosure(1.0, 1.0), Enclosure(1.0, 1.0)
        )
        ren = {o: renyi_enclosure(bern, o).lo for o in nd.orders}
        k_enc = kl(bern)
        k, rho = k_enc.lo, rho_lower(bern, kl_enclosure=k_enc)[0]
    else:
        ren = {o: 0.0 for o in nd.orders}
        k = rho = 0.0
    low = Enclosure.lower
    gap = None if nd.tradeoff is None else Enclosure(float(fgap_lower(nd.tradeoff, p_lo, q_hi)), math.inf)
    return Figures(
        low(eps),
        None if dlt is None else low(dlt),
        {o: low(v) for o, v in ren.items()},
        low(rho),
        low(k),
        certification,
        low(certified_mu(p_lo, q_hi)),
        gap,
    )


def with_ratio(figs: Figures, share_lo: float, other_hi: float, p_lo: float, nd: Needs) -> Figures:
    """``figs`` (an event's, from P[M(x) ∈ S] ≥ ``p_lo`` and its other bounds) with what a bound on the ratio adds:
    q/p ≤ r = ``other_hi``/``share_lo`` (:func:`~privcheck.audits.stats.share_bounds`, holding with the others)
    lifts pure ε to ln share_lo − ln other_hi where that is larger; and, every figure below growing with p where q
    is replaced by p·r, δ at the claimed ε to p − e^ε q ≥ p_lo − e^ε·p_lo·r (p_lo·r rounded up, exactly) and ε at a
    claimed δ > 0 to ln(p − δ) − ln q ≥ ln(p_lo − δ) − ln(p_lo·r) — read as ε at δ·share_lo/p_lo (rounded up,
    exactly) of the pair (share_lo, other_hi), so that no product leaves the double range."""
    eps, delta = figs.epsilon.lo, figs.delta
    shares = LogMassPair.from_masses([share_lo], [share_lo], [other_hi], [other_hi])
    if nd.delta == 0:
        eps = max(eps, pure_epsilon(shares).lo)
    elif share_lo > 0 and p_lo > nd.delta:
        at = double_at_least(Fraction(nd.delta) * Fraction(share_lo) / Fraction(p_lo))
        eps = max(eps, epsilon_at_delta(shares, at).lo)
    if delta is not None and share_lo > 0 and p_lo > 0:
        exact = Fraction(p_lo) * Fraction(other_hi) / Fraction(share_lo)
        if exact < 1:  # (else p ≤ q may be: nothing implied)
            q_hi = double_at_least(exact)
            implied = LogMassPair.from_masses([p_lo], [p_lo], [q_hi], [q_hi])
            delta = Enclosure.lower(max(delta.lo, delta_at(implied, nd.epsilon).lo))
    return replace(figs, epsilon=Enclosure.lower(eps), delta=delta)


def with_cells(figs: Figures, P, Q, nd: Needs) -> Figures:
    """``figs`` with what the cells of nested events add (:mod:`privcheck.audits.cells`), their probabilities
    P[S_j] ≥ ``P`` on one side and ≤ ``Q`` on the other holding with the others: D_α at ``nd``'s orders, KL and ρ,
    each the larger of the two certified lower ends."""
    renyi = {o: Enclosure.lower(max(v.lo, certified_divergence(P, Q, o))) for o, v in figs.renyi.items()}
    k = certified_divergence(P, Q, 1.0)
    kl_ = Enclosure.lower(k if figs.kl is None else max(figs.kl.lo, k))
    return replace(figs, renyi=renyi, kl=kl_, rho=Enclosure.lower(max(figs.rho.lo, certified_rho(P, Q)[0])))
