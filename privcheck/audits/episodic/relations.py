"""An episodic audit's neighbouring relations, one class each, and the one place that maps their names to them.

====================  ===========================================================================================
relation              neighbours, and what is observed
====================  ===========================================================================================
:class:`EpisodeJoint` one user's response tape (one episode) replaced; every other episode's actions, the changed
                      user's own left out (joint DP per episode: Vietri, Balle, Krishnamurthy and Wu, "Private
                      Reinforcement Learning with PAC and Regret Guarantees", §2) — or, with ``releases``, what the
                      agent publishes after each episode (the statistics its proof makes private)
====================  ===========================================================================================

A relation says what the report says of it (``name``, ``said``, :meth:`heading`, :meth:`pair_text`), the claim's
neighbours (:mod:`privcheck.core.neighbours`) and what a run outputs under it.  A lower bound never certifies
privacy.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from privcheck.core import EpisodeNeighbours, InvalidArgument

__all__ = ["EpisodicRelation", "EpisodeJoint", "EPISODIC_RELATIONS", "episodic_relation_named"]


class EpisodicRelation:
    """What every episodic relation says (see :class:`EpisodeJoint`)."""

    name: ClassVar[str] = ""
    said: ClassVar[str] = ""
    #: whether a report counts runs (its draws are whole runs of the agent)
    observes_actions: ClassVar[bool] = True

    def neighbours(self):
        return EpisodeNeighbours()

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


#: every episodic relation by its name
EPISODIC_RELATIONS = {r.name: r for r in (EpisodeJoint(),)}


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
