"""``audit_episodic``: the entry point of an episodic agent's audit (private reinforcement learning; behind
:func:`privcheck.audit_episodic` and ``privcheck audit`` on a factory declaring ``episodes`` or ``states``).

The agent (:mod:`privcheck.core.episodic`) is audited as a mechanism whose draws are independent runs over every
episode: its input is the users' response tapes, one user an episode, and its output every other user's actions
(joint DP per episode) or what it publishes after each episode (``releases``).  The pairs are proposed around a
built-in MDP's users (:mod:`.instances`) unless given; the runs per side are sized to the agent's measured cost as a
policy's are; then the sampled mechanism engine screens the pairs, chooses events on draws apart and certifies on
fresh runs (:func:`privcheck.audits.mechanism.api.audit`).  A lower bound never certifies privacy.
"""

from __future__ import annotations

import time
from dataclasses import replace

import numpy as np

from privcheck.core import InvalidArgument, resolve_seed, with_relation
from privcheck.core.episodic import EpisodicAgent, Tapes, run_episodes
from privcheck.core.sequential import claim_parameters

from ..mechanism.api import draw_cost, sampled_report
from ..mechanism.events import InSet, Kind, Threshold
from ..options import Options, takes_options
from ..report import AuditReport, Call
from ..rules import needs
from ..sampling import DrawCost
from ..stages import POLICY
from ..policy.plan import sized
from ..policy.resolved import policy_options
from .instances import MDPS, candidate_pairs, mdp_named
from .relations import EPISODIC_RELATIONS, episodic_relation_named

__all__ = ["audit_episodic", "EpisodicMechanism", "EPISODIC_DEFINITIONS"]

#: the definitions an episodic audit takes
EPISODIC_DEFINITIONS = tuple(EPISODIC_RELATIONS)


class EpisodicMechanism:
    """An episodic agent run on tapes as a mechanism whose draws are independent runs
    (:func:`~privcheck.core.episodic.run_episodes`): every episode's actions, the changed user's own recorded as 0,
    or what it publishes after each episode (``releases``) followed by each release's change from the one before —
    a one-to-one function of the releases, so that its privacy is theirs, offered because a per-episode statistic
    is what a continual release's bugs move (noise that does not refresh leaves the changes exact)."""

    def __init__(self, agent: EpisodicAgent, releases: tuple | None, name: str):
        self.agent, self.releases, self.name = agent, releases, name

    def sample(self, x, rng: np.random.Generator, size: int) -> np.ndarray:
        a = self.agent
        tapes = Tapes.unpacked(x, a.horizon, a.states, a.actions)
        out = run_episodes(a, tapes, rng, size, self.releases)
        if not self.releases:
            return out
        self._seen_width = out.shape[1] // a.episodes  # (what the witness's words read: _width)
        per = out.reshape(out.shape[0], a.episodes, -1)  # (a release a row)
        return np.concatenate([out, np.diff(per, axis=1, prepend=0.0).reshape(out.shape)], axis=1)

    def outputs(self) -> str:
        """What a draw is, said in a report's notes."""
        a = self.agent
        if self.releases:
            return (
                f"outputs are what the agent publishes, not its actions: {', '.join(self.releases)}, read after "
                f"each of the {a.episodes} episodes — the releases view — then each release's change from the one "
                "before (a function of the releases: events on it are events on them, and a counter whose noise "
                "does not refresh shows there)"
            )
        return (
            f"outputs are every episode's {a.horizon} actions over the {a.episodes} episodes, the changed user's own "
            "recorded as 0 (joint DP leaves them out)"
        )

    def event_text(self, event) -> str | None:
        """An event on one coordinate said in episodes: the action at a step, or a published value after an episode
        (or its change from the one before) — read from the event's statistic (None: another kind of event)."""
        if not isinstance(event, (Threshold, InSet)) or event.statistic.kind != Kind.COORD:
            return None
        stat = event.statistic
        a, j = self.agent, int(stat.index)
        if isinstance(event, Threshold):
            what = f"{'>' if event.above else '≤'} {event.threshold:.6g}"
        elif isinstance(event, InSet):
            shown = ", ".join(f"{float(v):.6g}" for v in event.values[:6])
            what = f"{'not ' if event.complement else ''}in {{{shown}{', …' if len(event.values) > 6 else ''}}}"
        else:
            return None
        if not self.releases:
            return f"the action at step {j % a.horizon + 1} of episode {j // a.horizon + 1} is {what}"
        width = self._width()
        if width is None:
            return None
        change, j = divmod(j, a.episodes * width)
        episode, i = divmod(j, width)
        value = self._value(i)
        if change:
            before = f"after episode {episode}" if episode else "before any"
            return f"{value} as published after episode {episode + 1}, less its value {before}, is {what}"
        return f"{value} as published after episode {episode + 1} is {what}"

    def _shapes(self) -> list | None:
        """Each release's (name, shape), read from a fresh run (None: a run has not made them yet)."""
        if not hasattr(self, "_shape_list"):
            try:
                run = self.agent.make(np.random.default_rng(0), 1)
                shapes = []
                for n in self.releases:
                    value = getattr(run, n)
                    value = value() if callable(value) else value
                    shapes.append((n, np.shape(value)[1:] if self.agent.batched else np.shape(value)))
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


