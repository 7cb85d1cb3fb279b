"""The result of a check: never a bare bool.

status: ``proved`` (symbolic), ``verified`` (certified numerically: interval arithmetic over the stated
domain, with the subdivision that covered it), ``refuted`` (with a counterexample), ``undecided`` (with the
region left open).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["CheckResult", "STATUSES", "SCHEMA_VERSION", "ProofStepFailed", "require"]

SCHEMA_VERSION = 1
STATUSES = ("proved", "verified", "refuted", "undecided")


@dataclass
class CheckResult:
    name: str
    status: str
    method: str
    claim_id: str = ""
    source: str = ""
    statement: str = ""
    counterexample: dict | None = None
    open_region: str | None = None
    detail: str = ""
    seconds: float = 0.0
    expected: str | None = None
    notes: list = field(default_factory=list)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} must be one of {STATUSES}")

    @property
    def as_expected(self) -> bool:
        if self.expected is None:
            return self.status in ("proved", "verified")
        if self.expected == "holds":
            return self.status in ("proved", "verified")
        return self.status == self.expected

    def to_dict(self) -> dict:
        d = {
            "name": self.name,
            "status": self.status,
            "method": self.method,
            "claim_id": self.claim_id,
            "source": self.source,
            "statement": self.statement,
            "counterexample": self.counterexample,
            "open_region": self.open_region,
            "detail": self.detail,
            "seconds": round(self.seconds, 4),
        }
        if self.expected is not None:
            d["expected"] = self.expected
            d["as_expected"] = self.as_expected
        return d


class ProofStepFailed(Exception):
    """A step of a check did not hold.  Raised by :func:`require`; the catalogue reports the check as
    undecided with this message (never as a pass)."""


def require(condition, what: str = "") -> None:
    """Raise :class:`ProofStepFailed` unless ``condition`` is true.

    The checks use this instead of ``assert`` so that their logic still runs under ``python -O``."""
    if not condition:
        raise ProofStepFailed(what or "a proof step did not hold")
