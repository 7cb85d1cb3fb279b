"""``audit_policy``: the entry point of a bandit-policy audit (behind :func:`privcheck.audit_policy` and
``privcheck audit`` on a policy).

* ``table`` / ``view`` (exact): every neighbour pair of binary reward tables (one row replaced) or reward lists
  (one entry replaced) is enumerated (:mod:`.tables`); the output is the action sequence.
* ``table`` / ``view`` (sampled): :class:`~.adapters.PolicyMechanism` makes "run the policy on this input" a
  mechanism whose draws are independent runs, and the sampled mechanism engine certifies a lower bound: pair
  search among neighbours of a start table (:mod:`.inputs`), events over the action sequence (pulls of each arm,
  the first round each arm is played, its longest stretch of rounds in a row, the number of switches, the action at
  a step, the whole sequence as a category when few occur, the mean-difference projection where the sides' means
  differ beyond label shuffles), Clopper–Pearson certification on fresh runs.
* ``interactive`` (sampled): the policy against each adversary of :mod:`.adversaries` (and the user's own),
  the failure probability split over them, the largest certified bound reported.
* ``interactive`` (exact): each figure the supremum over every deterministic adversary, by backward induction
  on the recommendation/query tree (:mod:`.interactive`); chosen by ``auto`` when the policy is enumerable and
  the enumeration fits.
* ``local``: each user's report randomizer (:mod:`.local`).

A lower bound never certifies privacy: "not refuted" says only that this audit found no violation.
"""

from __future__ import annotations

import time
from dataclasses import replace

from privcheck.core.protocols import Adapted, RandomnessWarning, provides

from ..options import takes_options
from ..report import AuditReport
from .relations import RELATIONS
from .resolved import ARGUMENT, check_releases, resolve, takes_arguments

__all__ = ["audit_policy", "check_releases", "DEFINITIONS"]

#: the names of the neighbouring relations a policy audit takes (:data:`~.relations.RELATIONS`)
DEFINITIONS = tuple(RELATIONS)


@takes_options
@takes_arguments
def audit_policy(policy, claim, definition: str, **arguments) -> AuditReport:
    """Audit a bandit policy against a privacy claim under ``definition``: ``"table"``, ``"view"``,
    ``"interactive"``, ``"joint"`` (a contextual policy: one user's context and rewards, their own action left out)
    or ``"local"`` (each user's report) — :mod:`privcheck.audits.policy.relations`.

    Parameters
    ----------
    policy : a :class:`~privcheck.core.protocols.Policy` (batched over runs), a factory of one, or a factory of
        one-object-per-run policies (``act(t)``, ``update(t, arm, reward)``, or a shape of :mod:`privcheck.adapters`:
        :mod:`privcheck.core.sequential`), which is given the ``n_arms``, ``horizon``, ``rng`` and claim parameters it
        declares; a run whose ``act`` takes the round's contexts (``act(t, contexts)``, ``get_arm(contexts)``,
        ``select(x)``) is contextual.
    claim : the claim under test.
    definition : which neighbours the claim is about (:data:`DEFINITIONS`).
    {arguments}

    Other Parameters
    ----------------
    {options}

    Notes
    -----
    Every argument is checked before any run, naming it; a policy whose schedule makes no private release within
    the horizon (:func:`check_releases`) is refused as bad input: its actions cannot depend on the data there, so
    any claim would pass vacuously.  A lower bound never certifies privacy: "not refuted" says only that this audit
    found no violation.
    """
    t0 = time.perf_counter()
    given = {k: arguments.pop(k) for k in list(arguments) if k in ARGUMENT}
    a = resolve(policy, claim, definition, given, arguments, t0)
    report = a.relation.audit(a)
    warned = [a.policy.adapter_note if provides(a.policy, Adapted) else None]
    warned.append(a.policy.randomness_warning if provides(a.policy, RandomnessWarning) else None)
    if any(warned):
        report = replace(report, notes=(*report.notes, *filter(None, warned)))
    instance = given.get("instance")
    if not instance:
        return report
    if isinstance(instance, dict):
        kept = {k: v for k, v in instance.items() if k != "note"}
        return replace(
            report, notes=(*report.notes, f"instance: {instance['note']}"), extra={**report.extra, "instance": kept}
        )
    return replace(report, notes=(*report.notes, f"instance: {instance}"))