@takes_options
def audit_episodic(
    agent,
    claim,
    definition: str = "joint",
    *,
    episodes: int,
    horizon: int,
    states: int,
    actions: int,
    mdp: str = "chain",
    pairs=None,
    releases=None,
    factory_args: dict | None = None,
    method: str = "auto",
    seed=None,
    name: str | None = None,
    **options,
) -> AuditReport:
    """Audit an episodic agent (private reinforcement learning) against a privacy claim under ``definition``
    (``"joint"``: joint DP per episode — :mod:`privcheck.audits.episodic.relations`).

    Parameters
    ----------
    agent : a factory of episodic runs (``act(k, h, state)``, ``update(k, h, state, action, reward, next_state)``,
        ``end_episode(k)`` where it has one: :mod:`privcheck.core.episodic`), given the ``episodes``, ``horizon``,
        ``states``, ``actions``, ``rng`` and claim parameters it declares; batched when it declares ``runs``.
    claim : the claim under test.
    definition : which neighbours the claim is about.
    episodes, horizon, states, actions : the instance audited: K users of one episode each, H steps, S states, A
        actions.
    mdp : the built-in MDP the users' response tapes are drawn from (``chain``, ``riverswim``, ``random``).
    pairs : (x, x') pairs of :class:`~privcheck.core.episodic.Tapes` (the changed user marked) to audit instead
        of the search's.
    releases : what the agent publishes, audited instead of its actions: attribute names of a run object read
        after each episode (a method is called).
    factory_args : the factory's own parameters by name (never the claim's or the instance's).
    method : ``auto`` or ``sample`` (the runs are sampled: no exact enumeration of an agent's runs).
    seed : reproduces the audit; generated and reported when None.
    name : what the report calls the agent.

    Other Parameters
    ----------------
    {options}

    Returns
    -------
    AuditReport — a violation is reported, never raised.  A report that does not refute the claim is a lower bound
    on the privacy loss, never a certificate of privacy.
    """
    t0 = time.perf_counter()
    relation = episodic_relation_named(definition)
    if method not in ("auto", "sample"):
        raise InvalidArgument(f"method={method!r} must be auto or sample (an episodic agent's runs are sampled)")
    if claim is None:
        raise InvalidArgument("claim=None: give the claim under test, e.g. PureDP(1.0)")
    needs(claim)
    if not callable(agent):
        raise InvalidArgument(f"agent={agent!r} must be a factory of episodic runs (act(k, h, state), update(…))")
    name = name or getattr(agent, "__name__", None) or type(agent).__name__
    releases = _checked_releases(releases)
    if mdp not in MDPS:
        raise InvalidArgument(f"mdp={mdp!r} must be one of {', '.join(MDPS)}")
    made = EpisodicAgent(agent, episodes, horizon, states, actions, claim_parameters(claim), name, factory_args)
    claim = with_relation(claim, relation.neighbours())
    seed = resolve_seed(seed)
    if pairs is None:
        proposed = candidate_pairs(mdp_named(mdp, made.states, made.actions), made.episodes, made.horizon)
        pair_list = [(a, b) for a, b, _ in proposed]
        search_note = (
            f"{len(pair_list)} neighbouring inputs proposed — one user's response tape replaced (early, in the middle, "
            f"second to last; rewards at the extremes, towards a rare state, both) among a quiet population and the "
            f"{mdp} MDP's users — the pair screening keeps those whose runs differ most"
        )
    else:
        pair_list = _given_pairs(pairs, made)
        search_note = None
    mech = EpisodicMechanism(made, releases, name)
    opts, sized_notes, cost = _sized(options, mech, pair_list, seed, name)
    call = Call(
        "audit_episodic",
        name,
        {
            "claim": claim,
            "definition": relation.name,
            "episodes": made.episodes,
            "horizon": made.horizon,
            "states": made.states,
            "actions": made.actions,
            "mdp": mdp,
            "releases": list(releases) if releases else None,
            "factory_args": factory_args,
            "pairs": None if pairs is None else pair_list,
            "seed": seed,
        },
        source=agent,
    )
    report = sampled_report(
        mech, mech, claim, pair_list, opts, seed, name, call, [], t0, staging=POLICY, said_as=mech.event_text, cost=cost
    )
    notes = [
        f"joint DP per episode: sampled over runs of the agent; {mech.outputs()}",
        *([search_note] if search_note else []),
        *sized_notes,
        *report.notes,
        *([made.adapter_note] if made.adapter_note else []),
    ]
    return replace(
        report,
        relation=relation,
        definition=relation.name,
        notes=tuple(notes),
        seconds=time.perf_counter() - t0,
        extra={**{k: v for k, v in report.extra.items() if k != "classifier"}, "episodic": made.instance, "mdp": mdp},
    )


