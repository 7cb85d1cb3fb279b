"""The store of checks: each registers its slug, the claim ID of the project's claims catalogue, the source
(paper and section), the statement, and its expected status (``holds`` — proved or verified — or ``refuted`` for
a defect found in a paper).  The topic modules register here; :mod:`proofs.catalogue` loads and runs them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["Check", "CATALOGUE", "register"]


@dataclass(frozen=True)
class Check:
    slug: str
    claim_id: str
    source: str
    statement: str
    expected: str
    fn: Callable


CATALOGUE: dict[str, Check] = {}


def register(slug: str, claim_id: str, source: str, statement: str, expected: str = "holds"):
    def deco(fn):
        if slug in CATALOGUE:
            raise ValueError(f"duplicate check {slug}")
        CATALOGUE[slug] = Check(slug, claim_id, source, statement, expected, fn)
        return fn

    return deco
