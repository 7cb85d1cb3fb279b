"""An episodic agent's runs on the users' response tapes as a mechanism (joint DP per episode, and the releases view):
:class:`EpisodicMechanism`, and the given pairs of tapes checked (:func:`tapes_given`).  A lower bound never
certifies privacy."""

from __future__ import annotations

import numpy as np

from privcheck.core import InvalidArgument
from privcheck.core.episodic import EpisodicAgent, Tapes, run_episodes
from privcheck.core.published import as_rows, published

from ..mechanism.events import InSet, Kind, Threshold

__all__ = ["EpisodicMechanism", "tapes_given", "coordinate_event", "given_pairs"]


def coordinate_event(event) -> tuple[int, str] | None:
    """An event on one coordinate of a draw — a threshold or a set — as (that coordinate, what it says of it: "> t",
    "in {…}"); None for any other event.  What both episodic mechanisms' witnesses say their events with."""
    if not isinstance(event, (Threshold, InSet)) or event.statistic.kind != Kind.COORD:
        return None
    if isinstance(event, Threshold):
        return int(event.statistic.index), f"{'>' if event.above else '≤'} {event.threshold:.6g}"
    shown = ", ".join(f"{float(v):.6g}" for v in event.values[:6])
    more = ", …" if len(event.values) > 6 else ""
    return int(event.statistic.index), f"{'not ' if event.complement else ''}in {{{shown}{more}}}"


def given_pairs(pairs, side, what: str) -> list:
    """Given pairs as packed inputs: each (x, x') pair's sides made by ``side(i, x)`` (which checks them, its
    errors naming ``pairs=[i]``); an empty list, or an item that is not a pair, is one message saying ``what``
    a pair holds."""
    out = []
    for i, pair in enumerate(pairs):
        try:
            a, b = pair
        except (TypeError, ValueError):
            raise InvalidArgument(f"pairs=[{i}] must be an (x, x') pair of {what}") from None
        out.append((side(i, a), side(i, b)))
    if not out:
        raise InvalidArgument("pairs=[] must hold at least one (x, x') pair")
    return out


class EpisodicMechanism:
    """An episodic agent run on tapes as a mechanism whose draws are independent runs
    (:func:`~privcheck.core.episodic.run_episodes`): every episode's actions, the changed user's own recorded as 0,
    or what it publishes after each episode (``releases``) followed by each release's change from the one before —
    a one-to-one function of the releases, so that its privacy is theirs, offered because a per-episode statistic
    is what a continual release's bugs move (noise that does not refresh leaves the changes exact).  With ``read``
    (fewer than the agent's episodes) a draw is the first ``read`` episodes' output of a run of the agent made for all
    of them: a function of a whole run's output, so that an event on it is an event on the agent's."""

    def __init__(self, agent: EpisodicAgent, releases: tuple | None, name: str, read: int | None = None):
        self.agent, self.releases, self.name = agent, releases, name
        #: the episodes of each run read (the first ones): all of the agent's unless fewer are given
        self.read = agent.episodes if read is None else read

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        a = self.agent
        tapes = Tapes.unpacked(x, a.horizon, a.states, a.actions)
        if self.read < a.episodes:
            tapes = tapes.first(self.read)
        out = run_episodes(a, tapes, rng, size, self.releases)
        if not self.releases:
            return out
        self._seen_width = out.shape[1] // self.read  # (what the witness's words read: _width)
        per = out.reshape(out.shape[0], self.read, -1)  # (a release a row)
        return np.concatenate([out, np.diff(per, axis=1, prepend=0.0).reshape(out.shape)], axis=1)

    def released_over(self) -> tuple | None:
        """(episodes, 2) where the draws are releases — each episode's, then their changes — else None (the sampled
        engine's stepped projection reads the releases: a user's episode enters every later release)."""
        return (self.read, 2) if self.releases else None

    def outputs(self) -> str:
        """What a draw is, said in a report's notes."""
        a = self.agent
        episodes = f"{a.episodes}" if self.read == a.episodes else f"first {self.read} of the {a.episodes}"
        if self.releases:
            return (
                f"outputs are what the agent publishes, not its actions: {', '.join(self.releases)}, read after "
                f"each of the {episodes} episodes — the releases view — then each release's change from the one "
                "before (a function of the releases: events on it are events on them, and a counter whose noise "
                "does not refresh shows there)"
            )
        return (
            f"outputs are every episode's {a.horizon} actions over the {episodes} episodes, the changed user's own "
            "recorded as 0 (joint DP leaves them out)"
        )

    def event_text(self, event) -> str | None:
        """An event on one coordinate said in episodes: the action at a step, or a published value after an episode
        (or its change from the one before) — read from the event's statistic (None: another kind of event)."""
        said = coordinate_event(event)
        if said is None:
            return None
        (j, what), a = said, self.agent
        if not self.releases:
            return f"the action at step {j % a.horizon + 1} of episode {j // a.horizon + 1} is {what}"
        width = self._width()
        if width is None:
            return None
        change, j = divmod(j, self.read * width)
        episode, i = divmod(j, width)
        value = self._value(i)
        if change:
            before = f"after episode {episode}" if episode else "before any"
            return f"{value} as published after episode {episode + 1}, less its value {before}, is {what}"
        return f"{value} as published after episode {episode + 1} is {what}"

    def _shapes(self) -> list | None:
        """Each release's (name, shape) for one run, read from a fresh run as the runs are read
        (:func:`~privcheck.core.published.published`; a dict's values, concatenated, as one flat shape) — None where a
        run has not made them yet."""
        if not hasattr(self, "_shape_list"):
            try:
                run = self.agent.make(np.random.default_rng(0), 1)
                shapes = []
                for n in self.releases:
                    value = published(run, n, self.name, lambda: LookupError(n))
                    if isinstance(value, list):
                        shape = (as_rows(value, 1).shape[1],)
                    else:
                        shape = np.shape(value)[1:] if self.agent.batched else np.shape(value)
                    shapes.append((n, shape))
                self._shape_list = shapes
            except Exception:  # (a release made only once an episode has ended)
                self._shape_list = None
        return self._shape_list

    def _width(self) -> int | None:
        shapes = self._shapes()
        if shapes is None:
            return getattr(self, "_seen_width", None)
        return sum(int(np.prod(s)) for _, s in shapes)

    def _value(self, i: int) -> str:
        if self._shapes() is None:
            return f"value {i + 1} of {', '.join(self.releases)}"
        for name, shape in self._shapes():
            size = int(np.prod(shape))
            if i < size:
                index = np.unravel_index(i, shape) if shape else ()
                return f"{name}[{', '.join(str(int(v)) for v in index)}]" if index else name
            i -= size
        return f"value {i}"

    def __repr__(self) -> str:
        return f"EpisodicMechanism({self.agent!r})"


def tapes_given(pairs, agent: EpisodicAgent) -> list:
    """Given pairs as packed inputs (:func:`given_pairs`), each side checked: :class:`~privcheck.core.episodic.Tapes`
    or packed arrays of the instance's shape."""
    shape = (agent.episodes, agent.horizon, agent.states, agent.actions)

    def side(i, x):
        tapes = x if isinstance(x, Tapes) else Tapes.unpacked(x, agent.horizon, agent.states, agent.actions)
        if tapes.shape != shape:
            raise InvalidArgument(
                f"pairs=[{i}] holds tapes of shape {tapes.shape}, not (episodes, horizon, states, actions) = {shape}"
            )
        return tapes.packed()

    return given_pairs(pairs, side, "tapes")
