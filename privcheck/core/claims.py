"""Privacy claims as data.

A claim says *what* is guaranteed (pure, approximate, Rényi or zero-concentrated DP) and *for which
neighbouring inputs* (a :mod:`privcheck.core.neighbours` relation).  Claims are frozen and validated on
construction.  ``LocalDP(eps)`` is not a fifth kind: it is ``PureDP(eps, AllPairs())``.

Definitions (for neighbouring inputs x ~ x' and every event S):

* ``PureDP(ε)``:        P[M(x) ∈ S] ≤ e^ε P[M(x') ∈ S]
* ``ApproxDP(ε, δ)``:   P[M(x) ∈ S] ≤ e^ε P[M(x') ∈ S] + δ
* ``RenyiDP(α, ε)``:    D_α(M(x) ‖ M(x')) ≤ ε, with D_α(P‖Q) = 1/(α−1) ln Σ P^α Q^(1−α)
* ``ZCDP(ρ)``:          D_α(M(x) ‖ M(x')) ≤ ρ α for every α > 1 (Bun & Steinke, 2016)
* ``GaussianDP(μ)``:    T(M(x'), M(x)) ≥ G_μ, the trade-off of N(0, 1) vs N(μ, 1) (Dong, Roth & Su, 2022)
* ``FDP(f)``:           T(M(x'), M(x)) ≥ f for a trade-off function f of the user's

(T(Q, P)(α) is the smallest type II error 1 − P(S) of a test of "the output came from Q" at type I error
Q(S) ≤ α; :mod:`privcheck.core.tradeoff`.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Union

from .errors import InvalidArgument, check_real
from .neighbours import AllPairs, NeighbourRelation, Unspecified

__all__ = [
    "PureDP",
    "ApproxDP",
    "RenyiDP",
    "ZCDP",
    "GaussianDP",
    "FDP",
    "Claim",
    "LocalDP",
    "claim_to_dict",
    "describe_claim",
]


def _check_relation(relation):
    if not isinstance(relation, NeighbourRelation):
        raise InvalidArgument(f"relation={relation!r} must be a NeighbourRelation")


@dataclass(frozen=True)
class PureDP:
    """ε-DP: every event's probability changes by at most a factor e^ε between neighbours."""

    epsilon: float
    relation: NeighbourRelation = field(default_factory=Unspecified)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, lower=0.0))
        _check_relation(self.relation)

    @property
    def delta(self) -> float:
        return 0.0

    def fields(self) -> dict:
        return {"type": "pure", "epsilon": self.epsilon, "delta": 0.0}

    def kind(self) -> str:
        return f"{_g(self.epsilon)}-DP"


@dataclass(frozen=True)
class ApproxDP:
    """(ε, δ)-DP with 0 ≤ δ < 1."""

    epsilon: float
    delta: float
    relation: NeighbourRelation = field(default_factory=Unspecified)

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, lower=0.0))
        object.__setattr__(self, "delta", check_real("delta", self.delta, lower=0.0, upper=1.0, upper_open=True))
        _check_relation(self.relation)

    def fields(self) -> dict:
        return {"type": "approx", "epsilon": self.epsilon, "delta": self.delta}

    def kind(self) -> str:
        return f"({_g(self.epsilon)}, {_g(self.delta)})-DP"


@dataclass(frozen=True)
class RenyiDP:
    """(α, ε)-RDP (Mironov 2017): D_α(M(x)‖M(x')) ≤ ε for neighbours, order α > 1."""

    order: float
    epsilon: float
    relation: NeighbourRelation = field(default_factory=Unspecified)

    def __post_init__(self):
        object.__setattr__(self, "order", check_real("order", self.order, lower=1.0, lower_open=True))
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, lower=0.0))
        _check_relation(self.relation)

    def fields(self) -> dict:
        return {"type": "renyi", "epsilon": self.epsilon, "order": self.order}

    def kind(self) -> str:
        return f"({_g(self.order)}, {_g(self.epsilon)})-RDP"


@dataclass(frozen=True)
class ZCDP:
    """ρ-zCDP (Bun & Steinke 2016): D_α(M(x)‖M(x')) ≤ ρα for every α > 1."""

    rho: float
    relation: NeighbourRelation = field(default_factory=Unspecified)

    def __post_init__(self):
        object.__setattr__(self, "rho", check_real("rho", self.rho, lower=0.0, lower_open=True))
        _check_relation(self.relation)

    def fields(self) -> dict:
        return {"type": "zcdp", "rho": self.rho}

    def kind(self) -> str:
        return f"{_g(self.rho)}-zCDP"


@dataclass(frozen=True)
class GaussianDP:
    """μ-GDP (Dong, Roth and Su, "Gaussian Differential Privacy", JRSS-B 2022, Definition 2.6): telling M(x)
    from M(x') is at least as hard as telling N(0, 1) from N(μ, 1), for every neighbouring pair."""

    mu: float
    relation: NeighbourRelation = field(default_factory=Unspecified)

    def __post_init__(self):
        object.__setattr__(self, "mu", check_real("mu", self.mu, lower=0.0))
        _check_relation(self.relation)

    def fields(self) -> dict:
        return {"type": "gdp", "mu": self.mu}

    def kind(self) -> str:
        return f"{_g(self.mu)}-GDP"


@dataclass(frozen=True)
class FDP:
    """f-DP for a trade-off function ``tradeoff`` (α ↦ β, elementwise on arrays or one α at a time): every test
    of M(x') against M(x) at type I error α has type II error at least f(α).  ``tradeoff`` is checked on a grid
    of α (values in [0, 1], at most 1 − α, non-increasing, convex); the claim is the function as it computes,
    doubles read exactly.  ``name`` labels it in reports."""

    tradeoff: object
    relation: NeighbourRelation = field(default_factory=Unspecified)
    name: str = "f"

    def __post_init__(self):
        from .tradeoff import check_tradeoff

        if not callable(self.tradeoff):
            raise InvalidArgument(f"tradeoff={self.tradeoff!r} must be a function of the type I error α")
        object.__setattr__(self, "tradeoff", check_tradeoff(self.tradeoff, f"the trade-off function {self.name}"))
        _check_relation(self.relation)

    def fields(self) -> dict:
        return {"type": "fdp", "tradeoff": self.name}

    def kind(self) -> str:
        return f"{self.name}-DP"


Claim = Union[PureDP, ApproxDP, RenyiDP, ZCDP, GaussianDP, FDP]


def LocalDP(epsilon: float) -> PureDP:
    """ε-local DP: pure ε-DP where every pair of single-user inputs is a neighbour pair (``AllPairs``)."""
    return PureDP(epsilon, AllPairs())


def with_relation(claim: Claim, relation: NeighbourRelation) -> Claim:
    """The same guarantee about another relation."""
    from dataclasses import replace

    return replace(claim, relation=relation)


def claim_to_dict(claim: Claim) -> dict:
    """JSON form: ``{type, epsilon, delta, rho, order, mu, relation}`` with nulls for fields the kind lacks."""
    if not callable(getattr(claim, "fields", None)):
        raise InvalidArgument(f"claim={claim!r} is not a privcheck claim")
    out = {
        "type": None,
        "epsilon": None,
        "delta": None,
        "rho": None,
        "order": None,
        "mu": None,
        "relation": claim.relation.describe(),
    }
    out.update(claim.fields())
    return out


def describe_claim(claim: Claim) -> str:
    """One phrase, e.g. ``(1, 1e-05)-DP under replace-one (l1, sensitivity 1)``."""
    return f"{claim.kind()} under {claim.relation.describe()}"


def _g(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.6g}"
