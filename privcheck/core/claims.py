"""Privacy claims as data.

A claim says *what* is guaranteed (pure, approximate, Rényi or zero-concentrated DP) and *for which
neighbouring inputs* (a :mod:`privcheck.core.neighbours` relation).  Claims are frozen and validated on
construction.  ``LocalDP(eps)`` is not a fifth kind: it is ``PureDP(eps, AllPairs())``.

Definitions (for neighbouring inputs x ~ x' and every event S):

* ``PureDP(ε)``:        P[M(x) ∈ S] ≤ e^ε P[M(x') ∈ S]
* ``ApproxDP(ε, δ)``:   P[M(x) ∈ S] ≤ e^ε P[M(x') ∈ S] + δ
* ``RenyiDP(α, ε)``:    D_α(M(x) ‖ M(x')) ≤ ε, with D_α(P‖Q) = 1/(α−1) ln Σ P^α Q^(1−α)
* ``ZCDP(ρ)``:          D_α(M(x) ‖ M(x')) ≤ ρ α for every α > 1 (Bun & Steinke, 2016)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Union

from .errors import InvalidArgument, check_real
from .neighbours import AllPairs, NeighbourRelation, Unspecified

__all__ = ["PureDP", "ApproxDP", "RenyiDP", "ZCDP", "Claim", "LocalDP", "claim_to_dict", "describe_claim"]


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


Claim = Union[PureDP, ApproxDP, RenyiDP, ZCDP]


def LocalDP(epsilon: float) -> PureDP:
    """ε-local DP: pure ε-DP where every pair of single-user inputs is a neighbour pair (``AllPairs``)."""
    return PureDP(epsilon, AllPairs())


def with_relation(claim: Claim, relation: NeighbourRelation) -> Claim:
    """The same guarantee about another relation."""
    from dataclasses import replace

    return replace(claim, relation=relation)


def claim_to_dict(claim: Claim) -> dict:
    """JSON form: ``{type, epsilon, delta, rho, order, relation}`` with nulls for fields the kind lacks."""
    if not callable(getattr(claim, "fields", None)):
        raise InvalidArgument(f"claim={claim!r} is not a privcheck claim")
    out = {"type": None, "epsilon": None, "delta": None, "rho": None, "order": None,
           "relation": claim.relation.describe()}
    out.update(claim.fields())
    return out


def describe_claim(claim: Claim) -> str:
    """One phrase, e.g. ``(1, 1e-05)-DP under replace-one (l1, sensitivity 1)``."""
    return f"{claim.kind()} under {claim.relation.describe()}"


def _g(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.6g}"
