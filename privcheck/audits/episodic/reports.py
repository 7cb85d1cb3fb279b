"""Local DP of an episodic agent's reports: the randomizer a user applies to their episode before it leaves them.

A locally private RL agent ("Local Differential Privacy for Regret Minimization in Reinforcement Learning",
Garcelon, Perchet, Pike-Burke and Pirotta, NeurIPS 2021, §2) never sees a user's trajectory: each user sends a
message privatized on their side, and the guarantee is ε-DP of that message in the user's whole trajectory — any
two trajectories of H steps, whatever policy the user followed.  A run exposes its randomizer as
``report(trajectory)`` (:class:`~privcheck.core.protocols.SendsReports`): the steps ``(state, action, reward,
next_state)`` in, the message out — numbers in any shape (a tuple or dict of arrays is read in its order), one message
per run when the agent is batched.

:class:`EpisodeReports` makes it a mechanism whose draws are fresh runs, each asked for two users' messages in turn:
an earlier user's, the same on both sides of a pair, then the audited user's.  Its output is both messages and their
difference — what the server holds — so that a randomizer keeping state between users (noise drawn once and
reused: the difference is then exact) shows, and not only a randomizer mis-calibrated in one message.  The input is
packed as two rows of 4H numbers, ``[state, action, reward, next_state]`` a step (the earlier user's row first);
:func:`trajectory_pairs` proposes the pairs.  A lower bound never certifies privacy.
"""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument
from privcheck.core.errors import TargetError, raised
from privcheck.core.protocols import SendsReports, provides
from privcheck.core.published import as_rows

from .runs import coordinate_event, given_pairs

__all__ = ["EpisodeReports", "episode_reports", "trajectory_pairs", "trajectories_given", "trajectory_text"]


class EpisodeReports:
    """An episodic agent's user randomizer as a mechanism (see the module docstring); ``agent`` an
    :class:`~privcheck.core.episodic.EpisodicAgent` whose runs have ``report(trajectory)``."""

    def __init__(self, agent, name: str):
        self.agent, self.name = agent, name
        self._width = None

    def __repr__(self) -> str:
        return f"EpisodeReports({self.agent.name})"

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        earlier, audited = unpacked(x, self.agent)
        size = int(size)
        a = self.agent
        if a.batched:
            run = a.make(rng, size)
            first, second = self._message(run, earlier, size), self._message(run, audited, size)
        else:
            rows = []
            for child in rng.spawn(size):
                run = a.make(child, 1)
                rows.append(np.hstack([self._message(run, earlier, 1), self._message(run, audited, 1)]))
            both = np.vstack(rows) if rows else np.empty((0, 2 * (self._width or 1)))
            first, second = np.hsplit(both, 2)
        return np.hstack([first, second, second - first])

    def _message(self, run, trajectory: list, runs: int) -> np.ndarray:
        """The run's ``report`` on one trajectory, as float rows (one a run), its width checked against the last."""
        name = self.agent.name
        try:
            sent = run.report(trajectory)
        except Exception as exc:
            raise raised(TargetError, f"{name}: report(trajectory) raised {type(exc).__name__}: {exc}", exc) from None
        if isinstance(sent, dict):
            sent = list(sent.values())
        elif isinstance(sent, tuple):
            sent = list(sent)
        try:
            rows = as_rows(sent, runs)
        except (TypeError, ValueError):
            raise TargetError(
                f"{name}: report(trajectory) returned {type(sent).__name__}, not numbers "
                f"({'one message a run' if runs > 1 else 'one message'})"
            ) from None
        if self._width is not None and rows.shape[1] != self._width:
            raise TargetError(f"{name}: report(trajectory) sent {self._width} numbers, then {rows.shape[1]}")
        self._width = rows.shape[1]
        return rows

    def outputs(self) -> str:
        """What a draw is, said in a report's notes."""
        return (
            "outputs are two users' messages from one fresh run's report(trajectory) — an earlier user's, the same on "
            "both sides, then the audited user's — and their difference (what the server holds: a randomizer that "
            "keeps its noise between users shows there)"
        )

    def event_text(self, event) -> str | None:
        """An event on one coordinate of a draw, said as which message it reads (None: another kind of event)."""
        said = coordinate_event(event)
        if said is None or not self._width:
            return None
        (j, what) = said
        part, i = divmod(j, self._width)
        whose = (
            "the earlier user's message",
            "the audited user's message",
            "the audited user's message less the earlier user's",
        )[min(part, 2)]
        return f"number {i + 1} of {whose} is {what}"


def episode_reports(agent, releases, name: str) -> EpisodeReports:
    """The user randomizer of a locally private agent's runs as a mechanism, or an :class:`InvalidArgument` saying
    why a local audit does not apply."""
    if releases:
        raise InvalidArgument(
            'releases= reads what the server publishes (a joint audit); definition="local" audits each user\'s '
            "message, report(trajectory)"
        )
    if agent.loop:
        raise InvalidArgument(
            f'definition="local" asks a run object for report(trajectory), and {name} is a training loop (it declares '
            "env): give a factory of the agent it trains"
        )
    if not provides(agent.make(np.random.default_rng(0), 1), SendsReports):
        raise InvalidArgument(
            f'definition="local" audits the randomizer each user applies to their episode: {name}\'s runs need '
            "report(trajectory) — the steps (state, action, reward, next_state) in, the user's message out"
        )
    return EpisodeReports(agent, name)


