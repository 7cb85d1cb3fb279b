"""The first episodes of each run an episodic audit reads, where whole runs do not fit the default plan.

An agent learns of a user only when the user's episode is run, so the first K′ episodes of a run of an agent made for
K episodes output what a whole run outputs first: a function of the whole run's output.  An event on them is an event
on the agent's output, and a refutation read on them holds for the agent at K episodes.  What the later episodes
output is not read, and no user after the K′-th is changed: a bound that does not refute says nothing of them (the
report says so).  A training loop runs itself to its last episode and is read whole.

Where the default plan of whole runs does not fit — :data:`~..policy.plan.MIN_SIZED` runs a side within the default's
ten minutes and this machine's memory (:func:`~..policy.plan.fits_runs`) — and the user gave neither ``samples`` nor
``first_episodes``, the audit reads the longest prefix K′ = :data:`FIRST_LEAST`·2ʲ < K whose plan keeps
:data:`FIRST_RUNS` runs a side at the whole run's measured cost per episode (:func:`first_fitting`), then measures the
prefix's own cost and sizes its runs to it.  A researcher's value iteration over S = 10, A = 5, H = 20 took 4.7 s a
run at K = 10³ and published 192 MB with its changes: the least plan of whole runs would have held some 863 GB, and
was refused; on its first 16 episodes two of its planted bugs are refuted in under three minutes
(``benchmarks/RESULTS.md``, issue 73).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from privcheck.core import InvalidArgument, check_int
from privcheck.core.resources import human_bytes, human_seconds

from ..policy.plan import MIN_SIZED
from ..sampling import DrawCost

__all__ = ["FIRST_LEAST", "FIRST_RUNS", "first_checked", "first_fitting", "last_changed", "first_note"]

#: the fewest episodes a prefix read by default holds (and the first of its powers of two)
FIRST_LEAST = 8
#: the runs per side a default prefix keeps in its plan (:func:`first_fitting`): a shorter prefix is a narrower
#: release on more runs, which a wide release's statistics need (an agent's release of 576,000 values a run was not
#: refuted on 757 runs a side)
FIRST_RUNS = 1_000


def last_changed(pairs) -> int:
    """The last episode (0-based) any pair's sides differ in: a prefix must hold it."""
    last = 0
    for a, b in pairs:
        rows = np.nonzero(np.any(np.asarray(a) != np.asarray(b), axis=1))[0]
        if rows.size:
            last = max(last, int(rows[-1]))
    return last


def first_checked(first_episodes, agent, relation, pairs=None) -> int | None:
    """``first_episodes`` checked against the instance (None: every episode, or a prefix the plan chooses) — at least
    2 and at most the agent's episodes, for a relation whose draws are runs of a run object (not a training loop),
    holding every given pair's change; the whole run's episodes are None."""
    if first_episodes is None:
        return None
    read = check_int("first_episodes", first_episodes, 2)
    if not relation.reads_first:
        raise InvalidArgument(
            f"first_episodes={read} applies to joint DP per episode; a {relation.name} audit's draws are one user's "
            "reports"
        )
    if read > agent.episodes:
        raise InvalidArgument(f"first_episodes={read} is more than the episodes={agent.episodes} of the instance")
    if agent.loop and read < agent.episodes:
        raise InvalidArgument(
            f"first_episodes={read}: {agent.name} is a training loop (it declares env), which runs all its "
            f"{agent.episodes} episodes"
        )
    last = -1 if pairs is None else last_changed(pairs)
    if last >= read:
        raise InvalidArgument(
            f"first_episodes={read} does not reach the given pairs' changed user (episode {last + 1}): read more "
            "episodes, or change an earlier user"
        )
    return None if read == agent.episodes else read


def first_fitting(episodes: int, cost: DrawCost, fits, least: int = FIRST_LEAST) -> int:
    """The longest prefix ``least``·2ʲ < ``episodes`` whose runs, at ``cost`` (a whole run's) scaled to its share of
    the episodes, ``fits`` (a predicate of a :class:`~..sampling.DrawCost`) — ``least`` where none does, and
    ``episodes`` where ``least`` reaches them."""
    if least >= episodes:
        return episodes
    read = least
    while 2 * read < episodes and fits(_share(cost, 2 * read / episodes)):
        read *= 2
    return read


def _share(cost: DrawCost, share: float) -> DrawCost:
    """A prefix's cost from a whole run's: its bytes, seconds and values in proportion to its episodes."""
    values = max(1, round(cost.width * share))
    return replace(cost, bytes=cost.bytes * share, seconds=cost.seconds * share, values=values, chunk=0)


def first_note(read: int, episodes: int, whole: DrawCost | None = None) -> str:
    """What the report says of a prefix read: why — given (``whole`` None), or chosen because whole runs of that
    measured cost do not fit the least sized plan — and what a bound read on it says of the agent."""
    why = (
        "as first_episodes= says"
        if whole is None
        else (
            f"a whole run took {_seconds(whole.seconds)} and published {human_bytes(whole.bytes)}, and {MIN_SIZED:,} "
            "runs a side of it do not fit the default's ten minutes and this machine's memory — give first_episodes= "
            "to read more"
        )
    )
    return (
        f"each run read on its first {read} of the {episodes} episodes ({why}): the agent is made for all {episodes} "
        "and stopped after them, so what is read is what a whole run outputs first — a refutation holds for the "
        f"agent at {episodes} episodes; no user after episode {read} is changed and nothing published later is "
        "read, and a bound that does not refute says nothing of them"
    )


def _seconds(s: float) -> str:
    """A run's seconds: two significant digits below ten (a run of a fast agent is milliseconds)."""
    return f"{s:.2g} s" if s < 10 else human_seconds(s)
