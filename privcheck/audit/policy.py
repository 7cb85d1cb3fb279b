"""Auditing bandit policies: Table DP, View DP and local privacy of the feedback.

* ``table`` / ``view`` (exact): every neighbour pair of binary reward tables (one row replaced) or reward lists
  (one entry replaced) is enumerated by :mod:`privcheck.audit.policy_exact`; the output is the action sequence.
* ``local``: the per-report randomizer of the feedback, audited as a mechanism under all pairs of single
  rewards; with ``sequence_length`` n, also over sequences of n rewards as the AAAI 2023 paper's Definition 2
  reads (all pairs of sequences), where per-step ε-randomized response gives exactly nε.  The verdict then uses
  the sequence-level figure.

Not yet built (reported as such, never approximated): the sampled engine for policies and Interactive DP.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

from privcheck.core import (ApproxDP, ExactMethodUnavailable, InvalidArgument, PureDP, RenyiDP, TableNeighbours,
                            ViewNeighbours, ZCDP, resolve_seed, round_down, with_relation)

from .exact import EXACT_MARGIN
from .report import AuditReport

__all__ = ["audit_policy", "DEFINITIONS"]

DEFINITIONS = ("table", "view", "local", "interactive")


def audit_policy(policy, claim, definition: str, *, horizon: int | None = None, channel=None, pairs=None,
                 sequence_length: int | None = None, method: str = "auto", seed=None, name: str = "policy",
                 command: str = "") -> AuditReport:
    t0 = time.perf_counter()
    seed = resolve_seed(seed)
    if definition not in DEFINITIONS:
        raise InvalidArgument(f"--definition {definition!r} must be one of {', '.join(DEFINITIONS)}")
    if method not in ("auto", "exact", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto, exact or sample")
    if definition == "interactive":
        raise ExactMethodUnavailable("Interactive DP audits are not available yet in this version of privcheck")
    if method == "sample":
        raise ExactMethodUnavailable("the sampled engine for policies is not available yet in this version of "
                                     "privcheck: use --method exact (small horizons)")
    if definition == "local":
        return _audit_local(claim, channel, sequence_length, name, command, seed, t0)
    if sequence_length is not None:
        raise InvalidArgument("--sequence-length applies to --definition local")
    from .policy_exact import exact_policy_figures

    relation = TableNeighbours() if definition == "table" else ViewNeighbours()
    claim = with_relation(claim, relation)
    if pairs is not None:
        for a, b in pairs:
            if not relation.contains(a, b):
                raise InvalidArgument(f"{a} and {b} are not neighbours under {relation.describe()}")
    fig = exact_policy_figures(policy, claim, definition, channel=channel, pairs=pairs, horizon=horizon)
    exact_delta = Fraction(fig["delta_exact"]) if fig["delta_exact"] else None
    delta_lo = float(exact_delta) if exact_delta is not None else round_down(fig["delta"], EXACT_MARGIN)
    eps_lo = round_down(fig["epsilon"], EXACT_MARGIN)
    ren = {o: round_down(v, EXACT_MARGIN) for o, v in fig["renyi"].items()}
    rho = round_down(fig["rho"], EXACT_MARGIN)
    if isinstance(claim, (PureDP, ApproxDP)):
        if exact_delta is not None:
            violates = exact_delta > Fraction(claim.delta)
        else:
            violates = delta_lo > claim.delta
    elif isinstance(claim, RenyiDP):
        violates = ren[claim.order] > claim.epsilon
    else:
        violates = rho > claim.rho
    witness = {"pair": fig["pair"], "event": {"kind": "action sequences", "values": fig["event"],
                                              "size": fig["event_size"]},
               "event_text": f"the action sequence is one of {fig['event_size']} sequences",
               "probabilities": fig["probabilities"], "epsilon_pair": fig["epsilon_pair"]}
    notes = [f"{definition} DP: exact enumeration of {fig['pairs_considered']:,} ordered neighbour pairs"
             + (" in rational arithmetic" if fig["rational"] else " in floating point, rounded down by 1e-9")]
    return AuditReport(
        target=name, claim=claim, epsilon_lower=eps_lo,
        delta_lower=delta_lo if isinstance(claim, (PureDP, ApproxDP)) else None, rho_lower=rho, renyi_lower=ren,
        violates_claim=bool(violates), method="exact", samples_per_side=None, confidence=1.0, witness=witness,
        seconds=time.perf_counter() - t0, seed=seed, notes=tuple(notes), command=command,
        extra={"definition": definition, "delta_lower_exact": fig["delta_exact"],
               "pairs_considered": fig["pairs_considered"]})


def _audit_local(claim, channel, n, name, command, seed, t0):
    from mechanisms import SequenceChannel

    from .api import audit

    if channel is None:
        raise InvalidArgument("--definition local needs a feedback randomizer (--rr-epsilon)")
    if not isinstance(claim, (PureDP, ApproxDP)):
        raise InvalidArgument("--definition local audits an ε-LDP claim: give --epsilon")
    per = audit(channel, with_relation(claim, channel.claim.relation), method="exact", seed=seed)
    report = per
    extra = {"definition": "local", "per_report_epsilon_lower": per.epsilon_lower}
    notes = ["per report: the feedback randomizer under all pairs of single rewards"]
    if n is not None:
        seq = SequenceChannel(channel, n)
        report = audit(seq, with_relation(claim, seq.claim.relation), method="exact", seed=seed)
        extra.update(sequence_length=n, sequence_epsilon_lower=report.epsilon_lower)
        notes.append(f"sequence: {n} rewards, any two sequences (Definition 2 as written); the verdict uses this "
                     "level")
    return AuditReport(
        target=name, claim=report.claim, epsilon_lower=report.epsilon_lower, delta_lower=report.delta_lower,
        rho_lower=report.rho_lower, renyi_lower=report.renyi_lower, violates_claim=report.violates_claim,
        method="exact", samples_per_side=None, confidence=1.0, witness=report.witness,
        seconds=time.perf_counter() - t0, seed=seed, notes=tuple(notes), command=command, extra=extra)
