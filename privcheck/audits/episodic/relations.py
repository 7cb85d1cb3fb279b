"""An episodic audit's neighbouring relations, one class each, and the one place that maps their names to them.

====================  ===========================================================================================
relation              neighbours, and what is observed
====================  ===========================================================================================
:class:`EpisodeJoint` one user's response tape (one episode) replaced; every other episode's actions, the changed
                      user's own left out (joint DP per episode: Vietri, Balle, Krishnamurthy and Wu, "Private
                      Reinforcement Learning with PAC and Regret Guarantees", §2) — or, with ``releases``, what the
                      agent publishes after each episode (the statistics its proof makes private)
:class:`EpisodeLocal` one user's trajectory replaced, any two; the messages their randomizer sends
                      (``report(trajectory)``) after an earlier user's on the same run, and the two's difference
                      (local DP per report: Garcelon, Perchet, Pike-Burke and Pirotta, "Local Differential Privacy
                      for Regret Minimization in Reinforcement Learning", §2; :mod:`.reports`)
====================  ===========================================================================================

A relation says what the report says of it (``name``, ``said``, ``sampled``, :meth:`heading`, :meth:`pair_text`), the
claim's neighbours (:mod:`privcheck.core.neighbours`), what is audited under it (:meth:`mechanism`: the agent's runs
as a mechanism) and on which pairs (:meth:`proposed`, :meth:`given`).  A lower bound never certifies privacy.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from privcheck.core import AllPairs, EpisodeNeighbours, InvalidArgument

from .instances import candidate_pairs
from .reports import episode_reports, trajectories_given, trajectory_pairs, trajectory_text
from .runs import EpisodicMechanism, tapes_given

__all__ = ["EpisodicRelation", "EpisodeJoint", "EpisodeLocal", "EPISODIC_RELATIONS", "episodic_relation_named"]


class EpisodicRelation:
    """What every episodic relation says (see :class:`EpisodeJoint`)."""

    name: ClassVar[str] = ""
    said: ClassVar[str] = ""
    #: how the sampling is said in the report's first note
    sampled: ClassVar[str] = ""
    #: whether a report counts runs (its draws are whole runs of the agent)
    observes_actions: ClassVar[bool] = True
    #: whether its draws may be the first episodes of each run only (``read``: :class:`~.runs.EpisodicMechanism`)
    reads_first: ClassVar[bool] = True

    def neighbours(self):
        return EpisodeNeighbours()

    def mechanism(self, agent, releases, name: str, read: int | None = None):
        """The agent's runs as the mechanism audited under this relation (its actions, or what it publishes) — of
        each run, the first ``read`` episodes where given."""
        return EpisodicMechanism(agent, releases, name, read)

    def proposed(self, agent, mdp, read: int | None = None) -> tuple[list, str]:
        """The pairs audited when none are given, and the note that says them: one user's response tape replaced
        around the users of ``mdp`` (an :class:`~.instances.MDP`: :func:`~.instances.candidate_pairs`) — a user
        among the first ``read`` where the runs are read on those only."""
        pairs = [(a, b) for a, b, _ in candidate_pairs(mdp, agent.episodes, agent.horizon, read)]
        return pairs, (
            f"{len(pairs)} neighbouring inputs proposed — one user's response tape replaced (early, in the middle, "
            f"second to last; rewards at the extremes, towards a rare state, both) among a quiet population and the "
            f"{mdp.name} MDP's users — the pair screening keeps those whose runs differ most"
            + (f"; {mdp.note}" if mdp.note else "")
        )

    def given(self, pairs, agent) -> list:
        """Given pairs, checked, as packed inputs."""
        return tapes_given(pairs, agent)

    def heading(self, releases=None) -> str:
        """How a report's first sentence says the relation (and, auditing what the agent publishes, that)."""
        if not releases:
            return self.said
        return (
            f"{self.said.split(' (')[0]} (read on what the agent publishes after each episode: {', '.join(releases)})"
        )

    def pair_text(self, a, b) -> str | None:
        """The witness's pair in words: which user, and how their tape changed."""
        x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if x.ndim != 2 or x.shape != y.shape:
            return None
        marked = np.nonzero(x[:, 0] == 1.0)[0]
        if marked.size != 1:
            return None
        u = int(marked[0])
        per = (x.shape[1] - 2) // 2
        said = []
        if x[u, 1] != y[u, 1]:
            said.append(f"initial state {x[u, 1]:g} → {y[u, 1]:g}")
        for what, cols in (("rewards", slice(2, 2 + per)), ("next states", slice(2 + per, None))):
            if not np.array_equal(x[u, cols], y[u, cols]):
                said.append(f"{what} {_values(x[u, cols])} → {_values(y[u, cols])}")
        return (
            f"x, x' = {x.shape[0]} users' response tapes differing in user {u + 1}'s (episode {u + 1}): "
            + "; ".join(said)
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _values(v: np.ndarray) -> str:
    """A tape's values in a few words: the one value they all take, else their range."""
    if np.all(v == v[0]):
        return f"all {v[0]:g}"
    return f"{v.min():g}…{v.max():g}"


class EpisodeJoint(EpisodicRelation):
    """Joint DP per episode: one user's response tape replaced; every other episode's actions observed (the changed
    user's own recorded as 0), or what the agent publishes."""

    name = "joint"
    said = ", as joint DP per episode (every other user's actions, when one user's response tape changes)"
    sampled = "joint DP per episode: sampled over runs of the agent"


class EpisodeLocal(EpisodicRelation):
    """Local DP per report: any two trajectories of one user; observed, the messages their randomizer sends after
    an earlier user's, on one run (:class:`~.reports.EpisodeReports`)."""

    name = "local"
    said = ", as local DP per report (one user's message, when their trajectory changes — any two)"
    sampled = "local DP per report: sampled over fresh runs of the agent"
    observes_actions = False
    reads_first = False

    def neighbours(self):
        return AllPairs()

    def mechanism(self, agent, releases, name: str, read: int | None = None):
        return episode_reports(agent, releases, name)

    def proposed(self, agent, mdp, read: int | None = None) -> tuple[list, str]:
        """The one pair of :func:`~.reports.trajectory_pairs` (the ``mdp`` does not enter: the trajectories are the
        user's data)."""
        pairs = trajectory_pairs(agent.horizon, agent.states, agent.actions)
        return pairs, (
            "one pair of the audited user's trajectory: a quiet one (state 0, action 0, reward 0 at every step) "
            f"against every step in state {agent.states - 1} under action {agent.actions - 1} at reward 1 — every "
            "count a message can hold moved — after a quiet earlier user's; give pairs= to audit others"
        )

    def given(self, pairs, agent) -> list:
        return trajectories_given(pairs, agent)

    def heading(self, releases=None) -> str:
        return self.said

    def pair_text(self, a, b) -> str | None:
        return trajectory_text(a, b)


#: every episodic relation by its name
EPISODIC_RELATIONS = {r.name: r for r in (EpisodeJoint(), EpisodeLocal())}


def episodic_relation_named(definition) -> EpisodicRelation:
    """The relation ``definition`` names (a relation passes as it is), or an :class:`InvalidArgument` listing them."""
    if isinstance(definition, EpisodicRelation):
        return definition
    try:
        return EPISODIC_RELATIONS[definition]
    except (KeyError, TypeError):
        raise InvalidArgument(
            f"definition={definition!r} does not apply to an episodic agent: give one of "
            f"{', '.join(EPISODIC_RELATIONS)}"
        ) from None
