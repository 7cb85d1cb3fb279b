"""The one verdict: certified figures → :class:`Verdict`, for every engine and every claim type.

* **refuted** — a certified lower end exceeds the claim: the refutation is a proof (with the engine's stated
  confidence when it sampled);
* **not refuted** — no certified lower end exceeds it; when the engine also certified an upper end at or below
  the claim, the claim holds on the pairs audited (:func:`holds_on_pairs`) — which never certifies privacy
  beyond those pairs;
* **undecided** — the exact value's enclosure contains the claim even after the engine raised its precision:
  not a refutation, and said so.

Which figure decides which claim is :mod:`privcheck.audits.rules`.
"""

from __future__ import annotations

import math
from enum import Enum

from privcheck.core.enclosure import Enclosure

from .figures import Figures
from .rules import deciding

__all__ = ["Verdict", "decide", "holds_on_pairs", "straddles"]


class Verdict(str, Enum):
    """The outcome of an audit; its value is the word the report prints and its JSON carries."""

    REFUTED = "refuted"
    NOT_REFUTED = "not refuted"
    UNDECIDED = "undecided"

    def __str__(self) -> str:
        return self.value


def straddles(enc: Enclosure, value: float) -> bool:
    """Whether the enclosure leaves open which side of ``value`` the exact value lies on."""
    return not (enc.exceeds(value) or enc.at_most(value))


def decide(claim, figures: Figures) -> Verdict:
    """refuted if a certified lower end exceeds the claim; undecided if an enclosure with a finite upper end
    contains the claim and no figure shows the claim holds; else not refuted."""
    pairs = [(enc, value) for enc, value in deciding(claim, figures) if enc is not None]  # None: not computed yet
    if any(enc.exceeds(value) for enc, value in pairs):
        return Verdict.REFUTED
    if any(enc.at_most(value) for enc, value in pairs):
        return Verdict.NOT_REFUTED
    if any(math.isfinite(enc.hi) for enc, _ in pairs):
        return Verdict.UNDECIDED
    return Verdict.NOT_REFUTED


def holds_on_pairs(claim, figures: Figures) -> bool:
    """Whether a certified upper end is at or below the claim (on the pairs audited only)."""
    return any(enc is not None and enc.at_most(value) for enc, value in deciding(claim, figures))
