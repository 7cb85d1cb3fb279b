"""A report in words: the sentences ``str(report)`` prints."""

from __future__ import annotations

import json
import math

import numpy as np

from privcheck.core import describe_claim
from privcheck.core.claims import parameters

from ..rules import head, needs
from ..stats import confidence_text
from ..verdict import Verdict

__all__ = ["report_text", "confidence_text", "pair_text"]


_VERDICT_TEXT = {
    Verdict.REFUTED: "REFUTED",
    Verdict.NOT_REFUTED: "not refuted",
    Verdict.UNDECIDED: "not refuted (undecided: the exact value's enclosure contains the claim)",
}


def report_text(report) -> str:
    """The report as a referee's sentences: the verdict, the certified figures (the one the claim is about
    first), the witness, the notes, the time and seed, and the line that reproduces it."""
    verdict = _VERDICT_TEXT[report.verdict]
    relation = report.relation  # a policy audit's neighbouring relation (None: a mechanism's)
    conf = (
        "exactly (no sampling)"
        if report.method == "exact"
        else (
            f"with {confidence_text(report.confidence)} confidence over {report.samples_per_side:,} fresh "
            "samples per side"
        )
    )
    eps = "∞" if math.isinf(report.epsilon_lower) else f"{report.epsilon_lower:.6g}"
    said = parameters(report.claim)
    delta = said.get("delta", 0.0) or 0.0
    order = said.get("order")
    parts = {"epsilon": f"ε ≥ {eps}" + (f" at δ = {delta:g}" if delta > 0 else "")}
    nd = needs(report.claim)
    if report.delta_lower is not None and order is None and nd.dp:
        parts["delta"] = f"δ ≥ {report.delta_lower:.6g} at ε = {nd.epsilon:g}"
    if report.rho_lower is not None:
        parts["rho"] = f"ρ ≥ {report.rho_lower:.6g}"
    if report.mu_lower is not None:
        parts["mu"] = f"μ ≥ {'∞' if math.isinf(report.mu_lower) else f'{report.mu_lower:.6g}'}"
    lead = head(report.claim)  # the figure the claim is about comes first
    if report.extra.get("fgap_lower") is not None or lead == "fgap":
        gap = report.extra.get("fgap_lower")
        parts["fgap"] = (
            f"a certified test is {gap:.6g} below the claimed curve"
            if gap is not None and gap > 0
            else "no certified test below the claimed curve"
        )
    if order is not None and order in report.renyi_lower:
        parts["renyi"] = f"D_{order:g} ≥ {report.renyi_lower[order]:.6g}"
    else:
        for k, v in report.renyi_lower.items():
            if v:
                parts["renyi"] = f"D_{k:g} ≥ {v:.6g}"
                break
    ordered = [parts[lead]] + [v for k, v in parts.items() if k != lead]
    lines = [
        f"{report.target}: the claim {describe_claim(report.claim)}{_heading(report, relation)} is {verdict}.",
        f"  Certified {conf}: " + "; ".join(ordered) + ".",
    ]
    w = report.witness
    if w:
        rounds = relation is not None and relation.observes_actions
        pair = w.get("pair", [None, None])
        said = (relation.pair_text(*pair) if relation is not None else None) or pair_text(*pair, rounds)
        lines.append(f"  Witness: {said}; event {w.get('event_text', '')}")
        if "counts" in w:
            c, b = w["counts"], w["bounds"]
            n_x, n_x2 = (c["drawn"]["x"], c["drawn"]["x_prime"]) if "drawn" in c else (c["samples"], c["samples"])
            ratio = b.get("ratio")
            lines.append(
                f"    {c['x']:,}/{n_x:,} {'runs' if rounds else 'draws'} on x vs {c['x_prime']:,}/{n_x2:,} on x'"
                + (f" (Poisson({c['samples']:,}) a side)" if "drawn" in c else "")
                + f": P[x] ≥ {b['p_lower']:.6g}, P[x'] ≤ {b['q_upper']:.6g}"
                + (f", P[x]/P[x'] ≥ {ratio['share_lower'] / ratio['other_upper']:.6g}" if ratio else "")
            )
        elif "probabilities" in w:
            pr = w["probabilities"]
            lines.append(f"    P[x] = {pr['x']:.6g}, P[x'] = {pr['x_prime']:.6g}")
    reach = report.extra.get("reach")
    if reach:
        lines.append(f"  {reach_text(reach)}")
    for n in report.notes:
        lines.append(f"  Note: {n}")
    lines.append(f"  {report.seconds:.2f} s, seed {report.seed}.")
    if report.command:
        lines.append(f"  Reproduce: {report.command}")
    return "\n".join(lines)


