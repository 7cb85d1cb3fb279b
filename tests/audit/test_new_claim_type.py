"""DESIGN.md's recipe for a new claim type, followed in a test: a frozen class (its parameters, JSON fields, name)
and one rule — nothing else — and the claim is audited exactly and by sampling, read from its command-line flag,
said in the report, its JSON and its reproduce line."""

import json
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from privcheck import audit
from privcheck.audits import rules
from privcheck.audits.stats import epsilon_from_bounds
from privcheck.core import claims, tradeoff as tr
from privcheck.core.errors import check_real
from privcheck.core.neighbours import NeighbourRelation, Unspecified
from privcheck.mechanisms import optimal_randomized_response


@dataclass(frozen=True)
class TotalVariation:
    """TV(M(x), M(x')) ≤ tv for neighbours: (0, tv)-DP."""

    PARAMETERS: ClassVar[dict] = {"tv": "the claimed bound on the total-variation distance"}
    tv: float
    relation: NeighbourRelation = field(default_factory=Unspecified)

    def __post_init__(self):
        object.__setattr__(self, "tv", check_real("tv", self.tv, lower=0.0, upper=1.0))

    def fields(self) -> dict:
        return {"type": "tv", "tv": self.tv}

    def kind(self) -> str:
        return f"TV ≤ {self.tv:g}"


RULE = rules._Rule(
    label=lambda c: "δ at ε = 0",
    figures=lambda f, c: [(f.delta, c.tv)],
    score=lambda p, q, c: epsilon_from_bounds(p, q, c.tv),
    curve=lambda c: tr.dp_tradeoff(0.0, c.tv),
    claimed=lambda c: 0.0,
    dp=lambda c: (0.0, c.tv),
    escalates=lambda c: ("delta", c.tv, 0.0),
    head=lambda c: "delta",
)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setattr(claims, "CLAIM_TYPES", (*claims.CLAIM_TYPES, TotalVariation))
    monkeypatch.setitem(rules.RULES, TotalVariation, RULE)


def test_a_claim_type_added_by_its_class_and_its_rule_is_audited(registered):
    rr = optimal_randomized_response(1.0)  # TV = (e − 1)/(e + 1) = 0.462
    refuted = audit(rr, TotalVariation(0.4, rr.claim.relation), method="exact")
    assert refuted.violates_claim and refuted.delta_lower == pytest.approx(0.4621, abs=1e-4)
    kept = audit(rr, TotalVariation(0.5, rr.claim.relation), method="exact")
    assert not kept.violates_claim
    sampled = audit(rr, TotalVariation(0.4, rr.claim.relation), method="sample", samples=200_000, seed=1)
    assert sampled.violates_claim
    said = json.loads(refuted.to_json())["claim"]
    assert said["type"] == "tv" and said["tv"] == 0.4 and said["epsilon"] is None
    assert str(refuted).splitlines()[1].split(": ")[1].startswith("δ ≥ 0.462")  # the figure it is about, first


def test_its_parameter_is_a_flag_and_in_the_reproduce_line(registered, run):
    assert claims.claim_from_parameters({"tv": 0.4, "epsilon": None}) == TotalVariation(0.4)
    code, out, err = run(
        "audit", "examples/mymech.py:noisy_sum", "--tv", "0.9", "--pair", "0", "1", "--method", "sample",
        "--samples", "20000", "--seed", "3",
    )  # fmt: skip
    assert code == 0, err
    assert "the claim TV ≤ 0.9 under the given pairs is not refuted" in out
    assert "--tv 0.9" in out.splitlines()[-1]
    code, _, err = run("audit", "laplace", "--tv", "0.4", "--epsilon", "1")
    assert code == 2 and "give one kind of claim" in err and "TotalVariation: --tv" in err
