"""The local audit of a policy's feedback: each user's report randomizer, audited as a mechanism under all pairs
of single rewards — and, with a sequence length n, over sequences of n rewards as "Local Differential Privacy for
Bandits" (AAAI 2023), Definition 2, reads (any two sequences), where per-step ε-randomized response gives exactly
nε.  The verdict then uses the sequence-level figure.  A run that exposes its randomizer (``report(reward)``, or
``report(contexts, reward)`` when contextual) is audited on users' data, reward and contexts (:mod:`.reports`)."""

from __future__ import annotations

import time
from dataclasses import replace

from privcheck.core import InvalidArgument, Unspecified, with_relation
from privcheck.core.products import SequenceChannel
from privcheck.core.protocols import BoundedReports, FiniteChannel, UserReports, provides

from ..mechanism.api import audit
from ..report import AuditReport
from ..rules import needs
from .reports import RunReports, report_pairs, reports_of
from .sampled import said

__all__ = ["audit_local"]


def audit_local(a) -> AuditReport:
    """The report of the level that decides (per report, or the sequence), relabelled for the policy; a run's own
    randomizer (:class:`~.reports.RunReports`) sampled with the policy audit's options — every one
    (:meth:`~..options.Options.passed_on`; the screening a quarter of the samples given, unless given, as a policy
    audit's) — its call then saying that sampling.  ``a``: the audit (:class:`~.resolved.PolicyAudit`); its
    channel, else the policy's users' own randomizer, else a contextual run's ``report``
    (:func:`~.reports.reports_of`)."""
    claim, sequence_length, seed, opts, reward_range = a.claim, a.sequence_length, a.seed, a.opts, a.reward_range
    call, channel = a.call, a.channel
    if channel is None and provides(a.policy, UserReports):
        channel = a.policy.report_mechanism()
    elif channel is None:
        channel = reports_of(a.policy)  # a contextual run's report(contexts, reward), if it has one
    if channel is None:
        raise InvalidArgument(
            'definition="local" needs a feedback randomizer (rr_epsilon=, a policy whose users randomize their own '
            "reports, or a run with report(reward), or report(contexts, reward) when contextual)"
        )
    if not needs(claim).dp:
        raise InvalidArgument('definition="local" audits an ε-LDP claim: give epsilon=')
    if opts.event is not None:
        raise InvalidArgument(
            'event= reads the action sequences of a table, view, interactive or joint audit; definition="local" '
            "audits the users' reports"
        )
    finite = provides(channel, FiniteChannel) and channel.Q is not None
    if isinstance(channel, RunReports):
        if sequence_length is not None:
            raise InvalidArgument("sequence_length= applies to finite feedback randomizers only")
        lo, hi = reward_range or (0.0, 1.0)
        per = audit(
            channel,
            with_relation(claim, Unspecified()),
            pairs=report_pairs(channel.policy, reward_range or (0.0, 1.0)),
            method="sample",
            seed=seed,
            **opts.passed_on(leave_out=("event",)),  # (refused for a local audit: an event reads action sequences)
        )
        chosen = (per.call.arguments.get("options") or {}).get("stages") if per.call is not None else None
        opts = opts if chosen is None else replace(opts, stages=chosen)  # (the stages its estimate chose, said)
        contexts = ""
        if channel.contextual:
            contexts = (
                f", contexts of norm at most L = {channel.policy.context_bound:g}: the public first round's, "
                "reversed or turned"
            )
        notes = [
            f"per report: the run's {channel.signature} — one user's data in, what they send out — under pairs of "
            f"users' data (reward {lo:g} or {hi:g}{contexts}), each draw a fresh run"
        ]
        extra = {"per_report_epsilon_lower": per.epsilon_lower}
        return _relabelled(per, notes, extra, a, said(call, "sample", opts))
    if not finite and sequence_length is not None:
        raise InvalidArgument("sequence_length= applies to finite feedback randomizers only")
    if finite:
        per = audit(channel, with_relation(claim, channel.claim.relation), method="exact", seed=seed)
        notes = ["per report: the feedback randomizer under all pairs of single rewards"]
    elif provides(channel, BoundedReports):
        # a real-valued report (truncation at a public bound B + noise): the extreme pair B ↔ −B, the full
        # sensitivity 2B (the report of any reward in [−B, B] lies between them)
        B = float(channel.bound)
        per = audit(
            channel, with_relation(claim, channel.claim.relation), pairs=[([B], [-B])], method="auto", seed=seed
        )
        notes = [f"per report: the users' randomizer ({channel!r}) under pairs of single rewards"]
    else:
        raise InvalidArgument(
            f"channel={channel!r} is neither a finite randomizer (Q) nor a bounded real-valued one (bound)"
        )
    report = per
    extra = {"per_report_epsilon_lower": per.epsilon_lower}
    if sequence_length is not None:
        seq = SequenceChannel(channel, sequence_length)
        report = audit(seq, with_relation(claim, seq.claim.relation), method="exact", seed=seed, progress=opts.progress)
        extra.update(sequence_length=sequence_length, sequence_epsilon_lower=report.epsilon_lower)
        notes.append(
            f"sequence: {sequence_length} rewards, any two sequences (Definition 2 as written); the verdict "
            "uses this level"
        )
    return _relabelled(report, notes, extra, a, call)


def _relabelled(report, notes, extra, a, call) -> AuditReport:
    """The channel's report as the policy audit ``a``'s."""
    return replace(
        report,
        target=a.name,
        seconds=time.perf_counter() - a.t0,
        seed=a.seed,
        definition=a.relation.name,
        relation=a.relation,
        notes=tuple(report.notes) + tuple(notes),
        call=call,
        extra={**report.extra, **extra},
    )