def _heading(report, relation) -> str:
    """What the first sentence says the claim is about: the relation (and, auditing what a policy publishes, that)."""
    if relation is None:
        return ""
    return relation.heading(None if report.call is None else report.call.arguments.get("releases"))


def _short(v, limit: int = 60) -> str:
    """``v`` as JSON when short; else its leading elements whole (never a number cut), "…" and its shape."""
    s = json.dumps(v)
    if len(s) <= limit:
        return s
    if not isinstance(v, (list, tuple)) or not v:
        return f"{type(v).__name__} of {len(s):,} characters"
    shown, used = [], 2
    for item in v:
        part = json.dumps(item)
        if used + len(part) + 2 > limit - 4 and shown:
            break
        shown.append(part)
        used += len(part) + 2
    try:
        shape = "×".join(str(d) for d in np.shape(v))
    except ValueError:  # ragged
        shape = f"{len(v)} items"
    return f"[{', '.join(shown)}, …] ({shape})"


def _summary(a) -> str:
    """A large input in a few words: its shape and, when constant, its value."""
    arr = np.asarray(a)
    shape = "×".join(str(d) for d in arr.shape)
    flat = arr.ravel()
    if flat.size and (flat == flat[0]).all():
        return f"{shape} of {flat[0].item()!r}"
    return _short(a)


#: a detectable factor below this is said as the event as counted (the factor is searched from 1 up, to within
#: 63·2⁻²² — "1 times as leaky" said nothing)
SEEN_FACTOR = 1.0005


#: what the reach's counts were read on, by its ``basis`` (:func:`~privcheck.audits.mechanism.sampled.sampled_audit`)
REACH_BASIS = {
    "cross-fitted": "an event chosen as this one was on half the selection draws, counted on the other half, each "
    "half in turn",
    "held-out": "the chosen event counted on selection draws it was not trained on",
    "screening": "the chosen event counted on the screening round drawn after it was chosen",
    "selection": "the chosen event counted on the selection draws that chose it, which flatter it",
}


def reach_text(reach: dict) -> str:
    """What the audit could have seen, said as the estimate it is (never a certified figure)."""
    basis = REACH_BASIS.get(reach.get("basis"), REACH_BASIS["selection"])
    figure = reach.get("figure")  # (a claim ε does not decide: its own figure first)
    own = "" if figure is None else f"{figure['name']} ≥ {figure['value']:.3g} (one event's), "
    text = (
        f"Reach (an estimate, not certified): had the event's probabilities been those of {basis}, this audit "
        f"would have certified {own}ε ≥ {reach['epsilon']:.3g}"
    )
    f = reach.get("detectable_factor")
    if f is not None and f < SEEN_FACTOR:  # (the least factor searched is 1: the event as seen already refutes)
        text += f"; the event as counted would be refuted with probability ≥ {reach['power']:.0%}"
    elif f is not None:
        text += (
            f"; a target {f:.3g} times as leaky on this event (its log-ratio {f:.3g} times the one counted) would have "
            f"been refuted with probability ≥ {reach['power']:.0%}"
        )
    return text + ". A report that does not refute is never a certificate of privacy."


def pair_text(a, b, rounds: bool = False) -> str:
    """x and x' in full when short; else x in a few words and x' as x with the records that differ (rows of a
    table, entries of a vector), so that the differing record is always visible.  With ``rounds`` (the reward
    tables and lists of a policy audit) a record is the rewards of a round, counted from 1."""
    if len(json.dumps(a)) + len(json.dumps(b)) <= 120:
        return f"x = {json.dumps(a)}, x' = {json.dumps(b)}"
    try:
        x, y = np.asarray(a), np.asarray(b)
    except Exception:
        return f"x = {_short(a)}, x' = {_short(b)}"
    if x.shape != y.shape or x.ndim == 0 or x.dtype == object:
        return f"x = {_short(a)}, x' = {_short(b)}"
    rows = np.nonzero((x != y).reshape(x.shape[0], -1).any(axis=1))[0]
    if rows.size == 0 or rows.size > 3:
        return f"x = {_short(a)}, x' = {_short(b)}"
    what = "round" if rounds else "row" if x.ndim > 1 else "entry"
    first = 1 if rounds else 0
    diffs = "; ".join(f"{what} {i + first}: {json.dumps(x[i].tolist())} → {json.dumps(y[i].tolist())}" for i in rows)
    return f"x = {_summary(a)}, x' = x but {diffs}"
