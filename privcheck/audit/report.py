"""The audit report: frozen, printable as a referee's sentence, serialisable to JSON.

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
Reports are built by :func:`privcheck.audit.verdict.make_report` only.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from privcheck.core import claim_to_dict, describe_claim

#: how a policy audit's report names the definition audited (after the claim and its neighbour relation)
_DEFINITIONS = {
    "table": ", as Table DP (the action sequence, on reward tables)",
    "view": ", as View DP (the action sequence, on the rewards the policy sees)",
    "interactive": ", as Interactive DP (the recommendations, against adaptive adversaries choosing the queried arms)",
    "local": ", as local DP (each user's report)",
}

__all__ = ["AuditReport", "SCHEMA_VERSION", "confidence_text"]

SCHEMA_VERSION = 1


def _versions() -> dict:
    import numpy
    import scipy

    from privcheck import __version__

    return {"privcheck": __version__, "numpy": numpy.__version__, "scipy": scipy.__version__}


def confidence_text(c: float) -> str:
    """95% — or, for confidences that would print as 100%, the failure probability: 1 − 2.03e-07."""
    text = f"{100 * c:g}%"
    return text if text != "100%" or c == 1 else f"1 − {1 - c:.3g}"


def _num(x):
    if x is None:
        return None
    x = float(x)
    return None if math.isinf(x) or math.isnan(x) else x


@dataclass(frozen=True)
class AuditReport:
    target: str
    claim: object
    epsilon_lower: float
    delta_lower: float | None
    rho_lower: float | None
    renyi_lower: dict
    violates_claim: bool
    method: str
    samples_per_side: int | None
    confidence: float
    witness: dict
    seconds: float
    seed: int
    selection_samples_per_side: int | None = None
    candidates_certified: int = 1
    notes: tuple = ()
    command: str = ""
    extra: dict = field(default_factory=dict)
    versions: dict = field(default_factory=_versions)
    mu_lower: float | None = None
    curve: object = field(default=None, repr=False, compare=False)  # the certified trade-off points, for the audit figure

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
            "violates_claim": bool(self.violates_claim),
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
        d.update(self.extra)
        return d

    def figure(self, path=None):
        """The audit figure (:mod:`privcheck.audit.figure`): a matplotlib Figure, also saved to ``path`` (png, pdf
        or svg by its suffix) when given."""
        from .figure import audit_figure, save_figure

        return audit_figure(self) if path is None else save_figure(self, path)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), **kw)

    def __str__(self) -> str:
        verdict = "REFUTED" if self.violates_claim else "not refuted"
        if self.extra.get("verdict") == "undecided":
            verdict = "not refuted (undecided: the exact value's enclosure contains the claim)"
        conf = "exactly (no sampling)" if self.method == "exact" else (
            f"with {confidence_text(self.confidence)} confidence over {self.samples_per_side:,} fresh samples per side")
        eps = "∞" if math.isinf(self.epsilon_lower) else f"{self.epsilon_lower:.6g}"
        delta = getattr(self.claim, "delta", 0.0) or 0.0
        order = getattr(self.claim, "order", None)
        parts = {"epsilon": f"ε ≥ {eps}" + (f" at δ = {delta:g}" if delta > 0 else "")}
        if self.delta_lower is not None and order is None and getattr(self.claim, "epsilon", None) is not None:
            parts["delta"] = f"δ ≥ {self.delta_lower:.6g} at ε = {self.claim.epsilon:g}"
        if self.rho_lower is not None:
            parts["rho"] = f"ρ ≥ {self.rho_lower:.6g}"
        if self.mu_lower is not None:
            parts["mu"] = f"μ ≥ {'∞' if math.isinf(self.mu_lower) else f'{self.mu_lower:.6g}'}"
        if self.extra.get("fgap_lower") is not None or "tradeoff" in getattr(self.claim, "fields", dict)():
            gap = self.extra.get("fgap_lower")
            parts["fgap"] = (f"a certified test is {gap:.6g} below the claimed curve" if gap is not None and gap > 0
                             else "no certified test below the claimed curve")
        if order is not None and order in self.renyi_lower:
            parts["renyi"] = f"D_{order:g} ≥ {self.renyi_lower[order]:.6g}"
        else:
            for k, v in self.renyi_lower.items():
                if v:
                    parts["renyi"] = f"D_{k:g} ≥ {v:.6g}"
                    break
        # the figure the claim is about comes first: ρ for zCDP, D_α for Rényi, δ at the claimed ε for (ε, δ)
        head = "rho" if hasattr(self.claim, "rho") else "mu" if hasattr(self.claim, "mu") else \
            "fgap" if "fgap" in parts else "renyi" if order is not None else "delta" if delta > 0 else "epsilon"
        ordered = [parts[head]] + [v for k, v in parts.items() if k != head]
        lines = [f"{self.target}: the claim {describe_claim(self.claim)}{_DEFINITIONS.get(self.extra.get('definition'), '')}"
                 f" is {verdict}.",
                 f"  Certified {conf}: " + "; ".join(ordered) + "."]
        w = self.witness
        if w:
            lines.append(f"  Witness: {_pair_text(*w.get('pair', [None, None]))}; event {w.get('event_text', '')}")
            if "counts" in w:
                c, b = w["counts"], w["bounds"]
                lines.append(f"    {c['x']:,}/{c['samples']:,} draws on x vs {c['x_prime']:,}/{c['samples']:,} on x': "
                             f"P[x] ≥ {b['p_lower']:.6g}, P[x'] ≤ {b['q_upper']:.6g}")
            elif "probabilities" in w:
                pr = w["probabilities"]
                lines.append(f"    P[x] = {pr['x']:.6g}, P[x'] = {pr['x_prime']:.6g}")
        for n in self.notes:
            lines.append(f"  Note: {n}")
        lines.append(f"  {self.seconds:.2f} s, seed {self.seed}.")
        if self.command:
            lines.append(f"  Reproduce: {self.command}")
        return "\n".join(lines)


def _short(v) -> str:
    s = json.dumps(v)
    return s if len(s) <= 60 else s[:57] + "..."


def _summary(a) -> str:
    """A large input in a few words: its shape and, when constant, its value."""
    import numpy as np

    arr = np.asarray(a)
    shape = "×".join(str(d) for d in arr.shape)
    flat = arr.ravel()
    if flat.size and (flat == flat[0]).all():
        return f"{shape} of {flat[0].item()!r}"
    return _short(a)


def _pair_text(a, b) -> str:
    """x and x' in full when short; else x in a few words and x' as x with the records that differ (rows of a
    table, entries of a vector), so that the differing record is always visible."""
    if len(json.dumps(a)) + len(json.dumps(b)) <= 120:
        return f"x = {json.dumps(a)}, x' = {json.dumps(b)}"
    import numpy as np

    try:
        x, y = np.asarray(a), np.asarray(b)
    except Exception:
        return f"x = {_short(a)}, x' = {_short(b)}"
    if x.shape != y.shape or x.ndim == 0 or x.dtype == object:
        return f"x = {_short(a)}, x' = {_short(b)}"
    rows = np.nonzero((x != y).reshape(x.shape[0], -1).any(axis=1))[0]
    if rows.size == 0 or rows.size > 3:
        return f"x = {_short(a)}, x' = {_short(b)}"
    what = "row" if x.ndim > 1 else "entry"
    diffs = "; ".join(f"{what} {i}: {json.dumps(x[i].tolist())} → {json.dumps(y[i].tolist())}" for i in rows)
    return f"x = {_summary(a)}, x' = x but {diffs}"
