"""What an engine returns: one frozen :class:`EngineResult` for every engine, mechanism or policy, exact or
sampled.  The entry points turn it into a report (:func:`privcheck.audits.report.make_report`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from .figures import Figures

__all__ = ["EngineResult"]


@dataclass(frozen=True)
class EngineResult:
    """``figures`` the certified figures; ``witness`` the pair and event shown (JSON-ready); ``notes`` what the
    engine wants said in the report; ``pairs_considered`` how many pairs it audited; ``extra`` figures of its
    own that the report carries as they are (JSON-ready, e.g. the exact δ of a policy enumeration);
    ``certified`` how many candidate events the sampled engine certified (the failure probability split over
    them); ``event`` the witness's event itself, where the engine chose one (its structured fields say it in the
    audited family's words: :mod:`privcheck.audits.policy.witness`), never in the JSON."""

    figures: Figures
    witness: dict
    notes: tuple = ()
    pairs_considered: int | None = None
    extra: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    certified: int = 1
    event: object = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "notes", tuple(self.notes))
        object.__setattr__(self, "extra", MappingProxyType(dict(self.extra)))