def _steps(row: np.ndarray) -> list:
    """A packed trajectory's steps as the field's code takes them: (state, action, reward, next_state), Python
    numbers."""
    return [(int(s), int(a), float(r), int(n)) for s, a, r, n in row.reshape(-1, 4).tolist()]


def unpacked(x, agent) -> tuple[list, list]:
    """The two trajectories of a packed input (the earlier user's, the audited user's), checked."""
    a = np.asarray(x, dtype=float)
    H, S, A = agent.horizon, agent.states, agent.actions
    if a.shape != (2, 4 * H):
        raise InvalidArgument(
            f"a local episodic input must be 2 × {4 * H} (the earlier user's trajectory, then the audited user's: "
            f"[state, action, reward, next_state] for each of the {H} steps), not shape {a.shape}"
        )
    for row in a:
        _check(row.reshape(H, 4), S, A)
    return _steps(a[0]), _steps(a[1])


def _check(t: np.ndarray, states: int, actions: int) -> None:
    for what, col, n in (("state", 0, states), ("action", 1, actions), ("next state", 3, states)):
        v = t[:, col]
        if not np.all((v == np.round(v)) & (v >= 0) & (v < n)):
            raise InvalidArgument(f"a trajectory's {what} is not one of the {n} {what.split()[-1]}s 0 … {n - 1}")
    if not np.isfinite(t[:, 2]).all():
        raise InvalidArgument("a trajectory holds a reward that is NaN or infinite")
    if not np.array_equal(t[1:, 0], t[:-1, 3]):
        raise InvalidArgument("a trajectory's state at a step is not the next state of the step before")


def _trajectory(states, actions, rewards, horizon: int) -> np.ndarray:
    """A consistent trajectory: each step's next state is the following step's state (the last one's, its own)."""
    s = np.broadcast_to(np.asarray(states, dtype=float), (horizon,))
    a = np.broadcast_to(np.asarray(actions, dtype=float), (horizon,))
    r = np.broadcast_to(np.asarray(rewards, dtype=float), (horizon,))
    nxt = np.append(s[1:], s[-1])
    return np.column_stack([s, a, r, nxt]).ravel()


def trajectory_pairs(horizon: int, states: int, actions: int, levels=(0.0, 1.0)) -> list:
    """The pair audited by default, as packed inputs: the earlier user's trajectory the same quiet one on both sides
    (state 0, action 0, the low reward at every step); the audited user's the quiet one against one that moves every
    step — in the last state, under the last action, at the high reward.  Every count a message can hold moves (the
    ℓ1 change of 2H a count's calibration assumes), and every state, action and reward a randomizer reads: a smaller
    change moves a count-based message less.  (Rewards alone, actions alone and one next state alone were proposed
    beside it and left out: on ``examples/ldp_rl.py``'s calibrated agent, seed 1, the screening among the four chose
    a smaller change and certified ε ≥ 0.04, where this pair alone certified 0.26 — both before the sign statistic
    of :mod:`privcheck.audits.mechanism.events` was offered.)"""
    lo, hi = levels
    quiet = _trajectory(0, 0, lo, horizon)
    moved = _trajectory(states - 1, actions - 1, hi, horizon)
    if np.array_equal(quiet, moved):
        raise InvalidArgument("states=1, actions=1 and one reward level leave no two trajectories to tell apart")
    return [(np.vstack([quiet, quiet]), np.vstack([quiet, moved]))]


def trajectories_given(pairs, agent) -> list:
    """Given pairs as packed inputs (:func:`~.runs.given_pairs`): each side 2 × 4H (the earlier user's trajectory row
    first, the same on both sides), or H × 4 steps of the audited user's (the earlier user's then the quiet one), each
    checked."""
    H = agent.horizon
    quiet = _trajectory(0, 0, 0.0, H)

    def side(i, x):
        s = np.asarray(x, dtype=float)
        if s.shape == (H, 4):
            s = np.vstack([quiet, s.ravel()])
        if s.shape != (2, 4 * H):
            raise InvalidArgument(
                f"pairs=[{i}] holds a side of shape {s.shape}: give the audited user's {H} steps as {H} × 4 "
                f"(state, action, reward, next_state), or 2 × {4 * H} with the earlier user's trajectory first"
            )
        unpacked(s, agent)
        return s

    out = given_pairs(pairs, side, "trajectories")
    for i, (a, b) in enumerate(out):
        if not np.array_equal(a[0], b[0]):
            raise InvalidArgument(
                f"pairs=[{i}]: the earlier user's trajectory (the first row) differs between x and x'"
            )
    return out


def trajectory_text(a, b) -> str | None:
    """The witness's pair in words: the audited user's trajectory on each side."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.ndim != 2 or x.shape != y.shape or x.shape[0] != 2 or x.shape[1] % 4:
        return None

    def said(row):
        return " ".join(f"({int(s)},{int(a_)},{r:g}→{int(n)})" for s, a_, r, n in row.reshape(-1, 4).tolist())

    return f"the audited user's trajectory (state, action, reward → next state) {said(x[1])} against {said(y[1])}"