def _checked_releases(releases) -> tuple | None:
    if releases is None:
        return None
    if isinstance(releases, str):
        releases = (releases,)
    releases = tuple(releases)
    if not releases or not all(isinstance(r, str) and r.isidentifier() for r in releases):
        raise InvalidArgument(f"releases={releases!r} must name attributes of the agent's runs, e.g. ('visits',)")
    return releases


def _given_pairs(pairs, agent: EpisodicAgent) -> list:
    """Given pairs as packed inputs, each side checked: :class:`~privcheck.core.episodic.Tapes` or packed arrays of
    the instance's shape."""
    out = []
    for i, pair in enumerate(pairs):
        try:
            a, b = pair
        except (TypeError, ValueError):
            raise InvalidArgument(f"pairs=[{i}] must be an (x, x') pair of tapes") from None
        sides = []
        for side in (a, b):
            tapes = (
                side if isinstance(side, Tapes) else Tapes.unpacked(side, agent.horizon, agent.states, agent.actions)
            )
            if tapes.shape != (agent.episodes, agent.horizon, agent.states, agent.actions):
                raise InvalidArgument(
                    f"pairs=[{i}] holds tapes of shape {tapes.shape}, not (episodes, horizon, states, actions) = "
                    f"{(agent.episodes, agent.horizon, agent.states, agent.actions)}"
                )
            sides.append(tapes.packed())
        out.append(tuple(sides))
    if not out:
        raise InvalidArgument("pairs=[] must hold at least one (x, x') pair")
    return out


def _sized(options: dict, mech, pairs, seed: int, name: str) -> tuple[Options, list, DrawCost]:
    """The options of the sampling — a policy's (:func:`~..policy.resolved.policy_options`), the runs per side sized to
    the agent's measured cost when none are given (:func:`~..policy.plan.sized`) — its notes, and that cost (what the
    sampling's plan reads too)."""
    opts = policy_options(options)
    cost = draw_cost(mech, pairs[0][0], seed, name, 64, 512)
    with opts.executor() as executor:
        workers = executor.workers
    opts, notes = sized(opts, cost, workers, 1, pairs, subject="agent")
    return opts, notes, cost
