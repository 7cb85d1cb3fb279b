"""The audit report: frozen, printable as a referee's sentence (:mod:`privcheck.audits.present.text`),
serialisable to JSON; and its one builder, :func:`make_report`.

JSON conventions: ``schema_version`` 1; an unbounded ε lower bound is ``null`` with
``epsilon_lower_infinite: true`` (JSON has no Infinity); bounds are clipped at 0; in exact mode
``samples_per_side`` is null and ``confidence`` is 1.0.  Every report also carries ``verdict`` (refuted, not
refuted, undecided), ``certification`` (how its figures were certified) and the enclosures
``epsilon_enclosure``, ``delta_enclosure``, ``rho_enclosure``, ``renyi_enclosures`` (and ``kl_enclosure`` where
computed): [lo, hi] with ``null`` for an unbounded end — a sampled or binned figure has only its lower end.
``mu_lower`` is the certified μ of Gaussian DP (``null`` with ``mu_lower_infinite: true`` when unbounded;
``mu_enclosure`` likewise), ``tradeoff`` the certified points of the trade-off curve of the pair shown (each a
corner (α, β): the true type I error on x' and type II error on x of its event are at most α and β), and, for an
f-DP claim, ``fgap_lower``: how far the best certified point lies below the claimed curve (positive refutes).
A policy audit's report says its ``definition``.  ``command`` is the line that reproduces the audit, rendered
from the report's :class:`Call` (:func:`privcheck.audits.reproduction.reproduction`).

A report is a lower bound on the privacy loss of what was audited: "not refuted" never certifies privacy.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from privcheck.core import ExactMethodUnavailable, claim_to_dict

from .reproduction import reproduction
from .result import EngineResult
from .rules import deciding, label
from .verdict import Verdict, decide, holds_on_pairs

__all__ = ["AuditReport", "Call", "Sampled", "SCHEMA_VERSION", "make_report"]

SCHEMA_VERSION = 1


def _versions() -> dict:
    import numpy
    import scipy

    from privcheck.version import __version__

    return {"privcheck": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__}


def _nan_as_null(value):
    """``value`` with every NaN float in its lists and dicts as None (JSON has no NaN; in an input, NaN is an arm
    not offered at a round, said as null)."""
    if isinstance(value, float):
        return None if value != value else value
    if isinstance(value, dict):
        return {k: _nan_as_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nan_as_null(v) for v in value]
    return value


def _num(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isinf(x) or math.isnan(x) else x


@dataclass(frozen=True)
class Call:
    """A neutral description of the call that made a report, from which its reproduce line is rendered.

    ``function`` is ``"audit"`` or ``"audit_policy"``; ``target`` the name the report gives the target;
    ``source`` the target object itself (a function defined at the top of a file can be said as
    ``file.py:name``); ``arguments`` the keyword arguments that reproduce the audit (claim, inputs, method,
    sampling, seed) by their Python names; ``reproducible`` False when the target draws outside its generator;
    ``command_line`` the words typed after ``privcheck``, when the audit came from the command line (its seed made
    explicit: :func:`privcheck.cli.reproduce.command_words`)."""

    function: str
    target: str
    arguments: dict = field(default_factory=dict)
    source: object = field(default=None, repr=False, compare=False)
    reproducible: bool = True
    command_line: tuple | None = None


class Sampled(NamedTuple):
    """How a sampled report's figures were drawn: the fresh draws per side certified, the selection draws per side,
    and the confidence at which every bound holds at once."""

    samples_per_side: int
    selection_samples_per_side: int | None
    confidence: float


@dataclass(frozen=True)
class AuditReport:
    target: str
    claim: object
    verdict: Verdict
    epsilon_lower: float
    delta_lower: float | None
    rho_lower: float | None
    renyi_lower: dict
    method: str
    samples_per_side: int | None
    confidence: float
    witness: dict
    seconds: float
    seed: int
    selection_samples_per_side: int | None = None
    candidates_certified: int = 1
    notes: tuple = ()
    call: Call | None = None
    definition: str | None = None  # a policy audit's relation's name: table, view, interactive, joint or local
    certification: str = ""
    extra: dict = field(default_factory=dict)
    versions: dict = field(default_factory=_versions)
    mu_lower: float | None = None
    curve: object = field(
        default=None, repr=False, compare=False
    )  # the certified trade-off points, for the audit figure
    #: a policy audit's neighbouring relation (privcheck.audits.policy.relations): how its text says what it audited
    relation: object = field(default=None, repr=False, compare=False)

    @property
    def violates_claim(self) -> bool:
        """Whether the audit refuted the claim."""
        return self.verdict is Verdict.REFUTED

    @property
    def reproduction(self):
        """How this audit is reproduced (:class:`~privcheck.audits.reproduction.Reproduction`), or None when it
        cannot be from its seed."""
        return reproduction(self.call)

    @property
    def command(self) -> str:
        """The line that reproduces this audit ("" when it cannot be reproduced from its seed)."""
        said = self.reproduction
        return "" if said is None else str(said)

    def to_dict(self) -> dict:
        eps_inf = math.isinf(self.epsilon_lower)
        d = {
            "schema_version": SCHEMA_VERSION,
            "target": self.target,
            "claim": claim_to_dict(self.claim),
            "epsilon_lower": None if eps_inf else max(0.0, float(self.epsilon_lower)),
            "epsilon_lower_infinite": eps_inf,
            "delta_lower": _num(self.delta_lower),
            "rho_lower": _num(self.rho_lower),
            "mu_lower": _num(self.mu_lower),
            "mu_lower_infinite": self.mu_lower is not None and math.isinf(self.mu_lower),
            "renyi_lower": {str(k): _num(v) for k, v in self.renyi_lower.items()},
            "violates_claim": self.violates_claim,
            "verdict": self.verdict.value,
            "certification": self.certification,
            "method": self.method,
            "samples_per_side": self.samples_per_side,
            "selection_samples_per_side": self.selection_samples_per_side,
            "candidates_certified": self.candidates_certified,
            "confidence": float(self.confidence),
            "witness": self.witness,
            "seconds": round(float(self.seconds), 4),
            "seed": self.seed,
            "notes": list(self.notes),
            "command": self.command,
            "versions": self.versions,
        }
        if self.definition is not None:
            d["definition"] = self.definition
        d.update(self.extra)
        return _nan_as_null(d)

    def figure(self, path=None):
        """The audit figure (:mod:`privcheck.audits.present.figure`): a matplotlib Figure, also saved to ``path``
        (png, pdf or svg by its suffix) when given."""
        from .present.figure import audit_figure, save_figure

        return audit_figure(self) if path is None else save_figure(self, path)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    def __str__(self) -> str:
        from .present.text import report_text

        return report_text(self)


def _enclosures(figures) -> dict:
    out = {
        "epsilon_enclosure": figures.epsilon.to_json(),
        "delta_enclosure": None if figures.delta is None else figures.delta.to_json(),
        "rho_enclosure": figures.rho.to_json(),
        "renyi_enclosures": {str(k): v.to_json() for k, v in figures.renyi.items()},
    }
    if figures.kl is not None:
        out["kl_enclosure"] = figures.kl.to_json()
    if figures.mu is not None:
        out["mu_enclosure"] = figures.mu.to_json()
    if figures.fgap is not None:
        out["fgap_lower"] = None if math.isinf(figures.fgap.lo) else figures.fgap.lo
    if figures.curve is not None:
        out["tradeoff"] = figures.curve.to_json()
    return out


def make_report(
    result: EngineResult,
    *,
    claim,
    method: str,
    seed: int,
    t0: float,
    call: Call,
    sampled: Sampled | None = None,
    notes=(),
    relation=None,
    extra: dict | None = None,
) -> AuditReport:
    """The one builder of :class:`AuditReport`: the verdict of ``result``'s figures, and the notes that say how
    they were certified and what the verdict means; ``sampled`` says how a sampled report's figures were drawn
    (None: exactly, with confidence 1).  The report names its target as its ``call`` does."""
    samples_per_side, selection_samples_per_side, confidence = sampled or (None, None, 1.0)
    figures = result.figures
    if "looks" in result.witness:  # certification stopped early: the draws certified are those of its last look
        samples_per_side = result.witness["looks"]["stopped_at"]
    if any(enc is None for enc, _ in deciding(claim, figures)):
        raise ExactMethodUnavailable(
            f'this engine does not compute the {label(claim)} that decides {claim.kind()}: use method="sample"'
        )
    verdict = decide(claim, figures)
    notes = list(notes) + list(result.notes)
    if figures.certification:
        notes.insert(0, f"certified by {figures.certification}")
    head = deciding(claim, figures)[0][0]
    if verdict is Verdict.UNDECIDED:
        notes.append(
            f"undecided: the exact {label(claim)} lies in [{head.lo:.17g}, {head.hi:.17g}], "
            "which contains the claim, at the highest precision tried: not a refutation"
        )
    elif method == "exact" and verdict is Verdict.NOT_REFUTED and holds_on_pairs(claim, figures):
        notes.append("the certified upper end is at or below the claim: it holds on the pairs audited")
    elif verdict is Verdict.NOT_REFUTED:
        notes.append(
            "not refuted means no violation was found: these are lower bounds, and a lower bound never "
            "certifies privacy"
        )
    more = {} if result.pairs_considered is None else {"pairs_considered": result.pairs_considered}
    return AuditReport(
        target=call.target,
        claim=claim,
        verdict=verdict,
        epsilon_lower=figures.epsilon.lo,
        delta_lower=None if figures.delta is None else figures.delta.lo,
        rho_lower=figures.rho.lo,
        renyi_lower={k: v.lo for k, v in figures.renyi.items()},
        mu_lower=None if figures.mu is None else figures.mu.lo,
        curve=figures.curve,
        method=method,
        samples_per_side=samples_per_side,
        confidence=float(confidence),
        witness=result.witness,
        seconds=time.perf_counter() - t0,
        seed=seed,
        selection_samples_per_side=selection_samples_per_side,
        candidates_certified=result.certified,
        notes=tuple(notes),
        call=call,
        definition=None if relation is None else relation.name,
        relation=relation,
        certification=figures.certification,
        extra={**more, **(extra or {}), **result.extra, **_enclosures(figures)},
    )
