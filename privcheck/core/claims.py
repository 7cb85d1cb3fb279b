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
from typing import ClassVar, Union

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
    "claim_from_parameters",
    "CLAIM_TYPES",
    "claim_parameters",
    "parameters",
]


def _check_relation(relation):
    if not isinstance(relation, NeighbourRelation):
        raise InvalidArgument(f"relation={relation!r} must be a NeighbourRelation")


@dataclass(frozen=True)
class PureDP:
    """ε-DP: every event's probability changes by at most a factor e^ε between neighbours."""

    #: its parameters, in the order a command line says them, each with what it claims ({name} names another)
    PARAMETERS: ClassVar[dict] = {"epsilon": "the claimed ε (pure ε-DP)"}

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

    PARAMETERS: ClassVar[dict] = {"epsilon": "with {delta}: (ε, δ)-DP", "delta": "the claimed δ of an (ε, δ)-DP claim"}

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

    PARAMETERS: ClassVar[dict] = {
        "order": "the Rényi order α of a Rényi claim D_α ≤ ε (with {epsilon})",
        "epsilon": "with {order}: the Rényi bound D_α ≤ ε",
    }

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

    PARAMETERS: ClassVar[dict] = {"rho": "the claimed ρ of a ρ-zCDP claim"}

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

    PARAMETERS: ClassVar[dict] = {
        "mu": "the claimed μ of a μ-GDP claim (Gaussian differential privacy): the whole privacy profile of a "
        "Gaussian mechanism at once — for noise σ and sensitivity Δ claim μ = Δ/σ, which every (ε, δ(ε)) of it "
        "must meet (a float sampler's bit leak refutes it where one (ε, δ) point is out of reach)"
    }

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

    #: a function has no numeric parameters: an f-DP claim has no command-line form
    PARAMETERS: ClassVar[dict] = {}

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
#: every claim type, in the order their parameters are listed (each with its rule in privcheck.audits.rules)
CLAIM_TYPES = Claim.__args__


def claim_parameters() -> dict:
    """The numeric parameters of every claim type, in order — name -> what it claims, the helps of the types that
    share a name joined (``{name}`` names another parameter): the command line's claim flags are these."""
    names = []
    for kind in CLAIM_TYPES:
        names += [n for n in kind.PARAMETERS if n not in names]
    return {name: "; ".join(k.PARAMETERS[name] for k in CLAIM_TYPES if name in k.PARAMETERS) for name in names}


#: a parameter given at this value is not given: δ = 0 is pure DP
_NEUTRAL = {"delta": 0.0}


def parameters(claim) -> dict:
    """The numeric parameters of ``claim`` by name, in its command line's order (empty for an f-DP claim): what a
    reproduce line says and what a policy factory may be calibrated from."""
    return {name: getattr(claim, name) for name in type(claim).PARAMETERS}


def claim_from_parameters(values: dict):
    """The claim whose parameters are exactly those given (``values``: name -> number or None; a δ of 0 is no δ),
    or None when none is given; a mix that makes no claim is an :class:`InvalidArgument` naming the parameters."""
    given = {k: v for k, v in values.items() if v is not None and _NEUTRAL.get(k, object()) != v}
    if not given:
        return None
    for kind in CLAIM_TYPES:
        if kind.PARAMETERS and set(kind.PARAMETERS) == set(given):
            return kind(**given)
    said = " and ".join(f"{k}=" for k in given)
    inside = [kind for kind in CLAIM_TYPES if kind.PARAMETERS and set(kind.PARAMETERS) <= set(given)]
    if inside:
        largest = max(inside, key=lambda kind: len(kind.PARAMETERS))
        if set().union(*(kind.PARAMETERS for kind in inside)) == set(largest.PARAMETERS):
            extra = " and ".join(f"{k}=" for k in given if k not in largest.PARAMETERS)
            lead = ", ".join(f"{k}=" for k in largest.PARAMETERS)
            raise InvalidArgument(f"{extra} does not apply to a {largest.__name__} claim ({lead})")
    around = [kind for kind in CLAIM_TYPES if set(given) < set(kind.PARAMETERS)]
    if len(around) == 1 and not inside:
        missing = " and ".join(f"{k}=" for k in around[0].PARAMETERS if k not in given)
        raise InvalidArgument(f"{said} needs {missing}: the {around[0].__name__} claim")
    kinds = "; ".join(
        f"{kind.__name__}: {', '.join(f'{k}=' for k in kind.PARAMETERS)}" for kind in CLAIM_TYPES if kind.PARAMETERS
    )
    raise InvalidArgument(f"give one kind of claim: {said} were given together ({kinds})")


def LocalDP(epsilon: float) -> PureDP:
    """ε-local DP: pure ε-DP where every pair of single-user inputs is a neighbour pair (``AllPairs``)."""
    return PureDP(epsilon, AllPairs())


def with_relation(claim: Claim, relation: NeighbourRelation) -> Claim:
    """The same guarantee about another relation."""
    from dataclasses import replace

    return replace(claim, relation=relation)


def claim_to_dict(claim: Claim) -> dict:
    """JSON form: ``{type, epsilon, delta, order, rho, mu, relation}`` (every claim type's parameters) with nulls for
    the fields the kind lacks."""
    if not isinstance(claim, CLAIM_TYPES):
        raise InvalidArgument(f"claim={claim!r} is not a privcheck claim")
    out = {"type": None, **dict.fromkeys(claim_parameters()), "relation": claim.relation.describe()}
    out.update(claim.fields())
    return out


def describe_claim(claim: Claim) -> str:
    """One phrase, e.g. ``(1, 1e-05)-DP under replace-one (l1, sensitivity 1)``."""
    return f"{claim.kind()} under {claim.relation.describe()}"


def _g(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.6g}"
